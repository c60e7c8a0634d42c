"""API v1 URLs of fees (DAM) (included under /api/v1/ through licensing/api_urls.py)."""

from django.urls import path

from licensing.fees import api

urlpatterns = [
    path("authorizations/<int:pk>/fees/tff/", api.TffIssueView.as_view(), name="api-lifecycle-tff"),
    path("fees/", api.FeeListView.as_view(), name="api-lifecycle-fees"),
    path("fees/bank-return/", api.BankReturnView.as_view(), name="api-lifecycle-fee-bank-return"),
    path("fees/imports/<int:pk>/", api.PaymentImportView.as_view(), name="api-lifecycle-fee-import"),
    path("fees/<int:pk>/", api.FeeDetailView.as_view(), name="api-lifecycle-fee"),
    path("fees/<int:pk>/pay/", api.FeePayView.as_view(), name="api-lifecycle-fee-pay"),
    path("fees/<int:pk>/dam.pdf", api.FeeDamView.as_view(), name="api-lifecycle-fee-dam"),
]
