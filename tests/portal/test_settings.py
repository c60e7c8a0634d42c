import os
import sys
from pathlib import Path

from portal.settings.env import env_bool, parse_database_url


def test_sqlite_default_under_var(tmp_path):
    config = parse_database_url(None, tmp_path)
    assert config["ENGINE"] == "django.db.backends.sqlite3"
    assert Path(config["NAME"]) == tmp_path / "portal.sqlite3"


def test_postgres_url_is_parsed(tmp_path):
    config = parse_database_url("postgres://postgres:segredo@127.0.0.1:5432/portal", tmp_path)
    assert config["ENGINE"] == "portal.dbbackend"  # Django's, plus the setting row-level security reads
    assert (config["NAME"], config["USER"], config["PASSWORD"], config["HOST"], config["PORT"]) == (
        "portal", "postgres", "segredo", "127.0.0.1", 5432,
    )


def test_connections_closed_per_request_unless_configured(tmp_path):
    """`make run` serves with Django's threaded server: kept-open connections (one per request
    thread) would exhaust PostgreSQL's max_connections."""
    url = "postgres://postgres@127.0.0.1:5432/portal"
    assert parse_database_url(url, tmp_path)["CONN_MAX_AGE"] == 0
    assert parse_database_url(url, tmp_path, conn_max_age=60)["CONN_MAX_AGE"] == 60


def test_env_bool(monkeypatch):
    monkeypatch.setenv("X_FLAG", "sim")
    assert env_bool("X_FLAG", False) is True
    monkeypatch.setenv("X_FLAG", "0")
    assert env_bool("X_FLAG", True) is False
    monkeypatch.delenv("X_FLAG")
    assert env_bool("X_FLAG", True) is True


def test_secret_key_required_without_debug(tmp_path):
    import subprocess
    import sys

    env = {"PATH": "/usr/bin:/bin", "DEBUG": "0", "PORTAL_TESTING": "0", "VAR_DIR": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-c", "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='portal.settings'; django.setup()"],
        env=env, capture_output=True, text=True, cwd=Path(__file__).resolve().parents[2],
    )
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_sqlite_default_takes_the_write_lock_at_begin(tmp_path):
    """Web, worker and beat share the SQLite file: IMMEDIATE transactions and WAL."""
    options = parse_database_url(None, tmp_path)["OPTIONS"]
    assert options["transaction_mode"] == "IMMEDIATE" and "journal_mode=WAL" in options["init_command"]


def test_site_url_defaults_to_the_served_host_and_port():
    from portal.settings.env import default_site_url

    assert default_site_url({}) == "http://127.0.0.1:8000"
    assert default_site_url({"PORT": "8101"}) == "http://127.0.0.1:8101"
    assert default_site_url({"HOST": "0.0.0.0", "PORT": "8101"}) == "http://127.0.0.1:8101"  # noqa: S104
    assert default_site_url({"HOST": "192.0.2.7", "PORT": "9000"}) == "http://192.0.2.7:9000"
    assert default_site_url({"HOST": "::1", "PORT": "9000"}) == "http://[::1]:9000"
    assert default_site_url({"SITE_URL": "https://taxi.example/", "PORT": "8101"}) == "https://taxi.example"


def test_make_run_passes_port_to_every_step(tmp_path):
    """`PORT=8101 make run` used to print QR codes to port 8000: the settings now see PORT."""
    import subprocess

    out = subprocess.run(["make", "-n", "run", "PORT=8101"], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[2], check=True).stdout
    assert "http://127.0.0.1:8101" in out
    env = {**os.environ, "PORT": "8101", "PORTAL_TESTING": "1"}
    env.pop("SITE_URL", None)
    printed = subprocess.run([sys.executable, "-c", "from django.conf import settings; import django;"
                              "import os; os.environ.setdefault('DJANGO_SETTINGS_MODULE','portal.settings');"
                              "django.setup(); print(settings.SITE_URL)"],
                             capture_output=True, text=True, env=env, check=True).stdout.strip()
    assert printed == "http://127.0.0.1:8101"


LOGS = """
import logging
import django
django.setup()
logging.getLogger("django.request").warning("Not Found: /verificar/XXXX-XXXX-XXXX/")  # what every 404 logs
logging.getLogger("portal").error("an error")
"""


def _logged(tmp_path, **env: str) -> str:
    import subprocess

    base = {k: v for k, v in os.environ.items() if k not in ("LOG_LEVEL", "DATABASE_URL", "REDIS_URL")}
    base.update({"DJANGO_SETTINGS_MODULE": "portal.settings", "VAR_DIR": str(tmp_path / "var"), "DEBUG": "0",
                 "SECRET_KEY": "logging-test-" + "x" * 50, "ALLOWED_HOSTS": "localhost", "PORTAL_TESTING": "0",
                 "DATABASE_URL": f"sqlite:///{tmp_path / 'never-opened.sqlite3'}", **env})  # as in production
    done = subprocess.run([sys.executable, "-c", LOGS], cwd=Path(__file__).resolve().parents[2], env=base,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_log_level_holds_for_django_s_own_loggers(tmp_path):
    """LOG_LEVEL=ERROR printed every 404's "Not Found" warning all the same: Django's loggers
    have their own level (INFO) and the root's is not checked for what they propagate."""
    quiet = _logged(tmp_path, LOG_LEVEL="ERROR")
    assert "an error" in quiet and "Not Found" not in quiet
    default = _logged(tmp_path)
    assert "an error" in default and "Not Found: /verificar/XXXX-XXXX-XXXX/" in default
