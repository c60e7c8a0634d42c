"""Isolation sweep (issue 17): every URL of the permission matrices that names a record, asked
from another municipality's host by every persona of that municipality.

The world of the matrices (tests/<app>/matrix.py ``build``) is built in municipality A
(Alegre), with A's personas. Then B (Itagibá) is loaded and gets personas of its own: other
people, and staff whose roles are granted in B only. For each row whose URL carries a record
of A (``kwargs``), each persona of B asks B's host for it:

- the answer never shows the record: 404, or the refusal that the persona gets before any
  record is looked up (login for the anonymous, 403 for a role that has no access to that
  page at all — the same answer as for a record that does not exist);
- a POST (an action) changes nothing of A: no audit entry is written in A.

Documents verified by code (the QR of a Portaria, an alvará, an auto) are checked the same
way: A's codes are "not found" on B's verification page and API.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.matrix import LOGIN, PERSONAS
from tests.test_permission_matrix import ROWS, _modules

B_HOST = "itagiba.localhost"
# URLs whose arguments name no record of a municipality: an account is one across the
# installation (a password reset link works on any municipality's host)
INSTALLATION_WIDE = {"password_reset_confirm"}
# URLs whose argument is a name every municipality has, not a record: B answers with its own
# (the law page by its key, "taxi"; the status of a plate, which says whether the plate holds a
# grant *here*). Checked below: B's answer carries nothing of A.
SAME_NAME_IN_B = {"law", "api-vehicle-status"}
RECORD_ROWS = [row for row in ROWS
               if row.kwargs is not None and row.name not in INSTALLATION_WIDE | SAME_NAME_IN_B]

B_PERSONAS = {
    "requerente": ("86288366757", "requerente", {"cpf": "86288366757", "name": "Bia de Itagibá"}),
    "outsider": ("71428793860", "requerente", {"cpf": "71428793860", "name": "Caio de Itagibá"}),
    "atendente": ("atendente-b", "atendente", {"name": "Atendente de Itagibá"}),
    "agente": ("agente-b", "agente", {"name": "Agente de Itagibá", "registration_number": "AG-B"}),
    "julgador": ("julgador-b", "julgador", {"name": "Julgador de Itagibá"}),
    "admin": ("admin-b", "admin", {"name": "Admin de Itagibá", "is_staff": True}),
}


def _b_personas(municipality):
    """People of B: accounts of their own; staff roles granted in B only (not fixture staff)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from portal.roles import STAFF_ROLES
    from portal.staff import grant_role

    out = {"anonymous": None}
    for persona, (username, role, fields) in B_PERSONAS.items():
        user = get_user_model().objects.create_user(username=username, password="senha-forte-123",
                                                    email=f"{username}@example.org", **fields)
        if role in STAFF_ROLES:
            grant_role(actor=None, user=user, municipality=municipality, role=role, reason="Isolamento")
        else:
            user.groups.add(Group.objects.get_or_create(name=role)[0])
        out[persona] = user
    return out


@pytest.fixture(scope="module")
def two_municipalities(django_db_setup, django_db_blocker, tmp_path_factory):
    """A's matrix world and B's personas, built once per module and rolled back at the end."""
    from django.db import transaction
    from django.test.utils import override_settings

    from portal import regulation, tenancy
    from portal.models import Municipality
    from tests.test_permission_matrix import _build_personas

    media = tmp_path_factory.mktemp("isolation-media")
    with django_db_blocker.unblock(), override_settings(
        MEDIA_ROOT=str(media), EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend",
        TENANT_BASE_DOMAIN="localhost", DEFAULT_MUNICIPALITY="",
    ):
        atomic = transaction.atomic()
        atomic.__enter__()
        try:
            regulation.load_pack("alegre")
            a = Municipality.objects.get(slug="alegre")
            with tenancy.activate(a):
                personas_a = _build_personas()
                world = {"pack": regulation.current()}
                for mod in _modules():
                    builder = getattr(mod, "build", None)
                    if builder:
                        builder(world, personas_a)
            regulation.load_pack("itagiba")
            b = Municipality.objects.get(slug="itagiba")
            with tenancy.activate(b):
                personas_b = _b_personas(b)
            yield {"world": world, "a": a, "b": b, "personas": personas_b, "media": str(media)}
        finally:
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)
            regulation.invalidate()


@pytest.fixture
def sweep(two_municipalities, db, settings):
    settings.MEDIA_ROOT = two_municipalities["media"]
    settings.TENANT_BASE_DOMAIN = "localhost"
    settings.DEFAULT_MUNICIPALITY = ""
    for user in two_municipalities["personas"].values():
        if user is not None and hasattr(user, "_portal_roles"):
            del user._portal_roles
    return two_municipalities


