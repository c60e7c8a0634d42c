"""The outside of the code pinned while its inside is re-cut.

The append-only audit stores ``licensing.<model>`` labels and action names, queued Celery
messages and beat entries carry task names, and stored notification links hold URL paths:
moving a module must change none of them. ``UPDATE_STRUCTURE_SNAPSHOT=1 pytest
tests/test_structure_snapshot.py`` rewrites the snapshot — do that only for a deliberate,
reviewed change (a new model, task, URL or audit action), never to make a move pass.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from django.apps import apps
from django.urls import URLPattern, URLResolver, get_resolver

SNAPSHOT = Path(__file__).parent / "snapshots" / "structure.json"
ROOT = Path(__file__).resolve().parent.parent
DOMAIN_APPS = ("portal", "licensing", "fleet", "enforcement", "tariffs")


def model_tables() -> dict[str, str]:
    return {
        m._meta.label: m._meta.db_table
        for m in apps.get_models(include_auto_created=True)
        if m._meta.app_label in DOMAIN_APPS
    }


def celery_tasks() -> list[str]:
    from portal.celery import app

    app.loader.import_default_modules()
    return sorted(n for n in app.tasks if not n.startswith("celery."))


def beat_entries() -> dict[str, str]:
    from django.conf import settings

    return {k: v["task"] for k, v in settings.CELERY_BEAT_SCHEDULE.items()}


def url_paths() -> dict[str, str]:
    out: dict[str, str] = {}

    def walk(patterns, prefix: str, ns: str) -> None:
        for p in patterns:
            if isinstance(p, URLResolver):
                sub_ns = f"{ns}{p.namespace}:" if p.namespace else ns
                walk(p.url_patterns, prefix + str(p.pattern), sub_ns)
            elif isinstance(p, URLPattern) and p.name:
                out.setdefault(ns + p.name, prefix + str(p.pattern))

    walk(get_resolver().url_patterns, "/", "")
    return dict(sorted(out.items()))


def audit_actions() -> list[str]:
    """Every action the code may write to the audit: the members of ``AuditAction`` (when
    running the tests, ``audit_log`` refuses an action that is not one)."""
    from portal.audit_actions import AuditAction

    return sorted(a.value for a in AuditAction)


def current() -> dict:
    return {
        "models": dict(sorted(model_tables().items())),
        "celery_tasks": celery_tasks(),
        "beat": dict(sorted(beat_entries().items())),
        "urls": url_paths(),
        "audit_actions": audit_actions(),
    }


@pytest.fixture(scope="module")
def snapshot() -> dict:
    now = current()
    if os.environ.get("UPDATE_STRUCTURE_SNAPSHOT"):
        SNAPSHOT.write_text(json.dumps(now, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    return json.loads(SNAPSHOT.read_text())


@pytest.mark.parametrize("part", ["models", "celery_tasks", "beat", "urls", "audit_actions"])
def test_structure_unchanged(snapshot, part):
    now = current()[part]
    pinned = snapshot[part]
    if isinstance(pinned, dict):
        missing = {k: v for k, v in pinned.items() if now.get(k) != v}
        extra = {k: v for k, v in now.items() if k not in pinned}
        assert not missing and not extra, f"{part}: changed/missing {missing}; new {extra}"
    else:
        assert sorted(now) == sorted(pinned), (
            f"{part}: missing {sorted(set(pinned) - set(now))}; new {sorted(set(now) - set(pinned))}"
        )


def written_actions() -> set[str]:
    """Action names written as literals: ``action=`` arguments of ``audit_log`` calls and of
    the transition helpers, their defaults, and the ``infraction_<status>`` family written by
    the auto's one transition function."""
    import ast

    from enforcement.models import InfractionStatus

    found: set[str] = {f"infraction_{s}" for s in InfractionStatus.values}
    for app in DOMAIN_APPS:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                if isinstance(node, ast.Call):
                    fname = getattr(node.func, "id", getattr(node.func, "attr", ""))
                    if fname == "audit_log" or "transition" in fname:
                        for kw in node.keywords:
                            if kw.arg == "action" and isinstance(kw.value, ast.Constant):
                                found.add(kw.value.value)
                elif isinstance(node, ast.FunctionDef):
                    args = node.args.args + node.args.kwonlyargs
                    defaults = node.args.defaults + node.args.kw_defaults
                    for arg, default in zip(reversed(args), reversed(defaults), strict=False):
                        if arg.arg == "action" and isinstance(default, ast.Constant):
                            found.add(default.value)
    return found


def test_every_written_action_is_declared():
    from portal.audit_actions import AuditAction

    assert written_actions() <= set(AuditAction.values), sorted(written_actions() - set(AuditAction.values))


def test_audit_log_refuses_an_undeclared_action_in_tests(db):
    from django.contrib.auth import get_user_model

    from portal.audit import audit_log
    from portal.audit_actions import AuditAction

    obj = get_user_model().objects.create(username="audit-probe")
    with pytest.raises(ValueError, match="fare_sett"):
        audit_log(actor=None, obj=obj, action="fare_sett")
    entry = audit_log(actor=None, obj=obj, action=AuditAction.FARE_SET)
    assert entry.action == "fare_set" and type(entry.action) is str
