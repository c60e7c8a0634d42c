"""API v1 URLs of applications (requerimentos), calls and inspections (included under /api/v1/ through licensing/api_urls.py)."""

from django.urls import path

from licensing.applications import api

urlpatterns = [
    path("applications/", api.ApplicationCreateView.as_view(), name="api-applications"),
    path("applications/<int:pk>/", api.ApplicationDetailView.as_view(), name="api-application-detail"),
    path("applications/<int:pk>/documents/", api.DocumentUploadView.as_view(), name="api-application-documents"),
    path("applications/<int:pk>/submit/", api.SubmitView.as_view(), name="api-application-submit"),
    path("applications/<int:pk>/tff/", api.TffView.as_view(), name="api-application-tff"),
    path("applications/<int:pk>/withdraw/", api.WithdrawView.as_view(), name="api-application-withdraw"),
    path("applications/<int:pk>/documents/accept/", api.DocumentsAcceptView.as_view(),
         name="api-application-documents-accept"),
    path("applications/<int:pk>/documents/<int:doc_id>/review/", api.DocumentReviewView.as_view(),
         name="api-application-document-review"),
    path("applications/<int:pk>/requirements/", api.RequirementView.as_view(), name="api-application-requirements"),
    path("applications/<int:pk>/inspection/", api.InspectionView.as_view(), name="api-application-inspection"),
    path("applications/<int:pk>/inspection/result/", api.InspectionResultView.as_view(),
         name="api-application-inspection-result"),
    path("applications/<int:pk>/approve/", api.ApproveView.as_view(), name="api-application-approve"),
    path("applications/<int:pk>/reject/", api.RejectView.as_view(), name="api-application-reject"),
]
