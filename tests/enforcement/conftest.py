"""Helpers for enforcement tests: a holder with a grant, autos issued through the API."""

from __future__ import annotations

from datetime import timedelta

import pytest

from portal import regulation
from tests.enforcement.helpers import at
from tests.factories import VehicleFactory, issue_authorization


@pytest.fixture
def grant(applicant):
    """Alice's current grant (authorization + alvarás) on a vehicle she owns."""
    pack = regulation.current()
    vehicle = VehicleFactory(owner=applicant)
    auth, alvaras = issue_authorization(holder=applicant, vehicle=vehicle, modality="taxi",
                                        valid_from=pack.today() - timedelta(days=200))
    return auth


@pytest.fixture
def issue(api, agent):
    """issue(plate, code, day, **extra) -> response JSON of POST /api/v1/infractions/."""

    def _issue(plate, code, day=None, **extra):
        day = day or regulation.current().today()
        body = {"plate": plate, "infraction_code": code, "occurred_at": at(day), "location": "Praça Central",
                "description": "Constatado pelo agente.", "driver_cpf": "", "alvara_retained": False, **extra}
        response = api(agent).post("/api/v1/infractions/", body, format="json")
        assert response.status_code == 201, response.content
        return response.json()

    return _issue


@pytest.fixture
def chain(api, clerk, judge):
    """Helpers to move an auto along: notify, judge, appeal judge."""

    class Chain:
        def notify(self, pk, day=None, **extra):
            day = day or regulation.current().today()
            r = api(clerk).post(f"/api/v1/infractions/{pk}/notify/", {"acknowledged_on": day.isoformat(), **extra},
                                format="json")
            assert r.status_code == 200, r.content
            return r.json()

        def judge(self, pk, upheld=True, expect=200):
            r = api(judge).post(f"/api/v1/infractions/{pk}/judge/", {"upheld": upheld, "grounds": "Fatos comprovados."},
                                format="json")
            assert r.status_code == expect, r.content
            return r.json()

        def judge_appeal(self, pk, granted=False, expect=200):
            r = api(judge).post(f"/api/v1/infractions/{pk}/appeal/judge/",
                                {"granted": granted, "grounds": "Razões analisadas."}, format="json")
            assert r.status_code == expect, r.content
            return r.json()

    return Chain()
