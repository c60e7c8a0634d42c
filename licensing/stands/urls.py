"""HTML URLs of taxi stands (paths and names are pinned: stored notification links hold them)."""

from django.urls import path

from licensing.stands import views

urlpatterns = [
    path("pontos/", views.PublicStandsView.as_view(), name="lifecycle-stands-public"),
    path("atendimento/pontos/", views.StandsManageView.as_view(), name="lifecycle-stands-manage"),
    path("atendimento/pontos/permuta/", views.StandSwapView.as_view(), name="lifecycle-stand-swap"),
    path("atendimento/pontos/<int:pk>/", views.StandDetailView.as_view(), name="lifecycle-stand-detail"),
    path("atendimento/pontos/<int:pk>/vagas/", views.StandCapacityView.as_view(), name="lifecycle-stand-capacity"),
    path("atendimento/pontos/<int:pk>/designar/", views.StandAssignView.as_view(), name="lifecycle-stand-assign"),
    path("atendimento/designacoes/<int:pk>/encerrar/", views.AssignmentEndView.as_view(), name="lifecycle-assignment-end"),
]
