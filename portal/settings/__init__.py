"""Settings driven by environment variables, with production-safe defaults.

DEBUG is off unless set; SECRET_KEY is required when DEBUG is off. Without DATABASE_URL the
portal runs on SQLite under var/; without REDIS_URL, Celery uses an embedded filesystem
broker under var/ so background jobs still run on a single machine.
"""

from __future__ import annotations

import os
import sys
from datetime import timedelta
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from portal.settings.env import default_site_url, env_bool, env_int, env_list, parse_database_url

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(os.environ.get("VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env_bool("DEBUG", False)
TESTING = env_bool("PORTAL_TESTING", "pytest" in sys.modules)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if DEBUG or TESTING:
        SECRET_KEY = "insecure-development-key-only-for-debug"  # noqa: S105
    else:
        raise ImproperlyConfigured("SECRET_KEY é obrigatória quando DEBUG está desligado.")

# ".localhost": every municipality of `make run` on its own host (<slug>.localhost)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", ".localhost"] if DEBUG or TESTING else [])
# The municipality of a request is its host's (portal/tenant_hosts.py): <slug>.TENANT_BASE_DOMAIN,
# an extra hostname of the MunicipalityHost table, else DEFAULT_MUNICIPALITY (a slug; a one-city
# installation), else the only municipality in service.
TENANT_BASE_DOMAIN = os.environ.get("TENANT_BASE_DOMAIN", "localhost")
DEFAULT_MUNICIPALITY = os.environ.get("DEFAULT_MUNICIPALITY", "")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
# Links in e-mails and QR codes: SITE_URL, else the HOST:PORT that `make run` serves.
SITE_URL = default_site_url()
DEMO_PASSWORD = os.environ.get("DEMO_PASSWORD", "demo-portal-2026")

# Digital signature of issued acts and alvarás (PAdES, portal/signing.py): the authority's
# PKCS#12 (ICP-Brasil A1) and, where contracted, a timestamp authority. Without a certificate,
# DEBUG and tests sign with a self-signed demonstration certificate created under VAR_DIR.
SIGNING_CERT_FILE = os.environ.get("SIGNING_CERT_FILE", "")
SIGNING_CERT_PASSWORD = os.environ.get("SIGNING_CERT_PASSWORD", "")
# a file holding the password (Docker secrets); like SIGNING_CERT_FILE it may name {municipio}
SIGNING_CERT_PASSWORD_FILE = os.environ.get("SIGNING_CERT_PASSWORD_FILE", "")
SIGNING_TSA_URL = os.environ.get("SIGNING_TSA_URL", "")
SIGNING_DEMO_CERTIFICATE = env_bool("SIGNING_DEMO_CERTIFICATE", DEBUG or TESTING)
# The Prefeitura's 4-digit FEBRABAN code for collection barcodes on the DAM (overrides the pack's
# febraban_code, which ships as an example).
FEBRABAN_CODE = os.environ.get("FEBRABAN_CODE", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_filters",
    "crispy_forms",
    "crispy_bootstrap5",
    "axes",
    "django_otp",
    "django_otp.plugins.otp_totp",
    "pgtrigger",
    "portal",
    "fleet",
    "licensing",
    "enforcement",
    "tariffs",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # the municipality of the request's host in scope (portal.tenancy) before anything reads data
    "portal.tenant_hosts.TenantMiddleware",
    "portal.middleware.RequestSizeLimitMiddleware",
    "portal.middleware.PrivateResponseMiddleware",
    # anonymous public GETs answered from the shared cache before sessions, auth, CSRF, CSP and
    # the view run (portal/page_cache.py says what is stored and why it stays correct)
    "portal.page_cache.PublicPageCacheMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "portal.middleware.SessionIdleTimeoutMiddleware",
    "django_otp.middleware.OTPMiddleware",
    "portal.second_factor.StaffSecondFactorMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "portal.middleware.NullCharacterMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "portal.middleware.MunicipalityTimezoneMiddleware",
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "portal.urls"
WSGI_APPLICATION = "portal.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "csp.context_processors.nonce",
                "portal.context_processors.portal",
            ],
        },
    },
]

DATABASES = {"default": parse_database_url(os.environ.get("DATABASE_URL"), VAR_DIR,
                                           conn_max_age=env_int("DB_CONN_MAX_AGE", 0))}
