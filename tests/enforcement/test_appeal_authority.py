"""The appeal authority a municipality designates (``appeal.designated_authority``): a profile
granted per municipality ("Autoridade recursal"), not an installation-wide group (issue 17).

Where designated, only the holders of the profile in that municipality decide its appeals — the
Prefeito (Lei 3.703/2022 art. 18, §6; Lei 724/2008 art. 25, §2) or a secretary who is not a
julgador reaches the appeals through the pages and the API, and nothing else of the julgador's
work; elsewhere any julgador other than the earlier instance's decides, as before."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from enforcement import rules, services
from enforcement.models import Infraction
from portal import regulation, tenancy
from portal.models import AuditEntry, Municipality, RegulationParameter, StaffAssignment
from portal.roles import Role
from portal.staff import grant_role, revoke_role
from tests.conftest import make_user
from tests.enforcement.helpers import other_judge, regulate_all
from tests.factories import UserFactory, VehicleFactory, issue_authorization

pytestmark = pytest.mark.django_db

CODE = {"alegre": "19-I", "itagiba": "4-P1", "arapora": "23-I"}
DESIGNATION = "Decreto nº 10/2026 (designa a autoridade recursal)"


def _designate(pack, key="appeal.designated_authority", basis=DESIGNATION):
    RegulationParameter.objects.create(municipality=Municipality.objects.get(pk=pack.municipality_id), key=key,
                                       value=True, legal_basis=basis, effective_from=date(2020, 1, 1), source="admin")
    regulation.invalidate()


def _grant(holder):
    pack = regulation.current()
    auth, _ = issue_authorization(holder=holder, vehicle=VehicleFactory(owner=holder), modality="taxi",
                                  valid_from=pack.today() - timedelta(days=200))
    return auth


def _auto(agent, clerk, holder, grant):
    pack = regulation.current()
    inf, _ = services.infraction_issue(actor=agent, plate=grant.vehicle.plate, infraction_code=CODE[pack.slug],
                                       occurred_at=timezone.now(), location="Praça", description="Constatado.")
    services.infraction_notify(actor=clerk, infraction=inf, acknowledged_on=pack.today())
    services.defense_file(actor=holder, infraction=inf, text="Defesa.")
    return inf


def _appealed(agent, clerk, judge, holder, grant):
    """An auto upheld by ``judge`` and appealed by its holder (before the notice: in time)."""
    inf = _auto(agent, clerk, holder, grant)
    services.infraction_judge(actor=judge, infraction=inf, upheld=True, grounds="Comprovado.")
    services.appeal_file(actor=holder, infraction=inf, text="Recorro.")
    return Infraction.objects.get(pk=inf.pk)


def _authority(username="prefeito", pack=None):
    """A person holding only the appeal authority's profile, in the municipality of ``pack``."""
    pack = pack or regulation.current()
    person = make_user(username, None, name="Prefeito Municipal")
    grant_role(actor=None, user=person, municipality=Municipality.objects.get(pk=pack.municipality_id),
               role=Role.APPEAL_AUTHORITY, reason=DESIGNATION)
    return person


def _decide(api, user, inf, expect):
    r = api(user).post(f"/api/v1/infractions/{inf.pk}/appeal/judge/", {"granted": False, "grounds": "Mantida."},
                       format="json")
    assert r.status_code == expect, r.content
    return r


# --- the rule, at its boundaries ---------------------------------------------------------------
@pytest.mark.parametrize("designated,holds_authority,is_judge,refused", [
    (True, True, False, False),   # the Prefeito, not a julgador
    (True, True, True, False),    # a julgador who holds the profile too
    (True, False, True, True),    # a julgador without the profile
    (True, False, False, True),
    (False, False, True, False),  # no designation: any julgador
    (False, True, False, True),   # the profile means nothing where nothing is designated
])
def test_who_decides_an_appeal(designated, holds_authority, is_judge, refused):
    violation = rules.appeal_decider_violation(designated=designated, holds_authority=holds_authority,
                                               is_judge=is_judge, legal_basis="Lei 3.703/2022 (Alegre/ES), art. 18, §6")
    assert (violation is not None) == refused
    if refused:
        assert violation.code == "not_appeal_authority" and violation.conflict
        assert "art. 18, §6" in violation.message and violation.legal_basis.endswith("§6")
        assert ("Autoridade recursal" in violation.message) == designated


