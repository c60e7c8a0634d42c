# Production image of the portal: gunicorn (web), Celery worker and beat share it.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONPATH=/app \
    VAR_DIR=/app/var \
    MEDIA_ROOT=/data/media

# WeasyPrint (PDF documents) needs Pango and HarfBuzz; DejaVu fonts are also vendored in static/fonts.
# HarfBuzz-Subset embeds only the glyphs used: without it WeasyPrint falls back to fontTools,
# which took about 90 % of a one-line page (89 ms against 7 ms) and 3/4 of an alvará.
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz0b libharfbuzz-subset0 fonts-dejavu-core \
    && rm -rf /var/lib/apt/lists/*

RUN groupadd --system --gid 1000 portal \
    && useradd --system --uid 1000 --gid portal --home-dir /app --shell /usr/sbin/nologin portal

WORKDIR /app
COPY pyproject.toml README.md ./
COPY portal ./portal
COPY licensing ./licensing
COPY fleet ./fleet
COPY enforcement ./enforcement
COPY tariffs ./tariffs
RUN pip install .

COPY manage.py ./
COPY templates ./templates
COPY static ./static
COPY bin ./bin

# Static files are collected at build time (served by WhiteNoise); SECRET_KEY here is only
# for this step and is not kept in the image's environment.
RUN SECRET_KEY=collectstatic-only-not-a-runtime-key DEBUG=0 \
        python manage.py collectstatic --noinput --verbosity 0 \
    && mkdir -p /app/var/beat "$MEDIA_ROOT" \
    && chown -R portal:portal /app/var /data

USER portal
EXPOSE 8000
# The web service runs migrations and loads the pack before gunicorn (see docker-compose.yml).
# bin/gunicorn.conf.py: 3 workers (WEB_CONCURRENCY), --preload, --max-requests with jitter,
# timeout 60, access and error logs on stdout.
CMD ["gunicorn", "-c", "bin/gunicorn.conf.py", "portal.wsgi:application"]
