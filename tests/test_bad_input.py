"""Bad input never breaks the portal: no 5xx, 400 bodies in the contract's shape, nothing half-saved.

Data-driven over the permission matrix (tests/<app>/matrix.py): every named URL that takes
input is called, by a persona allowed to act, with broken bodies (empty, not an object, not
JSON, invalid UTF-8) and with each field of a plausible payload replaced by null, a wrong
type, a huge string or number, an impossible date, a NUL byte. Path ids that do not exist or
do not fit a database integer, and absurd query strings, are thrown at every GET as well.
HTML forms get the same treatment (the page answers without a 500).
"""

from __future__ import annotations

import json
from datetime import date

import pytest
from django.db import transaction
from django.urls import reverse

from tests import test_permission_matrix as matrix
from tests.enforcement.helpers import at as enforcement_at
from tests.matrix import LOGIN

# The permission matrix's world (one object of each kind, built once per module) and its rows.
_matrix_world_once = matrix._matrix_world_once
world_and_personas = matrix.any_matrix_world
all_rows = matrix.all_rows

ACTORS = ("requerente", "atendente", "agente", "julgador", "admin", "anonymous")
DENIED = (401, 403, 404, LOGIN)
HUGE_ID = 99999999999999999999
HUGE = "x" * 100_000
ENGLISH = ("This field", "Invalid", "Expected", "valid integer", "Not a valid", "Ensure this", "must be",
           "is required", "JSON parse")

# A plausible payload for the API endpoints whose matrix row sends none; rows that carry one use it.
TEMPLATES: dict[str, dict] = {
    "api-token": {"username": "atendente1", "password": "errada"},
    "api-signup": {"cpf": "52998224725", "name": "Fulano", "email": "f@example.org", "password": "Senha-forte-1",
                   "birth_date": "1980-01-01", "phone": "51999999999"},
    "api-applications": {"kind": "new", "modality": "taxi",
                         "vehicle": {"plate": "QAA1B23", "renavam": "12345678900", "make": "Chevrolet", "model": "Spin",
                                     "color": "branca", "manufacture_year": 2024,
                                     "first_registration_date": "2024-02-01", "doors": 4, "seats": 5,
                                     "engine_cc": 1600},
                         "driver": {"cnh_number": "12345678900", "cnh_category": "B",
                                    "cnh_first_issued": "2010-01-01", "cnh_ear": True},
                         "auxiliary_drivers": [], "bid_amount": "1500.00", "schooling": 3, "dependents": 1},
    "api-application-document-review": {"accepted": False, "reason": "Ilegível"},
    "api-application-requirements": {"text": "Traga o CRLV", "document_type": "crlv", "due_date": "2030-01-10"},
    "api-application-inspection-result": {"approved": True, "checklist": {"pneus": True}, "notes": "ok"},
    "api-application-reject": {"reason": "Falta documento"},
    "api-application-withdraw": {"reason": "Desisto"},
    "api-infractions": {"plate": "QAA1B23", "infraction_code": "I-01", "occurred_at": "2026-01-10T10:00:00-03:00",
                        "location": "Praça", "description": "Sem alvará", "driver_cpf": "52998224725",
                        "alvara_retained": False, "infraction_codes": [], "idempotency_key": "k1"},
    "api-lifecycle-tff": {"year": 2026},
    "api-lifecycle-fee-pay": {"paid_on": "2026-01-10", "reference": "ABC"},
    "api-lifecycle-leave-return": {"returned_on": "2026-01-10"},
    "api-transit-line-complaint": {"text": "Atrasou", "name": "Ana", "contact": "a@b.c", "occurred_on": "2026-01-10"},
    "api-transit-concessionaires": {"legal_name": "Viação X Ltda", "cnpj": "11222333000181", "registry_number": "1",
                                    "address": "Rua A", "representative_name": "Rep",
                                    "representative_cpf": "52998224725", "email": "x@y.z"},
    "api-transit-concessions": {"object": "Linhas", "category": "onibus", "bidding_reference": "CP 1/2026",
                                "bidding_closed_on": "2026-01-10", "classified": [1]},
    "api-transit-line-fares": {"zone": "urban", "amount": "5.00", "decree": "Decreto 1", "announced_on": "2026-01-10",
                               "effective_from": "2026-02-10"},
    "api-transit-itinerary-change": {"segments": [{"origin": "A", "destination": "B", "length_km": "3.5"}],
                                     "reason": "Obra"},
    "api-transit-itinerary-approve": {"amendment_reference": "TA 1", "announced_on": "2026-01-10",
                                      "effective_from": "2026-02-10"},
    "api-transit-itinerary-discard": {"reason": "Não"},
    "api-transit-bus-withdraw": {"reason": "Velho"},
    "api-transit-contract": {"signed_on": "2026-01-10", "contract_number": "C-1"},
    "api-transit-start": {"started_on": "2026-01-10"},
    "api-transit-renew": {"reason": "Renova"},
    "api-transit-clauses": {"clauses": ["I", "II"]},
    "api-transit-line-create": {"code": "L99", "name": "Linha", "segments": [
        {"origin": "A", "destination": "B", "length_km": "3.5", "zone": "urban"}],
        "schedule": {"weekday": ["06:00"]}},
    "api-transit-bus-create": {"plate": "QAA1B23", "category": "onibus", "seated": 30, "standing": 10,
                               "manufacture_year": 2024},
    "api-transit-intervention-create": {"decree": "D 1", "declared_on": "2026-01-10", "interventor": "Fulano",
                                        "term_days": 30, "objectives": "Regularizar", "grounds": ["I"]},
    "api-transit-default-create": {"grounds": ["I"], "details": "Atrasos", "notified_on": "2026-01-10",
                                   "cure_days": 30},
    "api-transit-intervention-procedure": {"opened_on": "2026-01-10", "reference": "P 1"},
    "api-transit-default-cure": {"reason": "Corrigido"},
    "api-transit-default-open": {"reason": "Aberto"},
    "api-transit-complaint-answer": {"answer": "Resolvido"},
    "api-transit-extinguish": {"cause": "caducidade", "act": "Decreto 9", "extinct_on": "2026-01-10",
                               "notes": "n", "indemnity_paid": False},
    "api-transit-intervention-conclude": {"concluded_on": "2026-01-10", "upheld": True, "conclusion": "Ok"},
    "api-transit-default-conclude": {"proven": True, "decision": "Caducidade", "concluded_on": "2026-01-10"},
}

