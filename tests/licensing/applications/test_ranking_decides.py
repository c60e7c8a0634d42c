"""The ranking decides: while the requests exceed the free places, a grant out of order is
refused (409) naming the request ahead and the criterion; CNH time counts in days; renewals
go first but, where the quota binds them, never beyond it."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from licensing.applications import rules
from licensing.applications.models import Application
from licensing.applications.selectors import Ranking, pending_ranking
from licensing.grants.rules import add_months, add_years
from tests.licensing.applications.helpers import (
    create_and_submit,
    open_call,
    review_all_and_inspect,
)

CRITERIA = ["renewal_first", "cnh_years_desc", "vehicle_newer", "cnh_points_asc", "schooling_desc", "dependents_desc"]


def _entry(key, *, renewal=False, cnh_since: date, today=date(2026, 6, 1), year=2024, at=0):
    years, months, days = rules.held_for(cnh_since, today)
    return rules.RankingEntry(key=key, renewal=renewal, cnh_years=years, cnh_months=months, cnh_days=days,
                              vehicle_year=year, cnh_points=None, schooling=None, dependents=None, bid=None,
                              submitted_at=at)


def test_cnh_time_is_compared_in_days():
    today = date(2026, 6, 1)
    short = _entry("10y1m", cnh_since=add_months(add_years(today, -10), -1), year=2026, at=0)
    long = _entry("10y11m", cnh_since=add_months(add_years(today, -10), -11), year=2020, at=1)
    assert short.cnh_years == long.cnh_years == 10  # whole years tie; the vehicle would have decided
    assert [e.key for e in rules.rank([short, long], CRITERIA)] == ["10y11m", "10y1m"]
    assert rules.criterion_display(long, "cnh_years_desc") == "10 anos e 11 meses"
    assert rules.deciding_criterion(long, short, CRITERIA) == "cnh_years_desc"


def test_renewals_compete_for_the_places_where_the_quota_binds_them():
    a = _entry("renewal-a", renewal=True, cnh_since=date(2010, 1, 1))
    b = _entry("renewal-b", renewal=True, cnh_since=date(2015, 1, 1))
    new = _entry("new", cnh_since=date(2000, 1, 1))
    ordered = rules.rank([new, b, a], CRITERIA)
    assert [e.key for e in ordered] == ["renewal-a", "renewal-b", "new"]
    binding = Ranking("taxi", CRITERIA, ordered, slots=1, current=2, free=1, quota_basis="q", renewals_compete=True)
    assert binding.exceeds and [binding.within(i) for i in (1, 2, 3)] == [True, False, False]
    assert binding.last_within().key == "renewal-a"
    loose = Ranking("taxi", CRITERIA, ordered, slots=1, current=2, free=0, quota_basis="q", renewals_compete=False)
    assert [loose.within(i) for i in (1, 2, 3)] == [True, True, False]


@pytest.mark.django_db
def test_itagiba_grant_out_of_ranking_order_is_refused(load_pack, api, clerk, agent):
    from tests.conftest import make_user

    pack = load_pack("itagiba", population=1000)  # one taxi place (art. 4, §3)
    today = pack.today()
    open_call("taxi")
    first = make_user("a1", "requerente", cpf="39053344705", name="Ana CNH curta", birth_date=date(1980, 1, 1))
    second = make_user("a2", "requerente", cpf="11144477735", name="Bia CNH longa", birth_date=date(1980, 1, 1))
    short_cnh = add_months(add_years(today, -10), -1)
    long_cnh = add_months(add_years(today, -10), -11)
    a = create_and_submit(api, first, driver={"cnh_first_issued": short_cnh.isoformat()})
    b = create_and_submit(api, second, driver={"cnh_first_issued": long_cnh.isoformat()})
    for app in (a, b):
        review_all_and_inspect(api, clerk, agent, app["id"])
    ranking = pending_ranking("taxi")
    assert [e.key.pk for e in ranking.entries] == [b["id"], a["id"]] and ranking.exceeds
    r = api(clerk).post(f"/api/v1/applications/{a['id']}/approve/")
    assert r.status_code == 409, r.json()
    assert r.json()["rule"] == {"code": "ranking.order", "legal_basis": pack.basis("ranking.criteria", "taxi")}
    message = str(r.json())
    assert Application.objects.get(pk=b["id"]).protocol in message and "Anos de CNH" in message
    assert "10 anos e 11 meses" in message
    ok = api(clerk).post(f"/api/v1/applications/{b['id']}/approve/")
    assert ok.status_code == 200, ok.json()


@pytest.mark.parametrize("slug", ["itagiba", "arapora"])
@pytest.mark.django_db
def test_approved_vistoria_needs_the_whole_checklist(load_pack, slug):
    """Art. 18 (the form of Anexos V/VI) / art. 9, V: an approval with an empty or partial form is refused."""
    pack = load_pack(slug)
    items = pack.inspection_items("taxi")
    assert items
    empty = rules.inspection_checklist(approved=True, checklist={}, items=items)
    assert [v.code for v in empty] == ["inspection.checklist_incomplete"] and empty[0].field == "checklist"
    partial = {i["code"]: True for i in items[:-1]}
    assert items[-1]["label"] in rules.inspection_checklist(approved=True, checklist=partial, items=items)[0].message
    full = {i["code"]: True for i in items}
    assert rules.inspection_checklist(approved=True, checklist=full, items=items) == []
    assert rules.inspection_checklist(approved=False, checklist={}, items=items) == []


@pytest.mark.django_db
def test_renovar_prefills_the_renewal_from_the_grant(load_pack, web, applicant, outsider):
    from licensing.grants.models import Authorization
    from licensing.requests.models import AuxiliaryDriver
    from tests.conftest import make_user
    from tests.factories import VehicleFactory, backdate_issue, issue_authorization

    pack = load_pack("alegre")
    today = pack.today()
    vehicle = VehicleFactory(owner=applicant, manufacture_year=today.year - 1)
    auth, _ = issue_authorization(holder=applicant, vehicle=vehicle)
    Authorization.objects.filter(pk=auth.pk).update(valid_until=today + timedelta(days=30))
    backdate_issue(auth, add_years(today, -10))
    from validate_docbr import CPF

    aux = make_user("aux1", "requerente", cpf=CPF().generate(), name="Bia Auxiliar", birth_date=date(1980, 1, 1))
    AuxiliaryDriver.objects.create(authorization=auth, person=aux, cnh_number="02650306461", cnh_category="B",
                                   cnh_first_issued=date(2005, 1, 1), cnh_ear=True, added_on=today)
    assert "Renovar" in web(applicant).get("/minha-autorizacao/").content.decode()
    assert web(outsider).post(f"/minha-autorizacao/{auth.pk}/renovar/").status_code == 404
    r = web(applicant).post(f"/minha-autorizacao/{auth.pk}/renovar/")
    assert r.status_code == 302 and "/etapa/vehicle/" in r["Location"], r.content.decode()[:500]
    app = Application.objects.get(applicant=applicant, kind="renewal")
    assert app.previous_authorization_id == auth.pk and app.vehicle_id == vehicle.pk
    assert [a.cpf for a in app.auxiliaries.all()] == [aux.cpf]
    again = web(applicant).post(f"/minha-autorizacao/{auth.pk}/renovar/")
    assert again["Location"] == r["Location"] and Application.objects.filter(applicant=applicant).count() == 1


@pytest.mark.django_db
def test_renovar_outside_the_window_says_why(load_pack, web, applicant):
    from tests.factories import VehicleFactory, issue_authorization

    load_pack("alegre")
    auth, _ = issue_authorization(holder=applicant, vehicle=VehicleFactory(owner=applicant))  # issued today
    r = web(applicant).post(f"/minha-autorizacao/{auth.pk}/renovar/", follow=True)
    assert "Renovação não iniciada" in r.content.decode() and not Application.objects.filter(applicant=applicant).exists()
