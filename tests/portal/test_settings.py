from pathlib import Path

from portal.settings.env import env_bool, parse_database_url


def test_sqlite_default_under_var(tmp_path):
    config = parse_database_url(None, tmp_path)
    assert config["ENGINE"] == "django.db.backends.sqlite3"
    assert Path(config["NAME"]) == tmp_path / "portal.sqlite3"


def test_postgres_url_is_parsed(tmp_path):
    config = parse_database_url("postgres://postgres:segredo@127.0.0.1:5432/portal", tmp_path)
    assert config["ENGINE"] == "django.db.backends.postgresql"
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