# What a create endpoint may write; a refused request must leave these counts unchanged.
CREATES = {
    "api-signup": ["portal.User"],
    "api-applications": ["licensing.Application", "licensing.Vehicle"],
    "api-application-requirements": ["licensing.Requirement"],
    "api-infractions": ["enforcement.Infraction"],
    "api-lifecycle-stands": ["licensing.TaxiStand"],
    "api-lifecycle-auth-requests": ["licensing.LifecycleRequest"],
    "api-transit-concessionaires": ["licensing.Concessionaire"],
    "api-transit-concessions": ["licensing.Concession"],
    "api-transit-bus-create": ["licensing.Bus"],
    "api-transit-line-create": ["licensing.BusLine"],
}

RAW_BODIES = [
    b"", b"[]", b'"texto"', b"123", b"null", b"{nao e json", b"\xff\xfe{\"a\": \"\xc3\x28\"}", b'{"a": NaN}',
    b'{"a": Infinity}', b"1e400", b'{"text": "\\u0000"}', b"[" * 5000,
]

DATES = ["2026-02-30", "30/02/2026", "", "9999-12-31", "0001-01-01", True]
NUMBERS = ["abc", 10**30, 2**31, -1, "NaN", "Infinity", "1e309", True, "9" * 400]
STRINGS = [123, {}, [], HUGE, "a\x00b", "\ud800", ""]
COMMON = [None, {"a": 1}, ["x"]]


