"""HTML URLs of a grant's requests (pedidos), leaves and the holder's page (paths and names are pinned: stored notification links hold them)."""

from django.urls import path

from licensing.requests import views

urlpatterns = [
    path("minha-autorizacao/", views.MyAuthorizationView.as_view(), name="lifecycle-mine"),
    path("minha-autorizacao/<int:pk>/pedidos/novo/<slug:kind>/", views.RequestNewView.as_view(), name="lifecycle-request-new"),
    path("pedidos/<int:pk>/", views.RequestDetailView.as_view(), name="lifecycle-request-detail"),
    path("afastamentos/<int:pk>/retorno/", views.LeaveReturnView.as_view(), name="lifecycle-leave-return"),
    path("atendimento/pedidos/", views.QueueView.as_view(), name="lifecycle-queue"),
    path("atendimento/pedidos/<int:pk>/decidir/", views.RequestDecideView.as_view(), name="lifecycle-request-decide"),
    path("atendimento/pedidos/<int:pk>/vistoria/", views.RequestInspectionView.as_view(), name="lifecycle-request-inspection"),
]
