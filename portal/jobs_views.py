"""Clerk pages of the background jobs: "Tarefas automáticas" and vehicles at maximum age."""

from __future__ import annotations

from django.conf import settings
from django.core.paginator import Paginator
from django.db.models import Max, Q
from django.utils import timezone
from django.views.generic import TemplateView

from portal import registry
from portal.jobs import interrupted
from portal.models import JobRun
from portal.roles import Role
from portal.views import RoleRequiredMixin


# The jobs (name recorded by portal.jobs.run_job, label shown to clerks, Celery task) are
# registered in portal.registry by the apps that own them (AppConfig.ready()).
def job_labels() -> dict[str, str]:
    return {job.name: job.label for job in registry.jobs()}


def task_jobs() -> dict[str, str]:
    """Celery task → the name its run is recorded under."""
    return {job.task: job.name for job in registry.jobs() if job.task}


def job_label(name: str) -> str:
    return job_labels().get(name, name)


def describe_schedule(schedule) -> str:
    """A beat schedule in words: "todo dia às 00:05", "a cada minuto"."""
    if isinstance(schedule, int | float):
        seconds = int(schedule)
        return "a cada minuto" if seconds == 60 else f"a cada {seconds} segundos"
    hour, minute = getattr(schedule, "_orig_hour", None), getattr(schedule, "_orig_minute", None)
    days = (getattr(schedule, "_orig_day_of_week", "*"), getattr(schedule, "_orig_day_of_month", "*"),
            getattr(schedule, "_orig_month_of_year", "*"))
    if str(hour).isdigit() and str(minute).isdigit() and days == ("*", "*", "*"):
        return f"todo dia às {int(hour):02d}:{int(minute):02d}"
    return str(schedule)


def scheduled_jobs() -> dict[str, str]:
    """Recorded job name → when beat runs it (from CELERY_BEAT_SCHEDULE)."""
    out = {}
    tasks = task_jobs()
    for entry in getattr(settings, "CELERY_BEAT_SCHEDULE", {}).values():
        job = tasks.get(entry.get("task", ""))
        if not job:
            continue
        local_time = (entry.get("kwargs") or {}).get("local_time")
        # a daily job fires hourly and runs at its local time in each municipality (portal.beat)
        out[job] = f"todo dia às {local_time}, hora local" if local_time else describe_schedule(entry.get("schedule"))
    return out


HISTORY_VIEWS = {
    "": "com alterações ou falhas",
    "falhas": "só com falhas",
    "todas": "todas, inclusive sem alterações",
}


class JobRunListView(RoleRequiredMixin, TemplateView):
    """Last run of each job, then every run (newest first), failures highlighted."""

    roles = (Role.CLERK, Role.ADMIN)
    template_name = "portal/jobs.html"
    paginate_by = 30

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        view = self.request.GET.get("ver", "")
        view = view if view in HISTORY_VIEWS else ""
        latest_ids = JobRun.objects.values("name").annotate(last=Max("id")).values("last")
        latest = {run.name: run for run in JobRun.objects.filter(pk__in=latest_ids)}
        schedule = scheduled_jobs()
        labels = job_labels()
        names = [n for n in labels if n in schedule or n in latest] + sorted(set(latest) - set(labels))
        runs = JobRun.objects.order_by("-started_at", "-id")
        if view == "falhas":
            runs = runs.filter(failures__gt=0)
        elif view == "":  # runs every minute that found nothing to do are left out by default
            runs = runs.filter(Q(changed__gt=0) | Q(failures__gt=0) | Q(finished_at__isnull=True))
        now = timezone.now()
        ctx["latest"] = [
            {"label": job_label(name), "when": schedule.get(name, ""), "run": latest.get(name),
             "interrupted": name in latest and interrupted(latest[name], now)} for name in names
        ]
        page = Paginator(runs, self.paginate_by).get_page(self.request.GET.get("page"))
        ctx["page_obj"] = page
        ctx["runs"] = [(job_label(run.name), run, interrupted(run, now)) for run in page.object_list]
        ctx["view"] = view
        ctx["views"] = HISTORY_VIEWS
        ctx["querystring"] = f"ver={view}" if view else ""
        return ctx


class AgedVehicleListView(RoleRequiredMixin, TemplateView):
    """Vehicles of current grants that reached the pack's maximum age (to be substituted);
    the list comes from the app that grants (portal.registry.OPS_AGED_VEHICLES)."""

    roles = (Role.CLERK, Role.ADMIN)
    template_name = "portal/aged_vehicles.html"
    paginate_by = 30

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        aged = registry.call(registry.OPS_AGED_VEHICLES)
        page = Paginator(aged, self.paginate_by).get_page(self.request.GET.get("page"))
        ctx["page_obj"] = page
        ctx["items"] = registry.call(registry.OPS_DESCRIBE_AGED, page.object_list)
        return ctx
