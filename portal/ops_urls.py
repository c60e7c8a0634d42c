"""URLs of the clerk's pages over background jobs (menu entries: LicensingConfig.ready())."""

from django.urls import path

from portal import consortium_views, jobs_views, modality_views, staff_views

urlpatterns = [
    path("tarefas/", jobs_views.JobRunListView.as_view(), name="ops-jobs"),
    path("administracao/decretos-modalidades/", modality_views.ModalityDecreeView.as_view(),
         name="ops-modality-decrees"),
    path("tarefas/veiculos-idade-maxima/", jobs_views.AgedVehicleListView.as_view(), name="ops-aged-vehicles"),
    path("equipe/", staff_views.StaffView.as_view(), name="ops-staff"),
    path("equipe/<int:pk>/retirar/", staff_views.StaffRevokeView.as_view(), name="ops-staff-revoke"),
    path("consorcio/", consortium_views.ConsortiumView.as_view(), name="consortium"),
    path("consorcio/dados-abertos.csv", consortium_views.ConsolidatedOpenDataView.as_view(),
         name="consortium-open-data"),
]

