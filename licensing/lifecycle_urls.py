"""HTML URLs of a grant's life (menu entries and hooks are registered in LicensingConfig.ready())."""

from django.urls import path

from licensing import views_lifecycle as v

urlpatterns = [
    path("minha-autorizacao/", v.MyAuthorizationView.as_view(), name="lifecycle-mine"),
    path("minha-autorizacao/<int:pk>/pedidos/novo/<slug:kind>/", v.RequestNewView.as_view(), name="lifecycle-request-new"),
    path("pedidos/<int:pk>/", v.RequestDetailView.as_view(), name="lifecycle-request-detail"),
    path("afastamentos/<int:pk>/retorno/", v.LeaveReturnView.as_view(), name="lifecycle-leave-return"),
    path("taxas/<int:pk>/dam.pdf", v.FeeDamView.as_view(), name="lifecycle-fee-dam"),
    path("pontos/", v.PublicStandsView.as_view(), name="lifecycle-stands-public"),
    path("atendimento/pedidos/", v.QueueView.as_view(), name="lifecycle-queue"),
    path("atendimento/pedidos/<int:pk>/decidir/", v.RequestDecideView.as_view(), name="lifecycle-request-decide"),
    path("atendimento/pedidos/<int:pk>/vistoria/", v.RequestInspectionView.as_view(), name="lifecycle-request-inspection"),
    path("atendimento/pontos/", v.StandsManageView.as_view(), name="lifecycle-stands-manage"),
    path("atendimento/pontos/permuta/", v.StandSwapView.as_view(), name="lifecycle-stand-swap"),
    path("atendimento/pontos/<int:pk>/", v.StandDetailView.as_view(), name="lifecycle-stand-detail"),
    path("atendimento/pontos/<int:pk>/vagas/", v.StandCapacityView.as_view(), name="lifecycle-stand-capacity"),
    path("atendimento/pontos/<int:pk>/designar/", v.StandAssignView.as_view(), name="lifecycle-stand-assign"),
    path("atendimento/designacoes/<int:pk>/encerrar/", v.AssignmentEndView.as_view(), name="lifecycle-assignment-end"),
    path("atendimento/taxas/", v.FeesView.as_view(), name="lifecycle-fees"),
    path("atendimento/taxas/tff/", v.TffIssueView.as_view(), name="lifecycle-tff-issue"),
    path("atendimento/taxas/retorno/", v.BankReturnView.as_view(), name="lifecycle-fee-bank-return"),
    path("atendimento/taxas/<int:pk>/pagar/", v.FeePayView.as_view(), name="lifecycle-fee-pay"),
]
