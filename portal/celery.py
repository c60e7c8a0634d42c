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
