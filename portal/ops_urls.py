"""URLs of the clerk's pages over background jobs (menu entries: LicensingConfig.ready())."""

from django.urls import path

from portal import jobs_views, modality_views

urlpatterns = [
    path("tarefas/", jobs_views.JobRunListView.as_view(), name="ops-jobs"),
    path("administracao/decretos-modalidades/", modality_views.ModalityDecreeView.as_view(),
         name="ops-modality-decrees"),
    path("tarefas/veiculos-idade-maxima/", jobs_views.AgedVehicleListView.as_view(), name="ops-aged-vehicles"),
]