# The owner of the tables, for what crosses municipalities on purpose (migrate --database admin,
# the consortium's figures, revoking a person's tokens everywhere): with row-level security
# (portal.row_security) the application's role in DATABASE_URL sees one municipality at a time.
if os.environ.get("DATABASE_ADMIN_URL"):
    DATABASES["admin"] = parse_database_url(os.environ["DATABASE_ADMIN_URL"], VAR_DIR, conn_max_age=0)
    DATABASES["admin"]["TEST"] = {"MIRROR": "default"}
ADMIN_DATABASE = "admin" if "admin" in DATABASES else "default"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "portal.User"

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "portal.auth.UsernameOrCpfBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
if TESTING:
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Staff roles and the admin need a second factor (TOTP app, portal.second_factor); off with
# DEBUG and in the tests so that `make run` and the suite sign in with the password alone.
STAFF_2FA_REQUIRED = env_bool("STAFF_2FA_REQUIRED", not (DEBUG or TESTING))
OTP_TOTP_ISSUER = os.environ.get("OTP_TOTP_ISSUER", "Portal do Táxi")
# Path of the Django admin (a less guessable one keeps it out of the scanners' logs).
ADMIN_URL = os.environ.get("ADMIN_URL", "admin/").strip("/") + "/"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "dashboard"
LOGOUT_REDIRECT_URL = "home"

# API tokens (portal.tokens): lifetime by role; revoked by DELETE /api/v1/auth/token/, logout,
# a password change or reset, and from the person's access page.
API_TOKEN_TTL_STAFF_HOURS = env_int("API_TOKEN_TTL_STAFF_HOURS", 8)
API_TOKEN_TTL_APPLICANT_DAYS = env_int("API_TOKEN_TTL_APPLICANT_DAYS", 30)

# Brute-force lockout (django-axes, database handler)
AXES_ENABLED = env_bool("AXES_ENABLED", True)
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("AXES_COOLOFF_MINUTES", 15))
# Lock the pair (username, client IP): an attacker cannot lock a person out from elsewhere,
# and DRF throttles bound the attempts per IP.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
SILENCED_SYSTEM_CHECKS = ["axes.W006"]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "portal.auth.lockout_response"
AXES_USERNAME_FORM_FIELD = "username"
# Failures are counted per account whatever its spelling (CPF with or without punctuation,
# e-mail in any case): see portal.auth.lockout_username.
AXES_USERNAME_CALLABLE = "portal.auth.lockout_username"
# Behind a proxy, the client IP is the right-most X-Forwarded-For entry added by the trusted
# proxies (portal.client_ip); with 0 the header is ignored and REMOTE_ADDR is the client.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)
AXES_CLIENT_IP_CALLABLE = "portal.client_ip.axes_client_ip"

LANGUAGE_CODE = "pt-br"
LANGUAGES = [("pt-br", "Português (Brasil)")]
TIME_ZONE = os.environ.get("TIME_ZONE", "America/Sao_Paulo")
USE_I18N = True
USE_TZ = True
USE_THOUSAND_SEPARATOR = False

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not (DEBUG or TESTING)
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = DEBUG or TESTING
# Uploaded personal documents live outside the web root and are served only by views that
# check who asks (no MEDIA_URL route).
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", VAR_DIR / "media"))
MEDIA_URL = "/nao-publico/"
UPLOAD_MAX_BYTES = env_int("UPLOAD_MAX_BYTES", 5 * 1024 * 1024)
# Images above this many pixels are refused from their header, before any decoding.
UPLOAD_MAX_PIXELS = env_int("UPLOAD_MAX_PIXELS", 40_000_000)
DATA_UPLOAD_MAX_NUMBER_FILES = 10
# Bodies are capped before they are read: the whole request (portal.middleware.RequestSizeLimit,
# by its Content-Length: 413), the non-file part (Django), files kept in memory (above: a temp file).
# The proxy in front caps it too (client_max_body_size, README).
REQUEST_MAX_BYTES = env_int("REQUEST_MAX_BYTES", DATA_UPLOAD_MAX_NUMBER_FILES * UPLOAD_MAX_BYTES + 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = 12 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
FILE_UPLOAD_PERMISSIONS = 0o640

# Sessions and cookies
SESSION_COOKIE_AGE = env_int("SESSION_COOKIE_AGE", 8 * 3600)
SESSION_IDLE_TIMEOUT = env_int("SESSION_IDLE_TIMEOUT", 30 * 60)
# However busy, a session ends this many hours after its login (portal.middleware).
SESSION_ABSOLUTE_HOURS = env_int("SESSION_ABSOLUTE_HOURS", 12)
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_HTTPONLY = True
SECURE = not DEBUG and not TESTING and env_bool("SECURE_COOKIES", True)
SESSION_COOKIE_SECURE = SECURE
CSRF_COOKIE_SECURE = SECURE
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", SECURE)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000 if SECURE else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE
SECURE_HSTS_PRELOAD = SECURE
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("BEHIND_PROXY", False) else None
X_FRAME_OPTIONS = "DENY"
# No page uses these browser features (the agents' pages take photos through a file input,
# which needs no permission); a page that comes to need one lists its origin here.
PERMISSIONS_POLICY = {
    "camera": [], "microphone": [], "geolocation": [], "payment": [], "usb": [],
    "browsing-topics": [],
}
SECURE_REDIRECT_EXEMPT = [r"^healthz/$"]

CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "frame-src": ["'self'"],
        "frame-ancestors": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
    }
}

