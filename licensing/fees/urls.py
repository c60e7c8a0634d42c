"""HTML URLs of fees (DAM) (paths and names are pinned: stored notification links hold them)."""

from django.urls import path

from licensing.fees import views

urlpatterns = [
    path("taxas/<int:pk>/dam.pdf", views.FeeDamView.as_view(), name="lifecycle-fee-dam"),
    path("atendimento/taxas/", views.FeesView.as_view(), name="lifecycle-fees"),
    path("atendimento/taxas/tff/", views.TffIssueView.as_view(), name="lifecycle-tff-issue"),
    path("atendimento/taxas/retorno/", views.BankReturnView.as_view(), name="lifecycle-fee-bank-return"),
    path("atendimento/taxas/<int:pk>/pagar/", views.FeePayView.as_view(), name="lifecycle-fee-pay"),
]