def test_the_first_appeal_and_the_further_one_have_each_their_key():
    assert rules.appeal_authority_key(1) == "appeal.designated_authority"
    assert rules.appeal_authority_key(2) == rules.appeal_authority_key(3) == "appeal.second_instance_designated_authority"


# --- designated: only the profile of this municipality decides ------------------------------------
def test_where_designated_a_julgador_without_the_profile_is_refused_and_the_authority_decides(
        api, alegre, agent, clerk, judge, applicant):
    regulate_all()
    _designate(alegre)
    inf = _appealed(agent, clerk, judge, applicant, _grant(applicant))
    detail = api(judge).get(f"/api/v1/infractions/{inf.pk}/").json()
    action = next(a for a in detail["allowed_actions"] if a["code"] == "appeal_judge")
    assert action["by"] == "autoridade_recursal" and DESIGNATION in action["legal_basis"]
    assert "Autoridade recursal" in action["label"]
    r = _decide(api, other_judge(), inf, 409)
    assert r.json()["rule"] == {"code": "not_appeal_authority", "legal_basis": DESIGNATION}
    assert "Autoridade recursal" in str(r.json()["errors"]) and DESIGNATION in str(r.json()["errors"])
    mayor = _authority()
    body = _decide(api, mayor, inf, 200).json()
    assert body["granted"] is False and body["decision"]
    entry = AuditEntry.objects.get(object_type="enforcement.infraction", object_id=str(inf.pk), action="appeal_judged")
    assert entry.actor == mayor


def test_two_instances_two_people_even_for_the_authority(api, alegre, agent, clerk, judge, applicant):
    """The first-instance julgador who also holds the profile still may not decide the appeal."""
    regulate_all()
    _designate(alegre)
    inf = _appealed(agent, clerk, judge, applicant, _grant(applicant))
    grant_role(actor=None, user=judge, municipality=Municipality.objects.get(pk=alegre.municipality_id),
               role=Role.APPEAL_AUTHORITY, reason=DESIGNATION)
    assert _decide(api, judge, inf, 409).json()["rule"]["code"] == "same_judge_both_instances"


def test_a_revoked_profile_decides_nothing(api, alegre, agent, clerk, judge, applicant):
    regulate_all()
    _designate(alegre)
    inf = _appealed(agent, clerk, judge, applicant, _grant(applicant))
    mayor = _authority()
    second = other_judge()
    municipality = Municipality.objects.get(pk=alegre.municipality_id)
    grant_role(actor=None, user=second, municipality=municipality, role=Role.APPEAL_AUTHORITY, reason=DESIGNATION)
    for person in (mayor, second):
        revoke_role(actor=None, assignment=StaffAssignment.objects.get(user=person, role=Role.APPEAL_AUTHORITY),
                    reason="Fim do mandato")
        person.refresh_from_db()  # a fresh object: no roles cached
    _decide(api, mayor, inf, 403)  # no role left here at all
    assert _decide(api, second, inf, 409).json()["rule"]["code"] == "not_appeal_authority"  # a julgador again
    assert Infraction.objects.get(pk=inf.pk).status == "appealed"


