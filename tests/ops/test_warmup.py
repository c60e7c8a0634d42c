"""The web process loads what its requests need before gunicorn forks the workers
(portal.warmup), and a worker that leaves normally does not wait for Python's teardown
(bin/gunicorn.conf.py)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.template import engines

ROOT = Path(__file__).resolve().parents[2]


def test_every_template_is_compiled_into_the_cached_loader():
    from portal.warmup import load_templates

    assert not settings.DEBUG
    engine = engines["django"].engine
    cached = engine.template_loaders[0]
    assert type(cached).__name__ == "Loader" and "cached" in type(cached).__module__
    cached.reset()
    files = list(Path(settings.BASE_DIR, "templates").rglob("*.html"))
    assert load_templates() == len(files) > 100
    assert {"base.html", "public/verify.html"} <= {key.split(":")[0] for key in cached.get_template_cache}


def test_nothing_is_kept_with_debug_on(settings):
    from portal.warmup import load_templates

    settings.DEBUG = True
    assert load_templates() == 0


def test_the_wsgi_module_warms_the_process(monkeypatch):
    import importlib

    import portal.warmup

    called = []
    monkeypatch.setattr(portal.warmup, "warm_web_process", lambda: called.append(1))
    import portal.wsgi

    called.clear()  # a first import here has already warmed once
    importlib.reload(portal.wsgi)
    assert called == [1]


def _python(code: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    """``code`` in a new interpreter, in the project, with the environment of a web process."""
    base = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DEBUG")}
    base.update({"DJANGO_SETTINGS_MODULE": "portal.settings", "VAR_DIR": str(tmp_path / "var"),
                 "DATABASE_URL": f"sqlite:///{tmp_path / 'never-opened.sqlite3'}", "PORTAL_TESTING": "0"})
    base.update(env)
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=base, capture_output=True, text=True,
                          timeout=120)


WARM_STATE = """
import json, sys
import portal.wsgi  # what gunicorn's master imports (preload_app)
from django.core.cache import caches
from django.db import connections
from django.urls import get_resolver
from portal import page_cache
print(json.dumps({
    "reverse_index": get_resolver()._populated,
    "routes": [route.pattern is not None for route in page_cache._routes],
    "modules": sorted(sys.modules),
    "cache_in_fallback": caches["default"].in_fallback(),
    "database_connections": [c.connection is not None for c in connections.all(initialized_only=True)],
}))
"""


def test_the_master_leaves_no_first_use_work_to_its_workers(tmp_path):
    """A new worker's first request built the URLconf's reverse index and imported the Redis
    client, the context processors and the message and session storages (340–520 ms while its
    queue waited); the master does it once, without opening a connection to the database or
    to Redis (they would be shared by every fork)."""
    done = _python(WARM_STATE, tmp_path, DEBUG="0", SECRET_KEY="warmup-test-" + "x" * 50, ALLOWED_HOSTS="localhost",
                   REDIS_URL="redis://127.0.0.1:1/0")  # nothing listens there: a connection would fail
    assert done.returncode == 0, done.stderr
    state = json.loads(done.stdout.strip().splitlines()[-1])
    assert state["reverse_index"] is True
    assert state["routes"] and all(state["routes"])  # the direct routes' patterns (page_cache)
    modules = set(state["modules"])
    assert {"redis", "portal.cache", "django.contrib.messages.storage.fallback", "django.contrib.sessions.serializers",
            "csp.context_processors", "portal.context_processors"} <= modules
    assert state["cache_in_fallback"] is False  # Redis was not tried
    assert not any(state["database_connections"])
    assert not (tmp_path / "never-opened.sqlite3").exists()


LEAVING = """
import atexit, runpy, sys
conf = runpy.run_path("bin/gunicorn.conf.py")
class Heap:
    def __del__(self, open=open):  # the builtins may be gone by then
        open(sys.argv[1] + "/teardown", "w").write("freed")
kept = Heap()  # freed by the interpreter's teardown, if it runs
atexit.register(lambda: open(sys.argv[1] + "/atexit", "w").write("ran"))
sys.stdout.write("written, not flushed")  # a pipe: block-buffered
try:  # as gunicorn ends a worker: sys.exit() inside, worker_exit in the finally
    sys.exit(CODE)
finally:
    conf["worker_exit"](None, None)
"""


@pytest.mark.parametrize("code, teardown", [(0, False), (3, True)])
def test_a_worker_that_leaves_normally_skips_the_teardown_and_nothing_else(tmp_path, code, teardown):
    """Exit code 0 (max_requests reached, or asked to stop): the atexit handlers run, the
    streams are flushed, the heap is not torn down. Any other code (a worker that could not
    boot or load the application: the master reads it and halts) is Python's own exit."""
    script = LEAVING.replace("CODE", str(code)).replace("sys.argv[1]", repr(str(tmp_path)))
    done = _python(script, tmp_path, DEBUG="1")
    assert done.returncode == code, done.stderr
    assert done.stdout == "written, not flushed"
    assert (tmp_path / "atexit").read_text() == "ran"
    assert (tmp_path / "teardown").exists() is teardown
