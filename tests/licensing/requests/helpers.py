"""Shared helpers for the lifecycle tests."""

from __future__ import annotations

from datetime import date

from validate_docbr import CPF, RENAVAM

from licensing.requests.models import LifecycleRequest
from tests.factories import UserFactory, VehicleFactory, issue_authorization


def new_cpf() -> str:
    return CPF().generate()


def grant(holder=None, modality="taxi", valid_from: date | None = None, **vehicle):
    holder = holder or UserFactory()
    v = VehicleFactory(owner=holder, **vehicle)
    auth, alvaras = issue_authorization(holder=holder, vehicle=v, modality=modality, valid_from=valid_from)
    return auth, alvaras


def aux_documents(modality: str = "taxi") -> list[str]:
    """Every document the current pack asks of an auxiliary included after the grant."""
    from portal import regulation

    return [d["code"] for d in regulation.current().documents(modality, "new", applies_to="auxiliary")]


def aux_data(modality: str = "taxi", **kw) -> dict:
    data = {"cpf": new_cpf(), "name": "Bruno Auxiliar", "birth_date": "1990-01-01", "cnh_number": "12345678900",
            "cnh_category": "D", "cnh_first_issued": "2010-01-01", "cnh_ear": True,
            "documents": aux_documents(modality)}
    data.update(kw)
    return data


def vehicle_data(**kw) -> dict:
    data = {"plate": "QWE1R23", "renavam": RENAVAM().generate(), "make": "Fiat", "model": "Cronos", "color": "branca",
            "manufacture_year": 2025, "first_registration_date": "2025-02-01", "doors": 4, "seats": 5,
            "engine_cc": 1300}
    data.update(kw)
    return data


def file(api, user, auth, kind, data):
    return api(user).post(f"/api/v1/authorizations/{auth.pk}/requests/", {"kind": kind, "data": data}, format="json")


def decide(api, clerk, req_id, approved=True, reason=""):
    return api(clerk).post(f"/api/v1/requests/{req_id}/decide/", {"approved": approved, "reason": reason}, format="json")


def req(pk) -> LifecycleRequest:
    return LifecycleRequest.objects.get(pk=pk)
