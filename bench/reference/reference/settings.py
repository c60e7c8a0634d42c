"""A bare Django 5.2 project: `django-admin startproject` settings, one view, no database use.

The yardstick of bench/bench_public.py: served by the same gunicorn command line as the portal
(bin/gunicorn.conf.py), in the same run, alternating with it. Middleware is the startproject
default, so the ratio is "the portal's page ÷ what any Django project pays for a response".
"""

DEBUG = False
SECRET_KEY = "bench-reference-only-not-secret-" + "x" * 40  # noqa: S105 - answers "ok", nothing else
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
]
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
ROOT_URLCONF = "reference.urls"
WSGI_APPLICATION = "reference.wsgi.application"
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}
USE_TZ = True
STATIC_URL = "static/"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
LOGGING = {"version": 1, "disable_existing_loggers": False, "root": {"level": "ERROR"}}