def _audit_of(municipality) -> int:
    from portal.models import AuditEntry

    return AuditEntry.all_tenants.filter(municipality=municipality).count()


def _ask(row, persona, sweep, api, web):
    from portal import tenancy

    user = sweep["personas"][persona]
    with tenancy.activate(sweep["a"]):  # the row's arguments are A's records (and A's pack)
        url = reverse(row.name, kwargs=row.kwargs(sweep["world"])) + row.query
        data = row.data(sweep["world"]) if row.data else None
    if row.api:
        client = api(user)
        call = getattr(client, row.method)
        if data is not None:
            return call(url, data=data, format="json", HTTP_HOST=B_HOST)
        return call(url, HTTP_HOST=B_HOST)
    return getattr(web(user), row.method)(url, data=data or {}, HTTP_HOST=B_HOST)


def _refusal_without_lookup(row, persona, response) -> bool:
    """The answer a persona gets before any record is read: login, or 403 of a page its role
    never opens (the matrix expects 403 for that persona on A's own host too)."""
    if response.status_code == 302 and "/conta/entrar/" in response.get("Location", ""):
        return row.expected(persona) == LOGIN or persona == "anonymous"
    if response.status_code == 401:
        return persona == "anonymous"
    if response.status_code == 403:
        return row.expected(persona) in (403, LOGIN) or persona == "anonymous"
    return False


@pytest.mark.parametrize("row", RECORD_ROWS, ids=[f"{r.name}-{r.method}" for r in RECORD_ROWS])
def test_a_record_of_a_is_invisible_from_b_to_every_persona_of_b(row, sweep, api, web):
    from django.db import transaction

    problems = []
    for persona in PERSONAS:
        with transaction.atomic():
            before = _audit_of(sweep["a"])
            response = _ask(row, persona, sweep, api, web)
            after = _audit_of(sweep["a"])
            transaction.set_rollback(True)
        if response.status_code != 404 and not _refusal_without_lookup(row, persona, response):
            problems.append(f"{persona}: {response.status_code}")
        if after != before:
            problems.append(f"{persona}: {after - before} registro(s) de auditoria em A")
    assert not problems, f"{row.name} {row.method} no host de B: " + "; ".join(problems)


def test_the_verification_codes_of_a_are_not_found_on_b(sweep, api, web):
    from licensing.grants.models import Alvara, Authorization

    a = sweep["a"]
    codes = list(Authorization.all_tenants.filter(municipality=a).values_list("verification_code", flat=True))
    codes += list(Alvara.all_tenants.filter(municipality=a).values_list("verification_code", flat=True))
    assert codes, "o mundo da matriz deveria ter outorgas em A"
    for code in codes:
        assert api(None).get(f"/api/v1/verify/{code}/", HTTP_HOST=B_HOST).status_code == 404, code
        page = web(None).get(reverse("public-verify-code", kwargs={"code": code}), HTTP_HOST=B_HOST)
        assert page.status_code == 404, code
        assert api(None).get(f"/api/v1/verify/{code}/", HTTP_HOST="alegre.localhost").status_code == 200, code


def test_the_open_data_of_b_has_no_grant_of_a(sweep, api):
    """B has no grant: its open data (JSON and CSV) is empty while A's has rows."""
    assert api(None).get("/api/v1/authorizations/", HTTP_HOST="alegre.localhost").json()["count"] > 0
    assert api(None).get("/api/v1/authorizations/", HTTP_HOST=B_HOST).json()["count"] == 0
    body = api(None).get("/api/v1/authorizations/?format=csv", HTTP_HOST=B_HOST)
    text = b"".join(body.streaming_content).decode("utf-8-sig") if body.streaming else body.content.decode()
    assert text.strip().splitlines()[1:] == []


def test_what_b_answers_for_a_name_every_municipality_has_is_b_s_own(sweep, api, web):
    from licensing.grants.models import Authorization

    auth = Authorization.all_tenants.filter(municipality=sweep["a"], vehicle__isnull=False).select_related(
        "vehicle").first()
    agent = sweep["personas"]["agente"]
    status = api(agent).get(f"/api/v1/vehicles/{auth.vehicle.plate}/status/", HTTP_HOST=B_HOST)
    assert status.status_code == 200
    assert auth.number not in status.content.decode() and auth.holder.name not in status.content.decode()
    assert status.json().get("authorization") in (None, {}), status.json()
    law = web(None).get(reverse("law", kwargs={"key": sweep["world"]["pack"].laws[0]["key"]}), HTTP_HOST=B_HOST)
    body = law.content.decode()
    assert law.status_code == 200 and "Itagibá" in body and "3.703" not in body
