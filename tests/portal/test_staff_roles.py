"""Staff roles per municipality (issue 17): one account across the installation, staff roles
granted in one municipality, audited grants and revocations, groups migrated to assignments."""

from __future__ import annotations

import importlib

import pytest
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError

from portal import regulation
from portal.models import AuditEntry, Municipality, StaffAssignment
from portal.roles import Role, forget_roles, has_role, is_staff_member, staff_users, user_roles
from portal.staff import grant_role, revoke_role
from tests.conftest import make_user

pytestmark = pytest.mark.django_db


def _switch(slug: str):
    """Put ``slug``'s municipality in scope."""
    regulation.load_pack(slug)
    return Municipality.objects.get(slug=slug)


def test_a_clerk_of_one_municipality_holds_no_role_in_another(load_pack):
    itagiba = _switch("itagiba")
    alegre = _switch("alegre")
    person = make_user("servidora", None)
    grant_role(actor=None, user=person, municipality=alegre, role=Role.CLERK, reason="Portaria 1/2026")
    assert has_role(person, Role.CLERK) and is_staff_member(person)
    assert list(staff_users(Role.CLERK)) == [person]
    _switch("itagiba")
    forget_roles(person)
    assert user_roles(person) == set()
    assert not staff_users(Role.CLERK).exists()
    assert list(staff_users(Role.CLERK, alegre.pk)) == [person]
    assert is_staff_member(person)  # the second factor follows the account, wherever it signs in
    grant_role(actor=None, user=person, municipality=itagiba, role=Role.JUDGE)
    assert user_roles(person) == {"julgador"}


def test_the_applicant_and_consortium_roles_are_the_same_everywhere(load_pack):
    person = make_user("motorista", Role.APPLICANT)
    person.groups.add(Group.objects.get_or_create(name=Role.CONSORTIUM)[0])
    for slug in ("alegre", "arapora"):
        _switch(slug)
        forget_roles(person)
        assert user_roles(person) == {"requerente", "consorcio"}


def test_an_old_staff_group_gives_no_role_any_more(alegre):
    person = make_user("antiga", None)
    person.groups.add(Group.objects.get_or_create(name="atendente")[0])
    assert not has_role(person, Role.CLERK)


def test_grants_and_revocations_are_audited_and_kept(alegre, admin_user):
    municipality = Municipality.objects.get(slug="alegre")
    person = make_user("agente7", None)
    first = grant_role(actor=admin_user, user=person, municipality=municipality, role=Role.AGENT, reason="Portaria 7")
    again = grant_role(actor=admin_user, user=person, municipality=municipality, role=Role.AGENT)
    assert again.pk == first.pk
    assert AuditEntry.objects.filter(action="role_granted", object_id=str(person.pk), to_state="agente").count() == 1
    with pytest.raises(ValidationError) as refused:
        revoke_role(actor=admin_user, assignment=first, reason="  ")
    assert "motivo" in str(refused.value)
    revoke_role(actor=admin_user, assignment=first, reason="Fim da designação")
    assert not has_role(person, Role.AGENT)
    entry = AuditEntry.objects.get(action="role_revoked", object_id=str(person.pk))
    assert entry.data["municipality"] == "alegre" and entry.actor_id == admin_user.pk
    assert StaffAssignment.objects.filter(pk=first.pk, revoked_at__isnull=False).exists()
    regranted = grant_role(actor=admin_user, user=person, municipality=municipality, role=Role.AGENT)
    assert regranted.pk != first.pk and has_role(person, Role.AGENT)


def test_only_staff_roles_are_granted_per_municipality(alegre):
    person = make_user("x", None)
    with pytest.raises(ValidationError) as refused:
        grant_role(actor=None, user=person, municipality=Municipality.objects.get(), role="requerente")
    assert "perfil de servidor" in str(refused.value)


def test_the_migration_turns_staff_groups_into_assignments_of_the_municipality_in_service(alegre):
    from django.apps import apps

    migration = importlib.import_module("portal.migrations.0009_staff_assignments")
    person = make_user("legado", None)
    person.groups.add(Group.objects.get_or_create(name="julgador")[0])
    person.groups.add(Group.objects.get_or_create(name="requerente")[0])
    migration.groups_to_assignments(apps, None)
    assignment = StaffAssignment.objects.get(user=person)
    assert (assignment.role, assignment.municipality.slug) == ("julgador", "alegre")
    assert set(person.groups.values_list("name", flat=True)) == {"requerente"}
    forget_roles(person)
    assert user_roles(person) == {"julgador", "requerente"}
    assert AuditEntry.objects.filter(action="role_granted", object_id=str(person.pk),
                                     data__migrated_from_group=True).exists()
    migration.groups_to_assignments(apps, None)  # again: nothing new
    assert StaffAssignment.objects.filter(user=person).count() == 1