def test_the_authority_alone_reaches_the_appeals_through_the_pages_and_nothing_else(
        web, alegre, agent, clerk, judge, applicant):
    regulate_all()
    _designate(alegre)
    grant = _grant(applicant)
    inf = _appealed(agent, clerk, judge, applicant, grant)
    first = _auto(agent, clerk, applicant, grant)  # awaiting the first-instance judgement
    mayor = web(_authority())
    queue = mayor.get(reverse("enforcement:queue"))
    assert queue.status_code == 200
    page = queue.content.decode()
    assert inf.number in page and first.number not in page and "Em prazo de defesa" not in page
    assert reverse("enforcement:appeal-judge", args=[inf.pk]) in page
    detail = mayor.get(reverse("enforcement:detail", args=[inf.pk])).content.decode()
    assert "Julgar recurso" in detail and "autoridade recursal" in detail
    assert "Conceder efeito suspensivo" not in detail and "Cancelar auto" not in detail
    # nothing else of the julgador's work: the first instance, the list, the autos not under appeal
    assert mayor.get(reverse("enforcement:judge", args=[first.pk])).status_code == 403
    assert mayor.post(reverse("enforcement:judge", args=[first.pk]),
                      {"upheld": "1", "grounds": "Comprovado."}).status_code == 403
    assert mayor.get(reverse("enforcement:cancel", args=[inf.pk])).status_code == 403
    assert mayor.get(reverse("enforcement:list")).status_code == 403
    assert mayor.get(reverse("enforcement:detail", args=[first.pk])).status_code == 404
    form = mayor.get(reverse("enforcement:appeal-judge", args=[inf.pk]))
    assert form.status_code == 200 and "Recorro." in form.content.decode()  # the appeal's reasons, to decide
    r = mayor.post(reverse("enforcement:appeal-judge", args=[inf.pk]), {"granted": "0", "grounds": "Mantida."})
    assert r.status_code == 302
    assert Infraction.objects.get(pk=inf.pk).appeals.get().judge.username == "prefeito"
    assert Infraction.objects.get(pk=first.pk).status == "defense_filed"


def test_the_authority_cannot_judge_the_first_instance_through_the_api(api, alegre, agent, clerk, applicant):
    regulate_all()
    _designate(alegre)
    first = _auto(agent, clerk, applicant, _grant(applicant))
    mayor = _authority()
    r = api(mayor).post(f"/api/v1/infractions/{first.pk}/judge/", {"upheld": True, "grounds": "x"}, format="json")
    assert r.status_code == 403
    assert api(mayor).get(f"/api/v1/infractions/{first.pk}/").status_code == 404
    assert api(mayor).get("/api/v1/infractions/").json()["count"] == 0


def test_where_designated_the_julgadors_page_says_who_decides_and_offers_no_form(web, alegre, agent, clerk, judge,
                                                                                applicant):
    regulate_all()
    _designate(alegre)
    inf = _appealed(agent, clerk, judge, applicant, _grant(applicant))
    second = web(other_judge())
    queue = second.get(reverse("enforcement:queue")).content.decode()
    assert inf.number not in queue  # not theirs to decide
    page = second.get(reverse("enforcement:appeal-judge", args=[inf.pk])).content.decode()
    assert 'id="not-appeal-authority"' in page and DESIGNATION in page and 'name="grounds"' not in page
    r = second.post(reverse("enforcement:appeal-judge", args=[inf.pk]), {"granted": "0", "grounds": "Mantida."})
    assert r.status_code == 409 and Infraction.objects.get(pk=inf.pk).status == "appealed"


# --- not designated: as before -----------------------------------------------------------------
def test_where_nothing_is_designated_the_profile_decides_nothing_and_any_other_julgador_does(
        api, web, alegre, agent, clerk, judge, applicant):
    regulate_all()
    inf = _appealed(agent, clerk, judge, applicant, _grant(applicant))
    mayor = _authority()
    r = _decide(api, mayor, inf, 409)
    assert r.json()["rule"]["code"] == "not_appeal_authority" and "Julgador" in str(r.json()["errors"])
    assert inf.number not in web(mayor).get(reverse("enforcement:queue")).content.decode()
    action = next(a for a in api(judge).get(f"/api/v1/infractions/{inf.pk}/").json()["allowed_actions"]
                  if a["code"] == "appeal_judge")
    assert action["by"] == "julgador"
    assert inf.number in web(other_judge()).get(reverse("enforcement:queue")).content.decode()
    _decide(api, other_judge(), inf, 200)


