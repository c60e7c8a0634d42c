"""HTML URLs of applications (requerimentos), calls and inspections (paths and names are pinned: stored notification links hold them)."""

from django.urls import path

from licensing.applications.views import applicant, desk

urlpatterns = [
    path("requerente/perfil/", applicant.ProfileView.as_view(), name="licensing-profile"),
    path("requerimentos/", applicant.MyApplicationsView.as_view(), name="licensing-my-applications"),
    path("requerimentos/novo/", applicant.ApplicationNewView.as_view(), name="licensing-application-new"),
    path("minha-autorizacao/<int:pk>/renovar/", applicant.RenewalStartView.as_view(), name="licensing-renewal-start"),
    path("requerimentos/<int:pk>/", applicant.ApplicationDetailView.as_view(), name="licensing-application"),
    path("requerimentos/<int:pk>/etapa/<slug:step>/", applicant.ApplicationStepView.as_view(),
         name="licensing-application-step"),
    path("requerimentos/<int:pk>/documentos/", applicant.DocumentUploadView.as_view(), name="licensing-document-upload"),
    path("requerimentos/<int:pk>/documentos/<int:doc_id>/", applicant.DocumentFileView.as_view(),
         name="licensing-document-file"),
    path("requerimentos/<int:pk>/tff/", applicant.ApplicationTffView.as_view(), name="licensing-application-tff"),
    path("requerimentos/<int:pk>/protocolar/", applicant.ApplicationSubmitView.as_view(), name="licensing-application-submit"),
    path("requerimentos/<int:pk>/desistir/", applicant.ApplicationWithdrawView.as_view(),
         name="licensing-application-withdraw"),
    path("requerimentos/<int:pk>/comprovante.pdf", applicant.ReceiptPdfView.as_view(), name="licensing-receipt-pdf"),
    path("requerimentos/<int:pk>/declaracao.pdf", applicant.DeclarationPdfView.as_view(), name="licensing-declaration-pdf"),
    path("requerimentos/<int:pk>/vistoria.pdf", applicant.InspectionPdfView.as_view(), name="licensing-inspection-pdf"),
    path("atendimento/requerimentos/", desk.QueueView.as_view(), name="licensing-queue"),
    path("atendimento/requerimentos/<int:pk>/documentos/<int:doc_id>/analise/", desk.DocumentReviewView.as_view(),
         name="licensing-document-review"),
    path("atendimento/requerimentos/<int:pk>/documentos/aceitar/", desk.DocumentsAcceptView.as_view(),
         name="licensing-documents-accept"),
    path("atendimento/requerimentos/<int:pk>/exigencia/", desk.RequirementView.as_view(), name="licensing-requirement"),
    path("atendimento/requerimentos/<int:pk>/vistoria/", desk.ScheduleView.as_view(), name="licensing-schedule"),
    path("atendimento/requerimentos/<int:pk>/deferir/", desk.ApproveView.as_view(), name="licensing-approve"),
    path("atendimento/requerimentos/<int:pk>/indeferir/", desk.RejectView.as_view(), name="licensing-reject"),
    path("atendimento/classificacao/", desk.RankingView.as_view(), name="licensing-ranking"),
    path("atendimento/editais/", desk.CallsView.as_view(), name="licensing-calls"),
    path("fiscalizacao/vistorias/", desk.AgentInspectionsView.as_view(), name="licensing-agent-inspections"),
    path("fiscalizacao/vistorias/<int:pk>/", desk.InspectionRecordView.as_view(), name="licensing-inspection-record"),
]
