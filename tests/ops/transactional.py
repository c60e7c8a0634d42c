"""Helpers for tests that commit (``transaction=True`` / ``live_server``).

Such tests end with a flush of every table, which also removes the role groups created by
migration 0002. ``restore_roles`` (requested before the database fixtures) puts them back
after the flush, so that the tests running after it still find them.
"""

from __future__ import annotations

import importlib

import pytest


def ensure_roles() -> None:
    from django.contrib.auth.models import Group, Permission

    roles = importlib.import_module("portal.migrations.0002_roles")
    for role in roles.ROLES:
        group, _ = Group.objects.get_or_create(name=role)
        for app_label, codename in roles.PERMS.get(role, []):
            perm = Permission.objects.filter(content_type__app_label=app_label, codename=codename).first()
            if perm:
                group.permissions.add(perm)


@pytest.fixture
def restore_roles(django_db_blocker):
    yield
    with django_db_blocker.unblock():
        ensure_roles()