def _values_for(value) -> list:
    if isinstance(value, bool):
        return COMMON + ["talvez", 2, ""]
    if isinstance(value, (int, float)):
        return COMMON + NUMBERS
    if isinstance(value, dict):
        return COMMON + ["x", {k: HUGE for k in value} or {"x": HUGE}, {k: None for k in value}]
    if isinstance(value, list):
        return COMMON + ["x", [None], [{}], [HUGE], [10**30], [[]], list(range(2000))]
    if isinstance(value, str) and len(value) == 10 and value[4:5] == "-" and value[7:8] == "-":
        return COMMON + DATES + ["9" * 30]
    if isinstance(value, str) and "T" in value and value[:4].isdigit():
        return COMMON + DATES + ["2026-13-45T99:99", "9999-12-31T23:59:59-12:00"]
    if isinstance(value, str) and value.replace(".", "", 1).isdigit():
        return COMMON + STRINGS + NUMBERS + ["-1.00", "1e400", "0.001"]
    return COMMON + STRINGS + ["99999999999999999999", "²", "١٢٣"]


def _actor(row):
    for persona in ACTORS:
        if row.expected(persona) not in DENIED:
            return persona
    return None


def _count(labels):
    from django.apps import apps

    out = {}
    for label in labels:
        try:
            out[label] = apps.get_model(label).objects.count()
        except LookupError:
            continue
    return out


def _shape(response, where: str) -> None:
    assert response.status_code < 500, f"{where}: {response.status_code}"
    if response.status_code in (400, 409) and response.get("Content-Type", "").startswith("application/json"):
        body = response.json()
        assert isinstance(body, dict) and isinstance(body.get("errors"), dict) and body["errors"], \
            f"{where}: corpo de erro fora do contrato: {str(body)[:300]}"
        for key, messages in body["errors"].items():
            assert isinstance(key, str) and isinstance(messages, list) and messages, f"{where}: {key}: {messages!r}"
            for m in messages:
                assert isinstance(m, str), f"{where}: {key}: {m!r}"
                assert not any(e in m for e in ENGLISH), f"{where}: mensagem em inglês: {m}"


def _call(client, method, url, body: bytes | str | None, content_type="application/json"):
    call = getattr(client, method)
    if body is None:
        return call(url)
    return call(url, data=body, content_type=content_type)


def _in_savepoint(func):
    with transaction.atomic():
        try:
            return func()
        finally:
            transaction.set_rollback(True)


API_INPUT_ROWS = [r for r in all_rows() if r.api and r.method in ("post", "put", "patch") and _actor(r)]
API_GET_ROWS = [r for r in all_rows() if r.api and r.method == "get"]
HTML_POST_ROWS = [r for r in all_rows() if not r.api and r.method == "post" and _actor(r)]


@pytest.mark.parametrize("row", API_INPUT_ROWS, ids=[r.name for r in API_INPUT_ROWS])
def test_api_body_fuzz(row, world_and_personas, api):
    world, personas = world_and_personas
    user = personas[_actor(row)]
    client = api(user)
    url = reverse(row.name, kwargs=row.kwargs(world) if row.kwargs else None) + row.query
    template = TEMPLATES.get(row.name) or (row.data(world) if row.data else {}) or {}
    counted = CREATES.get(row.name, [])

    def one(body, where, content_type="application/json"):
        def run():
            before = _count(counted)
            response = _call(client, row.method, url, body, content_type)
            _shape(response, where)
            if response.status_code >= 400:
                assert _count(counted) == before, f"{where}: gravou algo num pedido recusado"
            return response
        return _in_savepoint(run)

    for raw in RAW_BODIES:
        one(raw, f"{row.name} corpo {raw[:20]!r}")
    one(b"text=1", f"{row.name} form", "application/x-www-form-urlencoded")
    one(b"--x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--x--\r\n", f"{row.name} multipart",
        "multipart/form-data; boundary=x")
    one(b"<xml/>", f"{row.name} xml", "application/xml")

    def mutate(obj, path=()):
        """(path, value) for each leaf of the template and each bad value for it."""
        for key, value in obj.items():
            for bad in _values_for(value):
                yield (*path, key), bad
            if isinstance(value, dict) and value:
                yield from mutate(value, (*path, key))
            if isinstance(value, list) and value and isinstance(value[0], dict):
                yield from mutate(value[0], (*path, key, 0))

    def put(obj, path, bad):
        obj = json.loads(json.dumps(obj))
        node = obj
        for step in path[:-1]:
            node = node[step]
        node[path[-1]] = bad
        return obj

    for path, bad in mutate(template):
        payload = put(template, path, bad)
        text = json.dumps(payload).replace('"1e309"', "1e309") if bad == "1e309" else json.dumps(payload)
        one(text, f"{row.name} {'.'.join(map(str, path))}={str(bad)[:30]!r}")
    # extra fields, and the whole thing as a string
    one(json.dumps({**template, "id": HUGE_ID, "status": "approved", "__proto__": {}}), f"{row.name} extras")


