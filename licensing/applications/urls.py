"""HTML URLs of applications (requerimentos), calls and inspections (paths and names are pinned: stored notification links hold them)."""

from django.urls import path

from licensing.applications import views

urlpatterns = [
    path("requerente/perfil/", views.ProfileView.as_view(), name="licensing-profile"),
    path("requerimentos/", views.MyApplicationsView.as_view(), name="licensing-my-applications"),
    path("requerimentos/novo/", views.ApplicationNewView.as_view(), name="licensing-application-new"),
    path("requerimentos/<int:pk>/", views.ApplicationDetailView.as_view(), name="licensing-application"),
    path("requerimentos/<int:pk>/etapa/<slug:step>/", views.ApplicationStepView.as_view(),
         name="licensing-application-step"),
    path("requerimentos/<int:pk>/documentos/", views.DocumentUploadView.as_view(), name="licensing-document-upload"),
    path("requerimentos/<int:pk>/documentos/<int:doc_id>/", views.DocumentFileView.as_view(),
         name="licensing-document-file"),
    path("requerimentos/<int:pk>/tff/", views.ApplicationTffView.as_view(), name="licensing-application-tff"),
    path("requerimentos/<int:pk>/protocolar/", views.ApplicationSubmitView.as_view(), name="licensing-application-submit"),
    path("requerimentos/<int:pk>/desistir/", views.ApplicationWithdrawView.as_view(),
         name="licensing-application-withdraw"),
    path("requerimentos/<int:pk>/comprovante.pdf", views.ReceiptPdfView.as_view(), name="licensing-receipt-pdf"),
    path("requerimentos/<int:pk>/declaracao.pdf", views.DeclarationPdfView.as_view(), name="licensing-declaration-pdf"),
    path("requerimentos/<int:pk>/vistoria.pdf", views.InspectionPdfView.as_view(), name="licensing-inspection-pdf"),
    path("atendimento/requerimentos/", views.QueueView.as_view(), name="licensing-queue"),
    path("atendimento/requerimentos/<int:pk>/documentos/<int:doc_id>/analise/", views.DocumentReviewView.as_view(),
         name="licensing-document-review"),
    path("atendimento/requerimentos/<int:pk>/documentos/aceitar/", views.DocumentsAcceptView.as_view(),
         name="licensing-documents-accept"),
    path("atendimento/requerimentos/<int:pk>/exigencia/", views.RequirementView.as_view(), name="licensing-requirement"),
    path("atendimento/requerimentos/<int:pk>/vistoria/", views.ScheduleView.as_view(), name="licensing-schedule"),
    path("atendimento/requerimentos/<int:pk>/deferir/", views.ApproveView.as_view(), name="licensing-approve"),
    path("atendimento/requerimentos/<int:pk>/indeferir/", views.RejectView.as_view(), name="licensing-reject"),
    path("atendimento/classificacao/", views.RankingView.as_view(), name="licensing-ranking"),
    path("atendimento/editais/", views.CallsView.as_view(), name="licensing-calls"),
    path("fiscalizacao/vistorias/", views.AgentInspectionsView.as_view(), name="licensing-agent-inspections"),
    path("fiscalizacao/vistorias/<int:pk>/", views.InspectionRecordView.as_view(), name="licensing-inspection-record"),
]
