import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
application = get_wsgi_application()

# Routes imported now (in gunicorn's master with preload_app), not by a worker's first request.
from portal.celery import load_urlconf  # noqa: E402

load_urlconf()