@pytest.mark.parametrize("row", API_INPUT_ROWS + API_GET_ROWS, ids=[f"{r.name}-{r.method}"
                                                                     for r in API_INPUT_ROWS + API_GET_ROWS])
def test_api_path_ids_and_query(row, world_and_personas, api):
    world, personas = world_and_personas
    persona = _actor(row) or "admin"
    client = api(personas[persona])
    kwargs = row.kwargs(world) if row.kwargs else None
    urls = []
    if kwargs:
        for key, value in kwargs.items():
            if isinstance(value, int) or str(value).isdigit():
                for bad in (0, 999999, 2**31, 2**63, HUGE_ID):
                    urls.append(reverse(row.name, kwargs={**kwargs, key: bad}))
            elif key in ("plate", "code"):
                for bad in ("x" * 5000, "%00", "ç", "../../etc"):
                    urls.append(reverse(row.name, kwargs={**kwargs, key: "Z"}).replace("/Z/", f"/{bad}/"))
    base = reverse(row.name, kwargs=kwargs)
    documents = base.endswith("pdf") or row.name in ("api-schema", "api-docs")  # no query parameters: ids only
    for query in () if documents else ("?page=-1", "?page=abc", "?page=99999999999999999999", "?page_size=-5&page=0", "?page_size=abc",
                  "?status=%00", "?status=a&status=b", "?q=%00", "?q=" + "x" * 5000, "?kind=%00",
                  "?modality=%00", "?modality=x" + "y" * 3000, "?at=garbage", "?at=2026-02-30", "?at=9999-12-31",
                  "?km=1e309", "?km=NaN", "?km=-Infinity", "?km=" + "9" * 400, "?line=99999999999999999999",
                  "?line=%00", "?zone=%00", "?student=maybe", "?waiting_minutes=1e309", "?year=99999999999999999",
                  "?format=csv&page=abc", "?format=xml", "?driver_cpf=%00", "?plate=%00", "?ordering=%00"):
        urls.append(base + query)
    for url in urls:
        def run(url=url):
            response = _call(client, row.method, url, b"{}" if row.method != "get" else None)
            _shape(response, f"{row.name} {row.method} {url[:120]}")
        _in_savepoint(run)


HTML_VALUES = ["", HUGE, "a\x00b", "99999999999999999999", "-1", "1e309", "NaN", "2026-02-30", "30/02/2026",
               "9999-12-31", "²"]
HTML_FIELDS = ["name", "cpf", "email", "password", "password1", "password2", "username", "birth_date", "phone",
               "plate", "renavam", "make", "model", "color", "manufacture_year", "first_registration_date", "doors",
               "seats", "engine_cc", "cnh_number", "cnh_category", "cnh_first_issued", "reason", "text", "accepted",
               "scheduled_for", "agent", "due_date", "infraction_code", "occurred_at", "location", "description",
               "acknowledged_on", "upheld", "grounds", "paid_on", "capacity", "authorization", "year", "km", "at",
               "amount", "start", "end", "slots", "modality", "kind", "type", "decision", "returned_on", "approved"]


def _form_fields(client, url) -> list[str]:
    import re

    response = client.get(url)
    if response.status_code != 200 or "text/html" not in response.get("Content-Type", ""):
        return []
    return sorted(set(re.findall(r'name="([a-zA-Z0-9_\-]+)"', response.content.decode()))
                  - {"csrfmiddlewaretoken"})