def test_the_admin_of_a_municipality_manages_only_its_staff_in_the_django_admin(web, load_pack, admin_user):
    _switch("itagiba")
    alegre = _switch("alegre")
    itagiba = Municipality.objects.get(slug="itagiba")
    StaffAssignment.objects.filter(user=admin_user, municipality=itagiba).delete()
    other = make_user("outra", None)
    theirs = grant_role(actor=None, user=other, municipality=itagiba, role=Role.CLERK)
    page = web(admin_user).get("/admin/portal/staffassignment/")
    assert page.status_code == 200
    assert f"/admin/portal/staffassignment/{theirs.pk}/change/" not in page.content.decode()
    response = web(admin_user).post("/admin/portal/staffassignment/add/", {
        "user": other.pk, "municipality": itagiba.pk, "role": "atendente", "reason": "x"})
    assert response.status_code == 200 and not StaffAssignment.objects.filter(
        user=other, municipality=alegre).exists()


def test_the_staff_page_grants_and_revokes_in_this_municipality_only(web, load_pack, admin_user):
    itagiba = _switch("itagiba")
    alegre = _switch("alegre")
    person = make_user("novo", None, cpf="39053344705")
    theirs = grant_role(actor=None, user=make_user("dela", None), municipality=itagiba, role=Role.CLERK)
    client = web(admin_user)
    refused = client.post("/equipe/", {"person": "ninguem", "role": "atendente", "reason": ""})
    body = refused.content.decode()
    assert refused.status_code == 400
    assert "Pessoa: Nenhuma conta ativa" in body and "Motivo (ato de designação): Informe o motivo" in body
    assert client.post("/equipe/", {"person": "390.533.447-05", "role": "agente",
                                    "reason": "Portaria 3/2026"}).status_code == 302
    assignment = StaffAssignment.objects.get(user=person)
    assert assignment.municipality_id == alegre.pk and assignment.granted_by_id == admin_user.pk
    page = client.get("/equipe/").content.decode()
    assert "Novo" in page and "dela" not in page
    assert client.post(f"/equipe/{theirs.pk}/retirar/", {"reason": "x"}).status_code == 404  # another municipality's
    assert client.post(f"/equipe/{assignment.pk}/retirar/", {"reason": ""}).status_code == 302
    assignment.refresh_from_db()
    assert assignment.revoked_at is None  # no reason, no revocation
    client.post(f"/equipe/{assignment.pk}/retirar/", {"reason": "Remanejado"})
    assignment.refresh_from_db()
    assert assignment.revoked_reason == "Remanejado" and assignment.revoked_by_id == admin_user.pk


def test_the_admin_of_a_municipality_cannot_hand_out_installation_wide_powers(web, alegre, admin_user):
    person = make_user("quer-subir", None)
    response = web(admin_user).post(f"/admin/portal/user/{person.pk}/change/", {
        "username": "quer-subir", "email": person.email, "name": "X", "is_active": "on", "is_superuser": "on",
        "groups": [Group.objects.get_or_create(name="consorcio")[0].pk],
        "date_joined_0": "01/01/2026", "date_joined_1": "10:00:00",
    })
    assert response.status_code == 302
    person.refresh_from_db()
    assert not person.is_superuser and not person.groups.exists()


