"""URLs of the clerk's pages over background jobs; registers their menu entries and the
quota check run after `load_regulation`."""

from django.urls import path

from portal import jobs_views

urlpatterns = [
    path("tarefas/", jobs_views.JobRunListView.as_view(), name="ops-jobs"),
    path("tarefas/veiculos-idade-maxima/", jobs_views.AgedVehicleListView.as_view(), name="ops-aged-vehicles"),
]


def _register() -> None:
    from licensing.jobs import register_hooks
    from portal import menu
    from portal.roles import Role

    menu.register(
        menu.MenuItem("Tarefas automáticas", "ops-jobs", (Role.CLERK, Role.ADMIN), order=80),
        menu.MenuItem("Veículos na idade máxima", "ops-aged-vehicles", (Role.CLERK, Role.ADMIN), order=81),
    )
    register_hooks()


_register()
