"""What a web process loads once, before gunicorn forks its workers (preload_app).

A worker is replaced after ``max_requests`` (bin/gunicorn.conf.py); whatever it must build on
its first requests — the URLconf, the compiled templates — is built again by every new worker,
while the requests queued behind it wait. Loaded in the master, it is inherited by each fork.
"""

from __future__ import annotations

import logging
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


def warm_web_process() -> None:
    from portal.celery import load_urlconf

    load_urlconf()
    load_templates()