# --- the designated appeal authority: a profile per municipality too ------------------------------
def test_the_staff_page_grants_the_appeal_authority_profile_here_only(web, load_pack, admin_user):
    itagiba = _switch("itagiba")
    alegre = _switch("alegre")
    person = make_user("prefeito", None, name="Prefeito Municipal")
    client = web(admin_user)
    form = client.get("/equipe/").content.decode()
    assert 'value="autoridade_recursal"' in form and "Autoridade recursal" in form
    assert client.post("/equipe/", {"person": "prefeito", "role": "autoridade_recursal",
                                    "reason": "Decreto nº 10/2026"}).status_code == 302
    assignment = StaffAssignment.objects.get(user=person)
    assert (assignment.role, assignment.municipality_id) == ("autoridade_recursal", alegre.pk)
    entry = AuditEntry.objects.get(action="role_granted", object_id=str(person.pk))
    assert entry.data == {"role": "autoridade_recursal", "municipality": "alegre", "assignment": assignment.pk}
    assert entry.reason == "Decreto nº 10/2026" and entry.actor_id == admin_user.pk
    assert "Autoridade recursal" in client.get("/equipe/").content.decode()
    forget_roles(person)
    assert user_roles(person) == {"autoridade_recursal"} and is_staff_member(person)
    assert list(staff_users(Role.APPEAL_AUTHORITY)) == [person]
    assert not has_role(person, Role.JUDGE, Role.CLERK, Role.AGENT, Role.ADMIN)  # the appeals only
    _switch("itagiba")
    forget_roles(person)
    assert user_roles(person) == set() and not staff_users(Role.APPEAL_AUTHORITY, itagiba.pk).exists()


def test_the_django_admin_offers_the_appeal_authority_profile(web, alegre, admin_user):
    page = web(admin_user).get("/admin/portal/staffassignment/add/").content.decode()
    assert 'value="autoridade_recursal"' in page


def test_the_migration_turns_the_group_key_into_the_profile_of_that_municipality_only(load_pack):
    """A recorded ``appeal.authority_group`` becomes ``appeal.designated_authority`` with the same
    act; of the group's members, the julgadores of that municipality receive the profile there,
    and nobody receives it in a municipality that had not designated the group."""
    from datetime import date

    from django.apps import apps

    from portal.models import RegulationParameter

    migration = importlib.import_module("portal.migrations.0010_staffassignment_appeal_authority_role")
    itagiba = _switch("itagiba")
    alegre = _switch("alegre")
    basis = "Decreto nº 4/2025 (designa a autoridade recursal)"
    RegulationParameter.objects.create(municipality=alegre, key="appeal.authority_group", value="autoridade_recursal",
                                       legal_basis=basis, effective_from=date(2025, 3, 1), source="admin")
    group = Group.objects.get_or_create(name="autoridade_recursal")[0]
    judge = make_user("julgadora", None)
    member = make_user("so-do-grupo", None)
    for person in (judge, member):
        person.groups.add(group)
    for municipality in (alegre, itagiba):
        grant_role(actor=None, user=judge, municipality=municipality, role=Role.JUDGE)
    migration.group_key_to_profile(apps, None)
    row = RegulationParameter.objects.get(municipality=alegre, key="appeal.designated_authority")
    assert (row.value, row.legal_basis, row.effective_from, row.source) == (True, basis, date(2025, 3, 1), "admin")
    assert not RegulationParameter.objects.filter(key="appeal.authority_group").exists()
    assert not RegulationParameter.objects.filter(municipality=itagiba, key="appeal.designated_authority").exists()
    profiles = StaffAssignment.objects.filter(role="autoridade_recursal")
    assert [(p.user_id, p.municipality_id) for p in profiles] == [(judge.pk, alegre.pk)]
    entry = AuditEntry.objects.get(action="role_granted", object_id=str(judge.pk), to_state="autoridade_recursal",
                                   data__migrated_from_group="autoridade_recursal")
    assert entry.municipality_id == alegre.pk and entry.data["assignment"] == profiles.get().pk
    assert basis in entry.reason
    migration.group_key_to_profile(apps, None)  # again: nothing new
    assert profiles.count() == 1


def test_the_demo_has_an_appeal_authority_only_where_the_regulation_designates_one(alegre):
    from datetime import date
    from io import StringIO

    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from portal.models import RegulationParameter

    call_command("seed_demo", stdout=StringIO())
    assert not get_user_model().objects.filter(username="autoridade").exists()
    RegulationParameter.objects.create(municipality=Municipality.objects.get(slug="alegre"),
                                       key="appeal.designated_authority", value=True,
                                       legal_basis="Lei 3.703/2022 (Alegre/ES), art. 18, §6",
                                       effective_from=date(2020, 1, 1), source="admin")
    regulation.invalidate()
    call_command("seed_demo", stdout=StringIO())
    person = get_user_model().objects.get(username="autoridade")
    assert list(StaffAssignment.objects.filter(user=person).values_list("role", flat=True)) == ["autoridade_recursal"]