# Cache: Redis when configured (falling back to local memory while Redis is down: see
# portal.cache), local memory otherwise.
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "portal.cache.ResilientRedisCache", "LOCATION": REDIS_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
# every key carries the municipality in scope (a page, a throttle, a memo of one is never another's)
CACHES["default"]["KEY_FUNCTION"] = "portal.tenancy.cache_key"

# E-mail: console by default.
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "portal@prefeitura.example")

CRISPY_ALLOWED_TEMPLATE_PACKS = "bootstrap5"
CRISPY_TEMPLATE_PACK = "bootstrap5"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "portal.tokens.ExpiringTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": [
        "portal.parsers.SafeJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_SCHEMA_CLASS": "portal.schema.PortalAutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "portal.api.exception_handler",
    "DEFAULT_THROTTLE_RATES": {
        "login": os.environ.get("THROTTLE_LOGIN", "60/min"),
        "verify": os.environ.get("THROTTLE_VERIFY", "120/min"),
        "verify_pdf": os.environ.get("THROTTLE_VERIFY_PDF", "20/min"),  # uploaded PDFs hashed, per IP
        "signup": os.environ.get("THROTTLE_SIGNUP", "600/hour"),
    },
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    # Throttles of every app identify the client as portal.client_ip does (never a spoofed
    # X-Forwarded-For); the portal's own throttles call portal.client_ip directly.
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Portal de Táxi e Mototáxi — API v1",
    "DESCRIPTION": (
        "API do portal municipal de táxi e mototáxi. Corpos em JSON; dinheiro como texto com duas "
        "casas (\"30.99\"); datas ISO 8601. Autenticação: `POST /api/v1/auth/token/` e depois o "
        "cabeçalho `Authorization: Token <token>`. Erros: 400 `{\"errors\": {campo: [mensagens]}}` "
        "e, para uma regra legal, `\"rule\": {\"code\", \"legal_basis\"}`; 401 sem credenciais; "
        "403 para um perfil que não pode agir; 404 `{\"detail\": \"Não encontrado.\"}` para o que "
        "não existe ou é de outra pessoa; 409 para conflito com a situação (vaga, prazo, estado); "
        "429 quando o limite de requisições é atingido. Um campo opcional pode ser omitido ou "
        "enviado como `null`, com o mesmo sentido."
    ),
    # info.version is the portal's (pyproject.toml) and the title names the municipality:
    # portal.schema.add_portal_info.
    "VERSION": None,
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "portal.schema.add_portal_info"],
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# LOG_LEVEL is the handler's level too: a logger's level is checked only where a record is
# made, so with the root's alone Django's own loggers (level INFO in its defaults) still
# printed what they propagate — every 404 as a "Not Found" warning under LOG_LEVEL=ERROR.
LOG_LEVEL = os.environ.get("LOG_LEVEL", "WARNING")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler", "level": LOG_LEVEL}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
}

from portal.settings.celery import *  # noqa: E402,F403