@pytest.mark.parametrize("row", HTML_POST_ROWS, ids=[r.name for r in HTML_POST_ROWS])
def test_html_form_fuzz(row, world_and_personas, web):
    world, personas = world_and_personas
    client = web(personas[_actor(row)])
    url = reverse(row.name, kwargs=row.kwargs(world) if row.kwargs else None) + row.query
    base = row.data(world) if row.data else {}
    fields = sorted(set(_form_fields(client, url)) | set(HTML_FIELDS) | set(base))
    for value in HTML_VALUES:
        for data in ({**base, **{f: value for f in fields}}, {f: value for f in base} or {"x": value}):
            def run(data=data):
                response = client.post(url, data)
                assert response.status_code < 500, f"{row.name} {str(data)[:80]}: {response.status_code}"
            _in_savepoint(run)
    for bad in (0, 2**31, HUGE_ID):
        kwargs = row.kwargs(world) if row.kwargs else {}
        for key, value in kwargs.items():
            if isinstance(value, int):
                bad_url = reverse(row.name, kwargs={**kwargs, key: bad})
                _in_savepoint(lambda bad_url=bad_url: _check_status(client.post(bad_url, base), bad_url))


def _check_status(response, where):
    assert response.status_code < 500, f"{where}: {response.status_code}"


# --- uploads -------------------------------------------------------------------------------------------


def _draft(api, applicant):
    from tests.licensing.applications.helpers import open_call, payload

    open_call("taxi")
    r = api(applicant).post("/api/v1/applications/", payload("taxi"), format="json")
    assert r.status_code == 201, r.content
    return r.json()


def _fresh_applicant():
    """A new requerente (the matrix world's Alice already holds a grant)."""
    from validate_docbr import CPF

    from portal.roles import Role
    from tests.conftest import make_user

    cpf = CPF().generate()
    return make_user(cpf, Role.APPLICANT, cpf=cpf, name="Nova Requerente", birth_date=date(1980, 5, 5))


def test_document_upload_bad_files(world_and_personas, api, settings):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from licensing.models import ApplicationDocument
    from tests.licensing.applications.helpers import PDF_BYTES

    settings.UPLOAD_MAX_BYTES = 64 * 1024
    applicant = _fresh_applicant()
    app = _draft(api, applicant)
    code = app["required_documents"][0]["code"]
    url = f"/api/v1/applications/{app['id']}/documents/"
    client = api(applicant)
    cases = {
        "sem arquivo": {"type": code},
        "sem tipo": {"file": SimpleUploadedFile("a.pdf", PDF_BYTES, content_type="application/pdf")},
        "tipo inexistente": {"type": "x" * 5000, "file": SimpleUploadedFile("a.pdf", PDF_BYTES)},
        "arquivo vazio": {"type": code, "file": SimpleUploadedFile("a.pdf", b"", content_type="application/pdf")},
        "pdf falso": {"type": code, "file": SimpleUploadedFile("a.pdf", b"isto e texto", content_type="application/pdf")},
        "grande demais": {"type": code, "file": SimpleUploadedFile("a.pdf", PDF_BYTES + b"0" * 200_000,
                                                                   content_type="application/pdf")},
        "tipo nulo": {"type": "a\x00b", "file": SimpleUploadedFile("a.pdf", PDF_BYTES)},
        "arquivo como texto": {"type": code, "file": "nao e arquivo"},
    }
    long_name = client.post(url, {"type": code, "file": SimpleUploadedFile("a" * 3000 + ".pdf", PDF_BYTES)},
                            format="multipart")
    _shape(long_name, "nome de arquivo enorme")
    for label, data in cases.items():
        before = ApplicationDocument.objects.count()
        response = client.post(url, data, format="multipart")
        _shape(response, f"upload {label}")
        assert response.status_code in (400, 413, 415), f"upload {label}: {response.status_code} {response.content[:200]}"
        assert ApplicationDocument.objects.count() == before, f"upload {label}: documento gravado"
    response = client.post(url, b'{"type": "x"}', content_type="application/json")
    _shape(response, "upload em JSON")
    response = client.post(url, b"--x\r\nbroken", content_type="multipart/form-data; boundary=x")
    _shape(response, "multipart quebrado")
    response = client.post(url, b"abc", content_type="multipart/form-data")
    _shape(response, "multipart sem boundary")


