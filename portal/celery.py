import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")

app = Celery("portal")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def load_urlconf(**_kwargs) -> None:
    """Import the URLconf once, when the process starts: jobs build links (reverse) for their
    notices, and the first reverse() would otherwise import every app's routes inside the
    first job (hundreds of milliseconds counted against it)."""
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 - the property imports the routes


def _connect_worker_start() -> None:
    from celery.signals import worker_process_init

    worker_process_init.connect(load_urlconf, weak=False, dispatch_uid="portal-load-urlconf")


_connect_worker_start()


# --- the municipality of a task ------------------------------------------------------------
# A task sent from a request (or any code with a municipality in scope) carries the
# municipality in its message headers and runs in that scope; a periodic task has none and
# runs once per municipality in service (portal.jobs.run_job).
HEADER = "municipality"
_tokens: dict[str, object] = {}


def put_municipality_in_headers(headers=None, **_kwargs) -> None:
    from portal import tenancy

    scope = tenancy.current()
    if scope is not None and headers is not None and HEADER not in headers:
        headers[HEADER] = [scope.id, scope.slug]


def _header_of(task) -> list | None:
    request = getattr(task, "request", None)
    if request is None:
        return None
    found = getattr(request, HEADER, None)
    if found is None:
        found = (getattr(request, "headers", None) or {}).get(HEADER)
    return found


def activate_task_municipality(task_id=None, task=None, **_kwargs) -> None:
    from portal import tenancy

    found = _header_of(task)
    if found and task_id is not None:
        _tokens[task_id] = tenancy.set_current((int(found[0]), str(found[1])))


def reset_task_municipality(task_id=None, **_kwargs) -> None:
    from portal import tenancy

    token = _tokens.pop(task_id, None)
    if token is not None:
        tenancy.reset(token)


def _connect_tenancy() -> None:
    from celery.signals import before_task_publish, task_postrun, task_prerun

    before_task_publish.connect(put_municipality_in_headers, weak=False, dispatch_uid="portal-tenant-publish")
    task_prerun.connect(activate_task_municipality, weak=False, dispatch_uid="portal-tenant-prerun")
    task_postrun.connect(reset_task_municipality, weak=False, dispatch_uid="portal-tenant-postrun")


_connect_tenancy()
