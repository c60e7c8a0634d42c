"""What a web process loads once, before gunicorn forks its workers (preload_app).

A worker is replaced after ``max_requests`` (bin/gunicorn.conf.py); whatever it must build on
its first requests — the URLconf and its reverse index, the compiled templates, the modules the
request path imports on first use (the Redis client library, the context processors, the
message and session storages) — is built again by every new worker, while the requests queued
behind it wait: 340–520 ms for a new worker's first request, measured. Loaded in the master, it
is inherited by each fork.
"""

from __future__ import annotations

import logging
from importlib import import_module
from pathlib import Path

log = logging.getLogger(__name__)


def load_templates() -> int:
    """Compile every template of the project's templates/ into the cached loader (DEBUG off:
    Django's default loaders are cached); the number compiled. A template that fails is
    logged and left to fail where it is used, as it would without this."""
    from django.conf import settings
    from django.template import TemplateDoesNotExist, TemplateSyntaxError
    from django.template.loader import get_template

    if settings.DEBUG:  # templates are read again on every use: nothing to keep
        return 0
    root = Path(settings.BASE_DIR, "templates")
    loaded = 0
    for path in sorted(root.rglob("*.html")):
        name = path.relative_to(root).as_posix()
        try:
            get_template(name)
        except (TemplateDoesNotExist, TemplateSyntaxError) as exc:  # pragma: no cover - a broken template
            log.warning("template %s não compilado no início: %s", name, exc)
            continue
        loaded += 1
    return loaded


def load_request_path() -> None:
    """Import and build what the first request of a process would: the URLconf's reverse index
    and the direct routes' patterns (portal.page_cache), the cache backend with its client
    library (no connection is opened: redis-py connects on the first command, in the worker),
    the template context processors and the message and session storages the settings name."""
    from django.conf import settings
    from django.core.cache import caches
    from django.template import engines
    from django.urls import get_resolver
    from django.utils.module_loading import import_string

    from portal import page_cache

    get_resolver().reverse_dict  # noqa: B018 - the property builds the reverse index
    page_cache.compile_routes()
    caches["default"]  # noqa: B018 - the backend, built once and inherited by every worker
    engines["django"].engine.template_context_processors  # noqa: B018 - imports them
    import_string(settings.MESSAGE_STORAGE)
    import_module(settings.SESSION_ENGINE)
    import_string(settings.SESSION_SERIALIZER)


def warm_web_process() -> None:
    from portal.celery import load_urlconf

    load_urlconf()
    load_templates()
    load_request_path()

