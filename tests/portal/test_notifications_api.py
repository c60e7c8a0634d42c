"""The inbox in the API: the caller's notices, unread first, paginated; marking one read."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from portal.models import Notification
from tests.conftest import make_persona


def _note(user, subject, *, minutes_ago=0, read=False):
    at = timezone.now() - timedelta(minutes=minutes_ago)
    return Notification.objects.create(recipient=user, subject=subject, body=f"Corpo de {subject}", link="/painel/",
                                       email_status="skipped", created_at=at, read_at=at if read else None)


@pytest.mark.django_db
def test_inbox_lists_only_the_callers_notices_unread_first(alegre, api):
    alice, bob = make_persona("requerente"), make_persona("outsider")
    _note(alice, "lida recente", minutes_ago=1, read=True)
    _note(alice, "não lida antiga", minutes_ago=60)
    _note(alice, "não lida nova", minutes_ago=5)
    _note(bob, "de outra pessoa")
    body = api(alice).get("/api/v1/notifications/").json()
    assert body["count"] == 3
    assert [n["subject"] for n in body["results"]] == ["não lida nova", "não lida antiga", "lida recente"]
    assert [n["read"] for n in body["results"]] == [False, False, True]
    assert set(body["results"][0]) == {"id", "subject", "body", "link", "created_at", "read_at", "read"}


@pytest.mark.django_db
def test_inbox_is_paginated_like_the_other_lists(alegre, api, settings):
    alice = make_persona("requerente")
    for i in range(55):
        _note(alice, f"aviso {i}", minutes_ago=i)
    first = api(alice).get("/api/v1/notifications/").json()
    assert first["count"] == 55 and len(first["results"]) == 50 and first["next"]
    assert len(api(alice).get("/api/v1/notifications/?page=2").json()["results"]) == 5
    past = api(alice).get("/api/v1/notifications/?page=9")
    assert past.status_code == 404 and past.json()["detail"] == "Não encontrado."


@pytest.mark.django_db
def test_marking_read_is_for_the_recipient_only_and_keeps_the_first_reading(alegre, api):
    alice, bob = make_persona("requerente"), make_persona("outsider")
    note = _note(alice, "aviso")
    other = api(bob).post(f"/api/v1/notifications/{note.pk}/read/")
    assert other.status_code == 404 and other.json()["detail"] == "Não encontrado."
    note.refresh_from_db()
    assert note.read_at is None
    first = api(alice).post(f"/api/v1/notifications/{note.pk}/read/")
    assert first.status_code == 200 and first.json()["read"] is True
    again = api(alice).post(f"/api/v1/notifications/{note.pk}/read/").json()
    assert again["read_at"] == first.json()["read_at"]
    assert api(alice).post("/api/v1/notifications/999999/read/").status_code == 404
    assert api(None).get("/api/v1/notifications/").status_code == 401