# --- double submit -------------------------------------------------------------------------------------


def test_double_submit_application_flow(world_and_personas, api):
    from licensing.models import Application, Authorization
    from tests.licensing.applications.helpers import (
        create_and_submit,
        open_call,
        payload,
        pdf_file,
        review_all_and_inspect,
    )

    personas = world_and_personas[1]
    applicant, clerk, agent = _fresh_applicant(), personas["atendente"], personas["agente"]
    open_call("taxi")
    body = payload("taxi")
    first = api(applicant).post("/api/v1/applications/", body, format="json")
    second = api(applicant).post("/api/v1/applications/", body, format="json")
    # Two drafts are allowed (a draft is not a request yet, and an outside client may well send
    # the same data again); only one can be protocolled: the other is refused by the one-grant rule.
    assert first.status_code == 201 and second.status_code == 201
    for item in first.json()["required_documents"]:
        api(applicant).post(f"/api/v1/applications/{first.json()['id']}/documents/",
                            {"type": item["code"], "file": pdf_file()}, format="multipart")
    assert api(applicant).post(f"/api/v1/applications/{first.json()['id']}/submit/").status_code == 200
    refused = api(applicant).post(f"/api/v1/applications/{second.json()['id']}/submit/")
    _shape(refused, "protocolar o segundo rascunho")
    assert refused.status_code == 400 and "grant.max_per_holder" in {r["code"] for r in refused.json()["rules"]}

    applicant = _fresh_applicant()

    app = create_and_submit(api, applicant)
    again = api(applicant).post(f"/api/v1/applications/{app['id']}/submit/")
    _shape(again, "protocolar duas vezes")
    assert again.status_code in (200, 409)
    assert Application.objects.get(pk=app["id"]).protocol == app["protocol"]

    review_all_and_inspect(api, clerk, agent, app["id"])
    ok = api(clerk).post(f"/api/v1/applications/{app['id']}/approve/")
    assert ok.status_code == 200, ok.content
    twice = api(clerk).post(f"/api/v1/applications/{app['id']}/approve/")
    _shape(twice, "deferir duas vezes")
    assert twice.status_code == 409
    assert Authorization.objects.filter(holder=applicant).count() == 1
    reject = api(clerk).post(f"/api/v1/applications/{app['id']}/reject/", {"reason": "tarde"}, format="json")
    _shape(reject, "indeferir depois de deferir")
    assert reject.status_code == 409


def test_double_submit_infraction_flow(world_and_personas, api):
    from datetime import timedelta

    from enforcement.models import Infraction
    from tests.factories import VehicleFactory, issue_authorization

    personas = world_and_personas[1]
    applicant, clerk, agent, judge = (_fresh_applicant(), personas["atendente"], personas["agente"],
                                      personas["julgador"])
    pack = regulation_current()
    vehicle = VehicleFactory(owner=applicant)
    issue_authorization(holder=applicant, vehicle=vehicle, modality="taxi", valid_from=pack.today() - timedelta(days=200))
    code = api(agent).get("/api/v1/infractions/catalogue/").json()
    code = (code[0] if isinstance(code, list) else code["results"][0])["code"]
    body = {"plate": vehicle.plate, "infraction_code": code,
            "occurred_at": enforcement_at(pack.today()),
            "location": "Praça", "description": "Constatado.", "driver_cpf": "", "alvara_retained": False,
            "idempotency_key": "envio-1"}
    first = api(agent).post("/api/v1/infractions/", body, format="json")
    second = api(agent).post("/api/v1/infractions/", body, format="json")
    assert first.status_code == 201, first.content
    _shape(second, "auto duas vezes")
    assert Infraction.objects.filter(plate=vehicle.plate).count() == 1
    pk = first.json()["id"]
    for _ in range(2):
        r = api(clerk).post(f"/api/v1/infractions/{pk}/notify/", {"acknowledged_on": pack.today().isoformat()},
                            format="json")
        _shape(r, "notificar")
    d1 = api(applicant).post(f"/api/v1/infractions/{pk}/defense/", {"text": "Defesa."}, format="json")
    d2 = api(applicant).post(f"/api/v1/infractions/{pk}/defense/", {"text": "Defesa."}, format="json")
    assert d1.status_code == 201, d1.content
    _shape(d2, "defesa duas vezes")
    assert d2.status_code in (200, 201, 409)
    j1 = api(judge).post(f"/api/v1/infractions/{pk}/judge/", {"upheld": True, "grounds": "Ok."}, format="json")
    j2 = api(judge).post(f"/api/v1/infractions/{pk}/judge/", {"upheld": False, "grounds": "Ok."}, format="json")
    assert j1.status_code == 200, j1.content
    _shape(j2, "julgar duas vezes")
    assert j2.status_code == 409
    assert Infraction.objects.get(pk=pk).status == j1.json()["status"]


