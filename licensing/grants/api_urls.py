"""API v1 URLs of grants: the act, amendment and alvará PDFs (included under /api/v1/ through licensing/api_urls.py)."""

from django.urls import path

from licensing.grants import api

urlpatterns = [
    path("authorizations/<int:pk>/act.pdf", api.AuthorizationPdfView.as_view(), name="api-authorization-act-pdf"),
    path("alvaras/<int:pk>/pdf", api.AlvaraPdfView.as_view(), name="api-alvara-pdf"),
    path("amendments/<int:pk>/pdf", api.AmendmentPdfView.as_view(), name="api-amendment-pdf"),
]
