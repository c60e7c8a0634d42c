"""Gunicorn settings of the web service (Dockerfile, docker-compose, bin/serve WEB=gunicorn and
bench/bench_public.py, which serves its reference project with this same file).

- preload_app: the portal (settings, apps, URLconf, templates' loaders) is imported once in the
  master and shared by the forked workers, so a worker starts answering at once and a
  restarted worker costs a fork, not an import;
- max_requests with jitter: each worker is replaced after that many requests (staggered), which
  bounds any slow growth of its memory (the issue saw workers reach 1 GB). 50.000: a worker's
  memory stays flat (bench_public: +4 to +11 MB after 20 CSV exports of 40.000 grants), while a
  replacement costs the requests queued behind it — at 5.000 a loaded worker was replaced every
  few seconds and the p95 of cached pages went from 15 ms to 170–270 ms (bench, 2 cores);
- connections opened in the master are closed in each worker after the fork: a PostgreSQL or
  Redis socket must never be shared by two processes.
"""

import os

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "3"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "60"))
preload_app = True
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "50000"))
max_requests_jitter = int(os.environ.get("GUNICORN_MAX_REQUESTS_JITTER", "5000"))
accesslog = os.environ.get("GUNICORN_ACCESS_LOG", "-")
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
backlog = 2048
# gunicorn 27's control socket sits at one path per user: two servers on a machine would share it
control_socket_disable = True


def post_fork(server, worker):
    from django.db import connections

    connections.close_all()
