"""HTML URLs of licensing: one include per room (each room's urls.py holds its paths)."""

from django.urls import include, path

urlpatterns = [
    path("", include("licensing.applications.urls")),
    path("", include("licensing.requests.urls")),
    path("", include("licensing.stands.urls")),
    path("", include("licensing.fees.urls")),
]
