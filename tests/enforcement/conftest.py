"""Helpers for enforcement tests: a holder with a grant, autos issued through the API."""

from __future__ import annotations

from datetime import timedelta

import pytest

from portal import regulation
from tests.enforcement.helpers import D, at
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

        def regulate(self, day=None):
            from tests.enforcement.helpers import regulate_all

            regulate_all(day)

        def waive(self, pk):
            """The holder waives the rest of the defense period in writing (so that judging today is lawful)."""
            from enforcement import services
            from enforcement.models import Infraction, InfractionStatus

            inf = Infraction.objects.get(pk=pk)
            if inf.status == InfractionStatus.NOTIFIED and inf.defense_deadline and (
                    inf.defense_deadline >= regulation.current().today()):
                services.defense_waive(actor=inf.holder or clerk, infraction=inf, text="Renuncio ao prazo de defesa.")

        def decision_notice(self, pk, day=None, expect=200, **extra):
            day = day or regulation.current().today()
            r = api(clerk).post(f"/api/v1/infractions/{pk}/decision-notice/",
                                {"acknowledged_on": day.isoformat(), **extra}, format="json")
            assert r.status_code == expect, r.content
            return r.json()

        def judge(self, pk, upheld=True, expect=200, waive=True, notify_decision=True, user=None):
            """Judge (the holder having waived a running defense period) and, when upheld, record the
            notice of the decision today — the appeal period then runs from it."""
            if waive:
                self.waive(pk)
            r = api(user or judge).post(f"/api/v1/infractions/{pk}/judge/",
                                        {"upheld": upheld, "grounds": "Fatos comprovados."}, format="json")
            assert r.status_code == expect, r.content
            body = r.json()
            if expect == 200 and notify_decision and body.get("decision_notice_pending"):
                body["appeal_deadline"] = self.decision_notice(pk)["appeal_deadline"]
            return body

        def judge_appeal(self, pk, granted=False, expect=200, user=None, notify_decision=True):
            """Decided by another julgador than the first instance's (two instances, two people)."""
            r = api(user or second_judge()).post(f"/api/v1/infractions/{pk}/appeal/judge/",
                                {"granted": granted, "grounds": "Razões analisadas."}, format="json")
            assert r.status_code == expect, r.content
            body = r.json()
            if expect == 200 and notify_decision and body.get("decision_notice_pending"):
                body["appeal_deadline"] = self.decision_notice(pk)["appeal_deadline"]
            return body

    def second_judge():
        from tests.enforcement.helpers import other_judge

        return other_judge()

    return Chain()


@pytest.fixture
def clock(monkeypatch):
    """clock.set(day): the municipality's "today" (the decision date, the day a piece is filed);
    starts on ``D``, a business day without holidays around it, so that boundaries do not depend
    on the day the tests run."""

    class Clock:
        day = D

        def set(self, day):
            self.day = day

    c = Clock()
    monkeypatch.setattr(regulation.Pack, "today", lambda self: c.day)
    return c


