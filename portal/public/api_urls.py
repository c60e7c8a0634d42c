"""Public API. Included in portal/urls.py api_v1: path("", include("portal.public.api_urls"))."""

from django.urls import path

from portal.public import api

urlpatterns = [
    path("quotas/", api.QuotasView.as_view(), name="api-quotas"),
    path("verify/<str:code>/", api.VerifyView.as_view(), name="api-verify"),
    path("authorizations/", api.OpenAuthorizationsView.as_view(), name="api-open-authorizations"),
]
