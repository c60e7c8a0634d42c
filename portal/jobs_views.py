"""Clerk pages of the background jobs: "Tarefas automáticas" and vehicles at maximum age."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.db.models import Max
from django.views.generic import TemplateView

from portal.models import JobRun
from portal.roles import Role
from portal.views import RoleRequiredMixin

# Names recorded by portal.jobs.run_job, with the label shown to clerks.
JOB_LABELS = {
    "licensing.expire_grants": "Expiração de autorizações e alvarás",
    "licensing.renewal_reminders": "Lembretes de renovação",
    "licensing.vehicle_age": "Idade máxima dos veículos",
    "licensing.quota_check": "Verificação de vagas",
    "drain_outbox": "Envio de e-mails pendentes",
}


def job_label(name: str) -> str:
    return JOB_LABELS.get(name, name)


class JobRunListView(RoleRequiredMixin, TemplateView):
    """Last run of each job, then every run (newest first), failures highlighted."""

    roles = (Role.CLERK, Role.ADMIN)
    template_name = "portal/jobs.html"
    paginate_by = 30

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        only_failures = self.request.GET.get("falhas") == "1"
        latest_ids = JobRun.objects.values("name").annotate(last=Max("id")).values("last")
        latest = list(JobRun.objects.filter(pk__in=latest_ids).order_by("name"))
        runs = JobRun.objects.order_by("-started_at", "-id")
        if only_failures:
            runs = runs.filter(failures__gt=0)
        ctx["latest"] = [(job_label(run.name), run) for run in latest]
        page = Paginator(runs, self.paginate_by).get_page(self.request.GET.get("page"))
        ctx["page_obj"] = page
        ctx["runs"] = [(job_label(run.name), run) for run in page.object_list]
        ctx["only_failures"] = only_failures
        ctx["querystring"] = "falhas=1" if only_failures else ""
        return ctx


class AgedVehicleListView(RoleRequiredMixin, TemplateView):
    """Vehicles of current grants that reached the pack's maximum age (to be substituted)."""

    roles = (Role.CLERK, Role.ADMIN)
    template_name = "portal/aged_vehicles.html"
    paginate_by = 30

    def get_context_data(self, **kwargs):
        from licensing.jobs import aged_vehicles_queryset, describe_aged

        ctx = super().get_context_data(**kwargs)
        page = Paginator(aged_vehicles_queryset(), self.paginate_by).get_page(self.request.GET.get("page"))
        ctx["page_obj"] = page
        ctx["items"] = describe_aged(page.object_list)
        return ctx
