"""Builders for licensing tests: valid payloads per pack and modality, small real files."""

from __future__ import annotations

from datetime import date, timedelta

from django.core.files.uploadedfile import SimpleUploadedFile
from validate_docbr import CNH, CPF, RENAVAM

from licensing.applications.calls import call_open
from portal import regulation

PDF_BYTES = (b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n"
             b"trailer<</Root 1 0 R>>\n%%EOF\n")


def pdf_file(name: str = "doc.pdf") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, PDF_BYTES, content_type="application/pdf")


_plates = iter(range(100, 10_000))


def next_plate() -> str:
    n = next(_plates)
    letters = "ABCDEFGHJKLMNPRSTUVWXYZ"
    return f"Q{letters[n % 23]}{letters[(n // 23) % 23]}{n % 10}{letters[(n // 7) % 23]}{(n // 10) % 10}{(n // 100) % 10}"


def payload(modality: str = "taxi", *, auxiliaries: int = 0, **overrides) -> dict:
    """A valid application for the active pack and modality (the pack's limits, not hard-coded values)."""
    pack = regulation.current()
    today = pack.today()
    colors = pack.value("vehicle.colors", modality) or ["branca"]
    cats = pack.value("driver.cnh_categories", modality) or ["B"]
    vehicle = {
        "plate": next_plate(), "renavam": RENAVAM().generate(), "make": "Honda" if modality == "mototaxi" else "Chevrolet",
        "model": "CG 160" if modality == "mototaxi" else "Spin", "color": colors[0],
        "manufacture_year": today.year - 1, "first_registration_date": (today - timedelta(days=400)).isoformat(),
        "doors": 0 if modality == "mototaxi" else 5, "seats": 2 if modality == "mototaxi" else 5,
        "engine_cc": 160 if modality == "mototaxi" else 1600,
    }
    driver = {"cnh_number": CNH().generate(), "cnh_category": cats[-1],
              "cnh_first_issued": date(today.year - 10, 1, 15).isoformat(), "cnh_ear": True}
    aux = [{"cpf": CPF().generate(), "name": f"Auxiliar {i}", "birth_date": "1984-04-02", "cnh_number": CNH().generate(), "cnh_category": cats[-1],
            "cnh_first_issued": date(today.year - 8, 2, 1).isoformat(), "cnh_ear": True}
           for i in range(1, auxiliaries + 1)]
    data = {"kind": "new", "modality": modality, "vehicle": vehicle, "driver": driver, "auxiliary_drivers": aux}
    if pack.value("selection.method", modality) == "bidding":
        data["bid_amount"] = "1500.00"
    for key, value in overrides.items():
        if key in ("vehicle", "driver"):
            data[key] = {**data[key], **value}
        else:
            data[key] = value
    return data


def open_call(modality: str = "taxi", **kwargs):
    today = regulation.current().today()
    call, _ = call_open(actor=None, modality=modality, start=today - timedelta(days=5),
                        end=today + timedelta(days=25), **kwargs)
    return call


def create_and_submit(api, user, modality="taxi", auxiliaries=0, **overrides) -> dict:
    client = api(user)
    r = client.post("/api/v1/applications/", payload(modality, auxiliaries=auxiliaries, **overrides), format="json")
    assert r.status_code == 201, r.json()
    app = r.json()
    for item in app["required_documents"]:
        up = client.post(f"/api/v1/applications/{app['id']}/documents/", {"type": item["code"], "file": pdf_file()},
                         format="multipart")
        assert up.status_code == 201, up.json()
    r = client.post(f"/api/v1/applications/{app['id']}/submit/")
    assert r.status_code == 200, r.json()
    return {**app, **r.json()}


def review_all_and_inspect(api, clerk, agent, app_id: int) -> None:
    c = api(clerk)
    detail = c.get(f"/api/v1/applications/{app_id}/").json()
    for doc in detail["documents"]:
        r = c.post(f"/api/v1/applications/{app_id}/documents/{doc['id']}/review/", {"accepted": True}, format="json")
        assert r.status_code == 200, r.json()
    r = c.post(f"/api/v1/applications/{app_id}/inspection/",
               {"scheduled_for": "2030-01-10T09:00:00-03:00", "agent": agent.pk}, format="json")
    assert r.status_code == 201, r.json()
    items = api(agent).get(f"/api/v1/applications/{app_id}/inspection/").json()["checklist_items"]
    r = api(agent).post(f"/api/v1/applications/{app_id}/inspection/result/",
                        {"approved": True, "checklist": {i["code"]: True for i in items}, "notes": "ok"}, format="json")
    assert r.status_code == 200, r.json()