def test_double_sign_up(world_and_personas, api):
    from django.contrib.auth import get_user_model
    from validate_docbr import CPF

    body = {**TEMPLATES["api-signup"], "cpf": CPF().generate(), "email": "dupla@example.org"}
    assert api().post("/api/v1/accounts/", body, format="json").status_code == 201
    again = api().post("/api/v1/accounts/", body, format="json")
    _shape(again, "cadastro duas vezes")
    assert again.status_code in (400, 409)
    assert get_user_model().objects.filter(cpf=body["cpf"]).count() == 1


def regulation_current():
    from portal import regulation

    return regulation.current()


HTML_GET_ROWS = [r for r in all_rows() if not r.api and r.method == "get" and _actor(r)
                 and not r.name.endswith("pdf") and "file" not in r.name]
HTML_QUERIES = (  # several absurd parameters at once: each page reads the ones it knows
    "?page=-1&km=1e309&date=2026-02-30&at=garbage&modality=zzz&year=99999999999999999999&student=talvez",
    "?page=abc&km=NaN&date=30/02/2026&line=99999999999999999999&zone=zzz&waiting_minutes=1e9&status=zzz&status=y",
    "?page=99999999999999999999&km=-5&date=9999-12-31&kind=zzz&q=" + "x" * 3000,
    "?km=" + "9" * 400 + "&modality=&page_size=abc",
    "?q=%00",
)


@pytest.mark.parametrize("row", HTML_GET_ROWS, ids=[r.name for r in HTML_GET_ROWS])
def test_html_page_query_fuzz(row, world_and_personas, web):
    world, personas = world_and_personas
    client = web(personas[_actor(row)])
    url = reverse(row.name, kwargs=row.kwargs(world) if row.kwargs else None)
    for query in HTML_QUERIES:
        response = client.get(url + query)
        assert response.status_code < 500, f"{url + query[:80]}: {response.status_code}"


def test_html_forms_keep_values_and_show_field_errors(world_and_personas, web):
    """The main forms re-render with the error at the field and what was typed kept."""
    signup = web(None).post(reverse("signup"), {"name": "Maria Digitada", "cpf": "123", "birth_date": "30/02/2026",
                                                "email": "maria@example.org", "phone": "51999990000",
                                                "password1": "x", "password2": "y"})
    html = signup.content.decode()
    assert signup.status_code in (200, 400)
    assert "Maria Digitada" in html and "maria@example.org" in html
    assert "is-invalid" in html or "invalid-feedback" in html
    calc = web(None).get(reverse("tariffs-calculator") + "?modality=taxi&km=1e309&date=2026-02-30")
    html = calc.content.decode()
    assert calc.status_code in (200, 400)
    assert "1e309" in html and ("is-invalid" in html or "invalid-feedback" in html)
    login = web(None).post(reverse("login"), {"username": "ninguem-digitado", "password": "x" * 5000})
    assert login.status_code in (200, 400) and "ninguem-digitado" in login.content.decode()
