"""API v1 URLs of a grant's life (included under /api/v1/)."""

from django.urls import path

from licensing import api_lifecycle as api

urlpatterns = [
    path("authorizations/<int:pk>/requests/", api.AuthorizationRequestsView.as_view(), name="api-lifecycle-auth-requests"),
    path("authorizations/<int:pk>/fees/tff/", api.TffIssueView.as_view(), name="api-lifecycle-tff"),
    path("requests/", api.RequestListView.as_view(), name="api-lifecycle-requests"),
    path("requests/<int:pk>/", api.RequestDetailView.as_view(), name="api-lifecycle-request"),
    path("requests/<int:pk>/decide/", api.RequestDecideView.as_view(), name="api-lifecycle-request-decide"),
    path("requests/<int:pk>/inspection/", api.RequestInspectionView.as_view(), name="api-lifecycle-request-inspection"),
    path("stands/", api.StandListView.as_view(), name="api-lifecycle-stands"),
    path("stands/swap/", api.StandSwapView.as_view(), name="api-lifecycle-stand-swap"),
    path("stands/<int:pk>/capacity/", api.StandCapacityView.as_view(), name="api-lifecycle-stand-capacity"),
    path("stands/<int:pk>/assignments/", api.StandAssignView.as_view(), name="api-lifecycle-stand-assign"),
    path("fees/", api.FeeListView.as_view(), name="api-lifecycle-fees"),
    path("fees/bank-return/", api.BankReturnView.as_view(), name="api-lifecycle-fee-bank-return"),
    path("fees/<int:pk>/", api.FeeDetailView.as_view(), name="api-lifecycle-fee"),
    path("fees/<int:pk>/pay/", api.FeePayView.as_view(), name="api-lifecycle-fee-pay"),
    path("fees/<int:pk>/dam.pdf", api.FeeDamView.as_view(), name="api-lifecycle-fee-dam"),
    path("leaves/<int:pk>/return/", api.LeaveReturnView.as_view(), name="api-lifecycle-leave-return"),
]
