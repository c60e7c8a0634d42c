"""API v1 URLs of taxi stands (included under /api/v1/ through licensing/api_urls.py)."""

from django.urls import path

from licensing.stands import api

urlpatterns = [
    path("stands/", api.StandListView.as_view(), name="api-lifecycle-stands"),
    path("stands/swap/", api.StandSwapView.as_view(), name="api-lifecycle-stand-swap"),
    path("stands/<int:pk>/capacity/", api.StandCapacityView.as_view(), name="api-lifecycle-stand-capacity"),
    path("stands/<int:pk>/assignments/", api.StandAssignView.as_view(), name="api-lifecycle-stand-assign"),
]
