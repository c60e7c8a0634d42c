"""The deployment files stay in step with the settings: every variable documented, the
compose file well formed with one beat, the image non-root with WeasyPrint's libraries."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def settings_variables() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "portal" / "settings").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        found |= set(re.findall(r"(?:env_bool|env_int|env_list|os\.environ\.get)\(\s*\"([A-Z][A-Z0-9_]+)\"", text))
    return found


def test_settings_read_the_variables_we_expect():
    assert {"DATABASE_URL", "REDIS_URL", "SECRET_KEY", "TIME_ZONE", "MEDIA_ROOT"} <= settings_variables()


@pytest.mark.parametrize("document", [".env.example", "README.md"])
def test_every_setting_variable_is_documented(document):
    text = (ROOT / document).read_text(encoding="utf-8")
    missing = sorted(v for v in settings_variables() | {"RENEWAL_REMINDER_DAYS"} if not re.search(rf"\b{v}\b", text))
    assert not missing, f"{document} não documenta: {missing}"


def test_compose_file_has_the_services_and_one_beat():
    yaml = pytest.importorskip("yaml", reason="PyYAML ausente: validação do docker-compose.yml pulada")
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
    services = compose["services"]
    assert set(services) == {"postgres", "redis", "web", "worker", "beat"}
    for name, service in services.items():
        assert "healthcheck" in service, name
    assert services["beat"]["deploy"]["replicas"] == 1
    assert "beat" in services["beat"]["command"] and "worker" in services["worker"]["command"]
    web = " ".join(services["web"]["command"])
    assert "migrate" in web and "gunicorn" in web and "load_regulation" in web
    assert {"pgdata", "media"} <= set(compose["volumes"])
    assert "media:/data/media" in services["web"]["volumes"]
    assert services["worker"]["environment"]["REDIS_URL"].startswith("redis://redis:")
    # the processes connect as the application's role (row-level security applies to it);
    # migrations as the owner
    app_url, admin_url = (services["worker"]["environment"][k] for k in ("DATABASE_URL", "DATABASE_ADMIN_URL"))
    assert app_url.split("//")[1].split(":")[0] != admin_url.split("//")[1].split(":")[0]
    assert 'DATABASE_URL="$$DATABASE_ADMIN_URL" DATABASE_APP_ROLE=portal_app' in web  # the owner migrates
    assert app_url.startswith("postgres://portal_app:")


def test_dockerfile_is_slim_non_root_and_ready_for_pdfs():
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert text.startswith("# ") and "FROM python:3.11-slim" in text
    for package in ("libpango-1.0-0", "libpangoft2-1.0-0", "libharfbuzz0b", "libharfbuzz-subset0", "fonts-dejavu-core"):
        assert package in text
    assert "pip install ." in text and "collectstatic" in text and "gunicorn" in text
    assert re.search(r"^USER portal$", text, re.MULTILINE)
