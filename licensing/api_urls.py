"""API v1 URLs of licensing (included under /api/v1/): one include per room."""

from django.urls import include, path

urlpatterns = [
    path("", include("licensing.applications.api_urls")),
    path("", include("licensing.grants.api_urls")),
    path("", include("licensing.requests.api_urls")),
    path("", include("licensing.stands.api_urls")),
    path("", include("licensing.fees.api_urls")),
]
