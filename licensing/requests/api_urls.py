"""API v1 URLs of a grant's requests (pedidos), leaves and the holder's page (included under /api/v1/ through licensing/api_urls.py)."""

from django.urls import path

from licensing.requests import api

urlpatterns = [
    path("authorizations/<int:pk>/requests/", api.AuthorizationRequestsView.as_view(), name="api-lifecycle-auth-requests"),
    path("requests/", api.RequestListView.as_view(), name="api-lifecycle-requests"),
    path("requests/<int:pk>/", api.RequestDetailView.as_view(), name="api-lifecycle-request"),
    path("requests/<int:pk>/decide/", api.RequestDecideView.as_view(), name="api-lifecycle-request-decide"),
    path("requests/<int:pk>/inspection/", api.RequestInspectionView.as_view(), name="api-lifecycle-request-inspection"),
    path("leaves/<int:pk>/return/", api.LeaveReturnView.as_view(), name="api-lifecycle-leave-return"),
]