def test_the_further_appeal_has_its_own_designation(api, arapora, agent, clerk, judge, applicant):
    """Lei 724/2008 art. 25, §§1º–2º: the first appeal to the Secretaria (its julgadores), the
    further one to the Prefeito — where the municipality says so, the authority's profile only."""
    regulate_all()
    _designate(arapora, key="appeal.second_instance_designated_authority",
               basis="Lei 724/2008 (Araporã/MG), art. 25, §2")
    grant = _grant(applicant)
    inf, _ = services.infraction_issue(actor=agent, plate=grant.vehicle.plate, infraction_code="23-II",
                                       occurred_at=timezone.now(), location="Praça", description="Constatado.")
    services.infraction_notify(actor=clerk, infraction=inf, acknowledged_on=arapora.today())
    services.defense_file(actor=applicant, infraction=inf, text="Defesa.")
    services.infraction_judge(actor=judge, infraction=inf, upheld=True, grounds="Comprovado.")
    services.appeal_file(actor=applicant, infraction=inf, text="Recorro.")
    mayor = _authority()
    assert _decide(api, mayor, inf, 409).json()["rule"]["code"] == "not_appeal_authority"  # 1st: the Secretaria's
    body = _decide(api, other_judge(), inf, 200).json()
    assert body["status"] == "upheld"
    inf = Infraction.objects.get(pk=inf.pk)
    assert inf.appeal_instance == 2
    if body["decision_notice_pending"]:
        services.decision_notice_record(actor=clerk, infraction=inf, acknowledged_on=arapora.today())
    services.appeal_file(actor=applicant, infraction=Infraction.objects.get(pk=inf.pk), text="Recorro ao Prefeito.")
    third = make_user("julgador3", "julgador")
    r = _decide(api, third, inf, 409)
    assert r.json()["rule"] == {"code": "not_appeal_authority", "legal_basis": "Lei 724/2008 (Araporã/MG), art. 25, §2"}
    _decide(api, mayor, inf, 200)


# --- per municipality ---------------------------------------------------------------------------
def test_the_authority_of_one_municipality_decides_nothing_in_another(two_municipalities):
    """Both designate; the Prefeito of A holds the profile in A only: from B's host B's appeal is
    out of reach (403 on the API, 404 for the page), and from A's host it does not exist."""
    town = two_municipalities
    holder = UserFactory()
    people = {}
    for scope in (town.a, town.b):
        with tenancy.activate(scope):
            pack = regulation.current()
            municipality = Municipality.objects.get(pk=pack.municipality_id)
            for role in (Role.AGENT, Role.CLERK, Role.JUDGE):
                person = make_user(f"{role}-{pack.slug}", None)
                grant_role(actor=None, user=person, municipality=municipality, role=role, reason="teste")
                people[(pack.slug, role)] = person
            regulate_all()
            _designate(pack)
    with tenancy.activate(town.b):
        slug = town.pack_b.slug
        in_b = _appealed(people[(slug, Role.AGENT)], people[(slug, Role.CLERK)], people[(slug, Role.JUDGE)], holder,
                         _grant(holder))
    with tenancy.activate(town.a):
        mayor_a = _authority("prefeito-a", town.pack_a)
    url = f"/api/v1/infractions/{in_b.pk}/appeal/judge/"
    on_b, on_a = APIClient(HTTP_HOST="b.localhost"), APIClient(HTTP_HOST="a.localhost")
    for client in (on_b, on_a):
        client.force_authenticate(user=mayor_a)
    assert on_b.post(url, {"granted": False, "grounds": "Mantida."}, format="json").status_code == 403
    assert on_a.post(url, {"granted": False, "grounds": "Mantida."}, format="json").status_code == 404
    page = reverse("enforcement:appeal-judge", args=[in_b.pk])
    town.client_b.force_login(mayor_a)
    town.client_a.force_login(mayor_a)
    assert town.client_b.get(reverse("enforcement:detail", args=[in_b.pk])).status_code == 404
    assert town.client_b.get(page).status_code == 403
    assert town.client_b.get(reverse("enforcement:queue")).status_code == 403
    assert town.client_a.get(page).status_code == 404
    assert in_b.number not in town.client_a.get(reverse("enforcement:queue")).content.decode()
    with tenancy.activate(town.b):
        assert Infraction.objects.get(pk=in_b.pk).status == "appealed"
        mayor_b = _authority("prefeito-b", town.pack_b)
    on_b.force_authenticate(user=mayor_b)
    assert on_b.post(url, {"granted": False, "grounds": "Mantida."}, format="json").status_code == 200
