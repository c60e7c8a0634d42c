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
  Redis socket must never be shared by two processes;
- a worker that leaves normally skips the interpreter's teardown of its heap (worker_exit,
  below): the master forks its replacement only once it has exited, and the teardown took most
  of a second.
"""

import os
import sys

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


def worker_exit(server, worker):
    """Called in the worker, in the ``finally`` around its life: it leaves by the exception in
    flight (SystemExit, normally with code 0)."""
    leave_quickly(sys.exc_info()[1])


def leave_quickly(exiting):
    """End a worker that is leaving normally (``max_requests`` reached, or the master asked it to
    stop) without the interpreter's teardown of its heap.

    The master starts the replacement only once the old worker has exited, and Python's teardown
    of a portal worker (every module and object freed one by one, ~200.000 objects) took 640–860
    ms on the bench's machine, while a third of the service was gone and the requests queued on
    the socket waited. What an exit must still do is done first: the database connections are
    closed (PostgreSQL sees a goodbye, not a dropped socket), the ``atexit`` handlers run
    (logging's flush among them) and the standard streams are flushed. Any other exit (a worker
    that failed to boot or to load the application: SystemExit with the error code the master
    reads) is left to Python, code and all."""
    if not isinstance(exiting, SystemExit) or exiting.code not in (0, None):
        return
    import atexit

    from django.db import connections

    connections.close_all()
    atexit._run_exitfuncs()  # what the interpreter's exit runs before its teardown
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed or broken stream: nothing more can be written
            pass
    os._exit(0)
