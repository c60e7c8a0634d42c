"""HTML URLs of fees (DAM) (paths and names are pinned: stored notification links hold them)."""

from django.urls import path

from licensing.fees import views

urlpatterns = [
    path("taxas/<int:pk>/", views.FeeDetailView.as_view(), name="lifecycle-fee-detail"),
    path("taxas/<int:pk>/dam.pdf", views.FeeDamView.as_view(), name="lifecycle-fee-dam"),
    path("atendimento/taxas/", views.FeesView.as_view(), name="lifecycle-fees"),
    path("atendimento/taxas/tff/", views.TffIssueView.as_view(), name="lifecycle-tff-issue"),
    path("atendimento/taxas/retorno/", views.BankReturnView.as_view(), name="lifecycle-fee-bank-return"),
    path("atendimento/taxas/divida-ativa/", views.OverdueView.as_view(), name="lifecycle-fee-overdue"),
    path("atendimento/taxas/divida-ativa.csv", views.OverdueCsvView.as_view(), name="lifecycle-fee-overdue-csv"),
    path("atendimento/taxas/retornos/", views.PaymentImportsView.as_view(), name="lifecycle-fee-imports"),
    path("atendimento/taxas/retornos/<int:pk>/", views.PaymentImportView.as_view(), name="lifecycle-fee-import"),
    path("atendimento/taxas/<int:pk>/pagar/", views.FeePayView.as_view(), name="lifecycle-fee-pay"),
]
