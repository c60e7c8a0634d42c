"""Taxi stands: reallocation on reduction and increase with ties, swaps, the public list."""

from datetime import date

import pytest

from licensing.stands.models import AssignmentStatus, StandAssignment, TaxiStand
from licensing.stands.services import stand_assign, stand_create, stands_sync_from_pack
from tests.licensing.requests.helpers import grant

pytestmark = pytest.mark.django_db


def _holders(specs):
    """specs: (registered year, vehicle year) → authorizations, oldest registration first."""
    return [grant(valid_from=date(year, 1, 10), manufacture_year=vyear)[0] for year, vyear in specs]


def test_alegre_reduction_moves_the_most_recent_registrations_tie_by_newer_vehicle(alegre, clerk, api):
    stand = stand_create(actor=clerk, name="Ponto Teste", location="Centro", capacity=4)
    a_old, b_tie_old_car, c_tie_new_car, d_recent = _holders([(2018, 2020), (2020, 2019), (2020, 2023), (2022, 2024)])
    for auth in (a_old, b_tie_old_car, c_tie_new_car, d_recent):
        stand_assign(actor=clerk, stand=stand, authorization=auth)
    r = api(clerk).post(f"/api/v1/stands/{stand.pk}/capacity/", {"capacity": 2}, format="json")
    assert r.status_code == 200, r.json()
    status = dict(StandAssignment.objects.filter(stand=stand).values_list("authorization_id", "status"))
    assert status[a_old.pk] == status[c_tie_new_car.pk] == AssignmentStatus.ACTIVE
    assert status[b_tie_old_car.pk] == status[d_recent.pk] == AssignmentStatus.WAITING
    assert r.json()["stand"]["occupied"] == 2 and r.json()["stand"]["waiting"] == 2


def test_alegre_increase_gives_the_places_to_the_oldest_waiting_tie_by_newer_vehicle(alegre, clerk, api):
    stand = stand_create(actor=clerk, name="Ponto Teste", location="Centro", capacity=1)
    first, recent, tie_old_car, tie_new_car = _holders([(2015, 2020), (2023, 2025), (2019, 2018), (2019, 2022)])
    for auth in (first, recent, tie_old_car, tie_new_car):
        stand_assign(actor=clerk, stand=stand, authorization=auth)
    assert StandAssignment.objects.filter(stand=stand, status=AssignmentStatus.WAITING).count() == 3
    r = api(clerk).post(f"/api/v1/stands/{stand.pk}/capacity/", {"capacity": 3}, format="json")
    assert r.status_code == 200
    active = set(StandAssignment.objects.filter(stand=stand, status=AssignmentStatus.ACTIVE)
                 .values_list("authorization_id", flat=True))
    assert active == {first.pk, tie_new_car.pk, tie_old_car.pk}
    one_more = api(clerk).post(f"/api/v1/stands/{stand.pk}/capacity/", {"capacity": 2}, format="json")
    assert one_more.json()["moved_out"] == [StandAssignment.objects.get(authorization=tie_old_car,
                                                                          status=AssignmentStatus.WAITING).pk]


def test_without_the_rule_a_reduction_below_occupancy_is_refused(itagiba, clerk, api):
    stand = stand_create(actor=clerk, name="Ponto Teste", location="Centro", capacity=2)
    for auth in _holders([(2025, 2024), (2025, 2024)]):
        stand_assign(actor=clerk, stand=stand, authorization=auth)
    r = api(clerk).post(f"/api/v1/stands/{stand.pk}/capacity/", {"capacity": 1}, format="json")
    assert r.status_code == 409 and r.json()["rule"]["code"] == "stand_capacity_below_occupancy"


def test_arapora_swap_without_consent_is_refused_and_with_consent_done(arapora, clerk, api):
    s1 = stand_create(actor=clerk, name="Ponto A", location="Centro", capacity=1)
    s2 = stand_create(actor=clerk, name="Ponto B", location="Rodoviária", capacity=1)
    x, y = _holders([(2020, 2022), (2021, 2022)])
    ax = stand_assign(actor=clerk, stand=s1, authorization=x)
    ay = stand_assign(actor=clerk, stand=s2, authorization=y)
    body = {"assignment_a": ax.pk, "assignment_b": ay.pk, "consent_a": True, "consent_b": False}
    r = api(clerk).post("/api/v1/stands/swap/", body, format="json")
    assert r.status_code == 400
    assert r.json()["rule"] == {"code": "stand_swap_without_consent", "legal_basis": "Lei 724/2008 (Araporã/MG), art. 12"}
    ok = api(clerk).post("/api/v1/stands/swap/", {**body, "consent_b": True}, format="json")
    assert ok.status_code == 200
    assert StandAssignment.objects.get(authorization=x, status=AssignmentStatus.ACTIVE).stand == s2
    assert StandAssignment.objects.get(authorization=y, status=AssignmentStatus.ACTIVE).stand == s1
    assert StandAssignment.objects.filter(status=AssignmentStatus.ENDED).count() == 2  # history kept


def test_one_stand_per_grant_moving_frees_the_place(arapora, clerk):
    s1 = stand_create(actor=clerk, name="Ponto A", location="Centro", capacity=1)
    s2 = stand_create(actor=clerk, name="Ponto B", location="Centro", capacity=1)
    x, y = _holders([(2020, 2022), (2021, 2022)])
    stand_assign(actor=clerk, stand=s1, authorization=x)
    waiting = stand_assign(actor=clerk, stand=s1, authorization=y)
    assert waiting.status == AssignmentStatus.WAITING
    stand_assign(actor=clerk, stand=s2, authorization=x)  # x moves: y gets the place at s1
    assert StandAssignment.objects.get(pk=waiting.pk).status == AssignmentStatus.ACTIVE
    assert StandAssignment.objects.filter(authorization=x).exclude(status=AssignmentStatus.ENDED).count() == 1


def test_public_stand_list_shows_name_and_plate_only(alegre, clerk, api, client):
    stands_sync_from_pack()
    assert stands_sync_from_pack() == 0
    assert TaxiStand.objects.count() == len(alegre.stands)
    auth, _ = grant()
    stand_assign(actor=clerk, stand=TaxiStand.objects.first(), authorization=auth)
    r = api(None).get("/api/v1/stands/")
    assert r.status_code == 200
    entry = next(s for s in r.json() if s["occupied"])
    assert entry["vehicles"] == [{"holder": auth.holder.display_name, "plate": auth.vehicle.display_plate}]
    page = client.get("/pontos/").content.decode()
    assert auth.holder.display_name in page and auth.vehicle.display_plate in page and auth.holder.cpf not in page
    assert api(None).post("/api/v1/stands/", {"name": "X", "location": "Y", "capacity": 1}, format="json").status_code == 401
    created = api(clerk).post("/api/v1/stands/", {"name": "Novo", "location": "Praça", "capacity": 2}, format="json")
    assert created.status_code == 201 and created.json()["available"] == 2
