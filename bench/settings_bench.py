"""Settings of bench/bench_public.py: production settings with plain static storage.

The manifest storage needs `collectstatic`, which currently stops on the vendored
bootstrap.bundle.min.js (its source map is not shipped); the bench needs no static files.
"""

from portal.settings import *  # noqa: F403

STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
