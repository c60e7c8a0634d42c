import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
application = get_wsgi_application()

# Routes and templates loaded now (in gunicorn's master with preload_app), not by each new
# worker's first requests (portal.warmup).
from portal.warmup import warm_web_process  # noqa: E402

warm_web_process()
