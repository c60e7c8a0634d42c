"""Verification, open data, quotas, stands and statistics: public, cacheable, never a CPF."""

import codecs
import csv
import io
from datetime import date, timedelta

import pytest
from django.core.management import call_command

from licensing.grants.services import authorization_set_status
from portal import regulation
from tests.factories import UserFactory, VehicleFactory, issue_authorization


@pytest.fixture
def holder(db):
    return UserFactory(name="João Gonçalves Araújo")


@pytest.fixture
def granted(alegre, holder):
    auth, alvaras = issue_authorization(holder=holder)
    return auth, alvaras


def _no_cpf(text: str, user) -> None:
    cpf = user.cpf
    assert cpf not in text.replace(".", "").replace("-", "")
    assert f"{cpf[:3]}.{cpf[3:6]}.{cpf[6:9]}-{cpf[9:]}" not in text


def test_verify_api_shows_the_document_and_never_a_cpf(granted, holder, client):
    auth, _ = granted
    r = client.get(f"/api/v1/verify/{auth.verification_code}/")
    assert r.status_code == 200
    body = r.json()
    assert body["valid"] is True and body["status"] == "active"
    assert body["number"] == auth.number and body["holder"] == "João Gonçalves Araújo"
    assert body["plate"] == auth.vehicle.display_plate and body["modality"] == "taxi"
    assert body["valid_until"] == auth.valid_until.isoformat() and body["document"] == auth.act_name
    _no_cpf(r.content.decode(), holder)
    assert "public" in r["Cache-Control"]


def test_verify_api_alvara_code(itagiba, holder, client):
    _auth, alvaras = issue_authorization(holder=holder)
    assert alvaras
    body = client.get(f"/api/v1/verify/{alvaras[0].verification_code}/").json()
    assert (
        body["valid"] is True and body["kind"] == "alvara" and body["number"] == alvaras[0].number
    )


def test_unknown_code_is_404_and_not_valid(alegre, client):
    r = client.get("/api/v1/verify/ZZZZ-ZZZZ-ZZZZ/")
    assert r.status_code == 404 and r.json() == {"valid": False}
    page = client.get("/verificar/ZZZZ-ZZZZ-ZZZZ/")
    assert page.status_code == 404 and "Nenhum documento encontrado" in page.content.decode()


def test_suspended_shows_suspended_and_not_valid(granted, client, admin_user):
    auth, _ = granted
    authorization_set_status(
        actor=admin_user,
        authorization=auth,
        to="suspended",
        reason="Penalidade",
        suspended_until=date.today() + timedelta(days=10),
    )
    body = client.get(f"/api/v1/verify/{auth.verification_code}/").json()
    assert body["status"] == "suspended" and body["valid"] is False
    page = client.get(f"/verificar/{auth.verification_code}/").content.decode()
    assert "suspensa" in page and "Documento não válido" in page


def test_past_validity_shows_expired(alegre, holder, client):
    auth, _ = issue_authorization(holder=holder, valid_from=date(2000, 1, 1))
    body = client.get(f"/api/v1/verify/{auth.verification_code}/").json()
    assert body["status"] == "expired" and body["valid"] is False


def test_verify_page_by_code_number_and_plate_never_shows_cpf(granted, holder, client):
    auth, _ = granted
    for q in (
        auth.verification_code,
        auth.verification_code.lower().replace("-", ""),
        auth.number,
        auth.vehicle.plate,
        auth.vehicle.display_plate,
    ):
        r = client.get("/verificar/", {"q": q})
        body = r.content.decode()
        assert r.status_code == 200, q
        assert (
            "Documento válido" in body and "João Gonçalves Araújo" in body and auth.number in body
        )
        _no_cpf(body, holder)
    assert client.get("/verificar/", {"q": "AAA0A00"}).status_code == 404
    r = client.get("/verificar/", {"q": ""})
    assert r.status_code == 400 and 'id="id_q-error"' in r.content.decode()


def test_a_holder_without_name_is_never_shown_by_cpf(alegre, client):
    nameless = UserFactory(name="")
    auth, _ = issue_authorization(holder=nameless)
    r = client.get(f"/api/v1/verify/{auth.verification_code}/")
    _no_cpf(r.content.decode(), nameless)


def test_verification_is_throttled(granted, client, settings, monkeypatch):
    from rest_framework.throttling import ScopedRateThrottle

    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"verify": "3/min"})
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "verify": "3/min",
        },
    }
    # Fixed windows: four requests that straddle a window's edge would count in two windows,
    # so the clock stands still for the test (the edge itself is tested below).
    import types

    import portal.public.http
    import portal.throttling

    still = types.SimpleNamespace(time=lambda: 1_800_000_030.0)
    monkeypatch.setattr(portal.throttling, "time", still)
    monkeypatch.setattr(portal.public.http, "time", still)
    auth, _ = granted
    codes = [client.get(f"/api/v1/verify/{auth.verification_code}/").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    pages = [
        client.get(f"/verificar/{code}/").status_code
        for code in ("AAAA-AAAA-AAA1", "AAAA-AAAA-AAA2", "AAAA-AAAA-AAA3", "AAAA-AAAA-AAA4")
    ]
    assert pages == [404, 404, 404, 429]  # enumerating codes is stopped
    searches = [client.get("/verificar/", {"q": f"XYZ{i}"}).status_code for i in range(4)]
    assert searches == [429] * 4


def test_quotas_floor_population_over_inhabitants_per_slot(db, client):
    regulation.load_pack("alegre", population=800 * 37 - 1)
    issue_authorization()
    quotas = {q["modality"]: q for q in client.get("/api/v1/quotas/").json()}
    taxi = quotas["taxi"]
    assert taxi["population"] == 29599 and taxi["inhabitants_per_slot"] == 800
    assert taxi["slots"] == 36 and taxi["active"] == 1 and taxi["available"] == 35
    assert "art. 10" in taxi["legal_basis"]
    assert "mototaxi" not in quotas  # Lei 3.703/2022, art. 29, parágrafo único: no slots before the decree
    from tests.factories import record_modality_decree as record_decree

    record_decree("mototaxi")
    quotas = {q["modality"]: q for q in client.get("/api/v1/quotas/").json()}
    assert quotas["mototaxi"]["slots"] == 29599 // 3000
    regulation.load_pack("alegre", population=800 * 37)
    assert {q["modality"]: q for q in client.get("/api/v1/quotas/").json()}["taxi"]["slots"] == 37


def test_quotas_fixed_slots(itagiba, client):
    quotas = {q["modality"]: q for q in client.get("/api/v1/quotas/").json()}
    assert quotas["mototaxi"]["slots"] == 15 and quotas["mototaxi"]["inhabitants_per_slot"] is None
    assert quotas["taxi"]["slots"] == itagiba.population // 1000
    page = client.get("/transparencia/vagas/").content.decode()
    assert itagiba.population_source in page


def test_open_data_json_is_paginated(granted, client):
    body = client.get("/api/v1/authorizations/").json()
    assert body["count"] == 1
    row = body["results"][0]
    assert {"number", "modality", "holder", "plate", "valid_until", "status"} <= set(row)
    assert row["holder"] == "João Gonçalves Araújo"


def _body(response) -> bytes:
    """The CSV export is streamed (constant memory, issue 20)."""
    return b"".join(response.streaming_content) if response.streaming else response.content


def test_open_data_csv_has_bom_and_accents(granted, holder, client):
    r = client.get("/api/v1/authorizations/", {"format": "csv"})
    assert r.status_code == 200 and r["Content-Type"].startswith("text/csv") and r.streaming
    body = _body(r)
    assert body.startswith(codecs.BOM_UTF8)
    rows = list(csv.DictReader(io.StringIO(body.decode("utf-8-sig"))))
    assert (
        rows[0]["holder_name"] == "João Gonçalves Araújo" and rows[0]["number"] == granted[0].number
    )
    _no_cpf(body.decode("utf-8-sig"), holder)


def test_only_current_grants_are_listed(alegre, client, admin_user):
    auth, _ = issue_authorization()
    gone, _ = issue_authorization()
    authorization_set_status(actor=admin_user, authorization=gone, to="cassada", reason="Cassação")
    numbers = [r["number"] for r in client.get("/api/v1/authorizations/").json()["results"]]
    assert numbers == [auth.number]
    page = client.get("/transparencia/").content.decode()
    assert auth.number in page and gone.number not in page


def test_transparency_search(alegre, client):
    a, _ = issue_authorization(holder=UserFactory(name="Maria Souza"))
    b, _ = issue_authorization(
        holder=UserFactory(name="Pedro Lima"), vehicle=VehicleFactory(plate="QRS1T23")
    )
    assert "Maria Souza" in client.get("/transparencia/", {"q": "maria"}).content.decode()
    assert "Maria Souza" not in client.get("/transparencia/", {"q": "QRS-1T23"}).content.decode()
    assert b.number in client.get("/transparencia/", {"q": "qrs1t23"}).content.decode()
    assert a.number in client.get("/api/v1/authorizations/", {"q": "Souza"}).content.decode()


@pytest.mark.parametrize("rows", [1, 30])
def test_public_lists_use_a_constant_number_of_queries(
    alegre, client, django_assert_num_queries, django_assert_max_num_queries, rows
):
    for _ in range(rows):
        issue_authorization()
    client.get("/transparencia/?warm=1")  # warm the pack cache
    with django_assert_max_num_queries(4):  # fingerprint, count, ids of the page, rows of the page
        assert client.get("/transparencia/").status_code == 200
    with django_assert_max_num_queries(1):  # same data: the rendered page comes from the cache
        assert client.get("/transparencia/").status_code == 200
    with django_assert_max_num_queries(3):  # count (kept while the data are unchanged), ids, rows
        assert client.get("/api/v1/authorizations/").status_code == 200
    with django_assert_num_queries(1):  # streamed: the query runs while the body is read
        assert _body(client.get("/api/v1/authorizations/", {"format": "csv"})).count(b"\r\n") == rows + 1
    with django_assert_num_queries(1):  # one count per modality in force (mototáxi waits for its decree)
        assert client.get("/api/v1/quotas/").status_code == 200


def test_verify_uses_a_constant_number_of_queries(
    itagiba, holder, client, django_assert_max_num_queries
):
    auth, alvaras = issue_authorization(holder=holder)
    _, warm = issue_authorization()
    client.get(f"/verificar/{auth.verification_code}/")
    client.get(f"/api/v1/verify/{warm[0].verification_code}/")  # the session's statements prepared
    # each answer also reads the authorized drivers and the issued PDF's hash: +2, whatever the data;
    # the act's answer also reads its acts of amendment (what changed since it was issued): +1
    with django_assert_max_num_queries(4):
        assert client.get(f"/api/v1/verify/{auth.verification_code}/").status_code == 200
    # an alvará: the act's row lookup misses, then the alvará's row (its grant, driver, vehicle,
    # auxiliaries and stored PDF in it)
    with django_assert_max_num_queries(2):
        assert client.get(f"/api/v1/verify/{alvaras[0].verification_code}/").status_code == 200
    with django_assert_max_num_queries(3):  # fingerprint + the act's lookup, then the alvará's
        assert client.get(f"/verificar/{alvaras[0].verification_code}/").status_code == 200
    with django_assert_max_num_queries(1):  # unchanged data: the page comes from the cache
        assert client.get(f"/verificar/{alvaras[0].verification_code}/").status_code == 200


def test_stands_page_lists_the_pack_stands(alegre, client):
    response = client.get("/transparencia/pontos/")
    assert response.status_code == 302
    body = client.get(response["Location"]).content.decode()
    for stand in alegre.stands:
        assert stand["name"] in body


def test_statistics_charts_are_accessible(alegre, client):
    issue_authorization()
    body = client.get("/transparencia/estatisticas/").content.decode()
    assert body.count("<svg") == 2 and body.count('role="img"') == 2 and "aria-label=" in body
    assert body.count("<details>") == 2 and "protocolo" in body
    assert 'style="' not in body


def test_home_links_to_calculator_verification_and_transparency(db, client):
    call_command("load_regulation", "alegre", stdout=io.StringIO())
    body = client.get("/").content.decode()
    assert "/tarifas/" in body and "/verificar/" in body and "/transparencia/" in body


def test_cached_public_pages_follow_every_change(granted, client, admin_user):
    auth, _ = granted
    url = f"/verificar/{auth.verification_code}/"
    assert "Documento válido" in client.get(url).content.decode()
    authorization_set_status(
        actor=admin_user,
        authorization=auth,
        to="suspended",
        reason="Penalidade",
        suspended_until=date.today() + timedelta(days=5),
    )
    assert "suspensa" in client.get(url).content.decode()
    assert auth.number in client.get("/transparencia/").content.decode()
    other, _ = issue_authorization()
    assert other.number in client.get("/transparencia/").content.decode()
    authorization_set_status(actor=admin_user, authorization=other, to="cassada", reason="Cassação")
    assert other.number not in client.get("/transparencia/").content.decode()


def test_signed_in_visitors_never_get_a_cached_page(granted, client, web, judge):
    auth, _ = granted
    url = f"/verificar/{auth.verification_code}/"
    client.get(url)
    r = web(judge).get(url)
    assert judge.name in r.content.decode() and "private" in r["Cache-Control"]


def test_statistics_show_autos_by_article_and_days_to_grant(itagiba, client, api, applicant, clerk, agent):
    from datetime import timedelta

    from django.utils import timezone

    from enforcement.models import Infraction
    from licensing.models import Application
    from tests.licensing.applications.helpers import (
        create_and_submit,
        open_call,
        review_all_and_inspect,
    )

    open_call("taxi")
    app = create_and_submit(api, applicant)
    review_all_and_inspect(api, clerk, agent, app["id"])
    assert api(clerk).post(f"/api/v1/applications/{app['id']}/approve/").status_code == 200
    Application.objects.filter(pk=app["id"]).update(submitted_at=timezone.now() - timedelta(days=12))
    code = itagiba.infractions("taxi")[0]["code"]
    r = api(agent).post("/api/v1/infractions/", {"plate": "ZZZ9Z99", "infraction_code": code,
                                                "occurred_at": timezone.now().isoformat(), "location": "Centro",
                                                "description": "Clandestino", "alvara_retained": False}, format="json")
    assert r.status_code == 201 and Infraction.objects.count() == 1
    body = client.get("/transparencia/estatisticas/").content.decode()
    assert "Autos de infração por mês" in body and f"art. {code.split('-')[0]}" in body
    assert "<td>12.0</td>" in body or "<td>12,0</td>" in body


def test_transparency_shows_the_stand(alegre, client, clerk):
    from licensing.models import StandAssignment, TaxiStand
    from tests.factories import issue_authorization

    auth, _ = issue_authorization()
    stand = TaxiStand.objects.first() or TaxiStand.objects.create(name="Ponto da Rodoviária", capacity=3)
    StandAssignment.objects.create(stand=stand, authorization=auth, status="active", registered_on=alegre.today())
    assert stand.name in client.get("/transparencia/").content.decode()
    csv_text = _body(client.get("/api/v1/authorizations/", {"format": "csv"})).decode("utf-8-sig")
    assert csv_text.splitlines()[0].endswith(",stand") and stand.name in csv_text


def test_an_auto_de_infracao_is_verifiable_by_its_code(itagiba, client, api, agent, judge):
    from django.utils import timezone

    from enforcement.models import Infraction

    code = itagiba.infractions("taxi")[0]["code"]
    r = api(agent).post("/api/v1/infractions/", {"plate": "ZZZ9Z99", "infraction_code": code,
                                                "occurred_at": timezone.now().isoformat(), "location": "Centro",
                                                "description": "Clandestino", "alvara_retained": False}, format="json")
    inf = Infraction.objects.get(pk=r.json()["id"])
    assert inf.verification_code
    body = client.get(f"/api/v1/verify/{inf.verification_code}/").json()
    assert body["valid"] is True and body["number"] == inf.number and body["kind"] == "infraction"
    assert body["holder"] == "" and body["valid_until"] is None
    page = client.get(f"/verificar/{inf.verification_code}/").content.decode()
    assert "Auto de infração autêntico" in page and inf.number in page
    api(judge).post(f"/api/v1/infractions/{inf.pk}/cancel/", {"reason": "Placa lida errado."}, format="json")
    assert client.get(f"/api/v1/verify/{inf.verification_code}/").json()["valid"] is False


@pytest.mark.django_db
def test_unknown_api_paths_answer_in_json(client, alegre):
    r = client.get("/api/v1/verify/001/2026/")  # a number with a slash is not a code
    assert r.status_code == 404 and r.json() == {"valid": False}
    r = client.get("/api/v1/nao-existe/")
    assert r.status_code == 404 and r.json()["errors"]["detail"]
    assert client.get("/pagina-que-nao-existe/")["Content-Type"].startswith("text/html")


def test_stands_page_belongs_to_the_transparency_section(alegre, client):
    """Breadcrumbs and the section's tabs, the stands tab marked as the current page."""
    body = client.get(client.get("/transparencia/pontos/")["Location"]).content.decode()
    trail = body[body.index('aria-label="Trilha de navegação"'):body.index('aria-label="Dados públicos"')]
    assert 'href="/transparencia/">Transparência</a>' in trail and 'aria-current="page">Pontos de táxi</li>' in trail
    tabs = body[body.index('aria-label="Dados públicos"'):]
    tabs = tabs[:tabs.index("</nav>")]
    assert 'href="/transparencia/vagas/"' in tabs and 'href="/transparencia/estatisticas/"' in tabs
    assert 'active" aria-current="page" href="/pontos/">Pontos de táxi' in tabs
    for url, label in (("/transparencia/vagas/", "Vagas"), ("/transparencia/estatisticas/", "Estatísticas")):
        page = client.get(url).content.decode()
        assert f'aria-current="page">{label}</li>' in page and 'href="/transparencia/">Transparência</a>' in page


def test_quotas_page_writes_population_the_brazilian_way_and_the_year_once(itagiba, client):
    page = client.get("/transparencia/vagas/").content.decode()
    assert "15.310" in page and "15310" not in page
    assert "1.000" in page  # inhabitants per taxi slot
    assert "IBGE, Censo Demográfico 2022<" in page and "2022 (2022)" not in page
    regulation.load_pack("itagiba", population=40000)  # set by the administrator: the year says when
    page = client.get("/transparencia/vagas/").content.decode()
    assert "40.000" in page and f"informada pelo administrador ({regulation.current().population_year})" in page


@pytest.mark.parametrize("value,shown", [(15310, "15.310"), (999, "999"), (1000, "1.000"), (-1234567, "-1.234.567"),
                                         ("29177", "29.177"), (None, ""), ("—", "—")])
def test_number_filter_groups_thousands_with_a_dot(value, shown):
    from portal.templatetags.portal_tags import money, number

    assert number(value) == shown
    assert money(1234567.891) == "R$ 1.234.567,89"  # money groups the same way


@pytest.mark.parametrize("name", ["=1+1", "+55 HYPERLINK", "-2+3", "@SUM(A1)", "\tTab", "\rCR"])
def test_open_data_csv_neutralises_formula_cells(alegre, client, name):
    holder = UserFactory(name=name)
    issue_authorization(holder=holder, vehicle=VehicleFactory(owner=holder))
    r = client.get("/api/v1/authorizations/", {"format": "csv"})
    rows = list(csv.DictReader(io.StringIO(_body(r).decode("utf-8-sig"))))
    cell = rows[0]["holder_name"]
    assert cell.startswith("'") and cell[1:].strip() == name.strip(), cell


def test_open_data_csv_with_semicolon_for_brazilian_spreadsheets(granted, client):
    text = _body(client.get("/api/v1/authorizations/", {"format": "csv", "sep": ";"})).decode("utf-8-sig")
    header = text.splitlines()[0]
    assert header.startswith("number;modality;holder_name;")
    rows = list(csv.DictReader(io.StringIO(text), delimiter=";"))
    assert rows[0]["number"] == granted[0].number
    # anything else keeps the comma
    assert _body(client.get("/api/v1/authorizations/", {"format": "csv", "sep": "|"})).decode(
        "utf-8-sig").startswith("number,modality,")


def test_open_data_csv_is_the_same_rows_as_the_json_pages(granted, client):
    """Streamed from values() rows: the same fields and values as the paginated JSON."""
    for i in range(3):
        holder = UserFactory(name=f"Pessoa {i}")
        issue_authorization(holder=holder, vehicle=VehicleFactory(owner=holder))
    page = client.get("/api/v1/authorizations/").json()
    rows = list(csv.DictReader(io.StringIO(_body(client.get("/api/v1/authorizations/", {"format": "csv"}))
                                          .decode("utf-8-sig"))))
    assert page["count"] == len(rows) == 4
    for row, item in zip(rows, page["results"], strict=True):
        assert row == {k: str(item[k]) for k in row}


def test_verification_throttle_counts_in_fixed_windows(granted, client, settings, monkeypatch):
    """The window's last second and the next window's first: the count starts again."""
    import types

    import portal.throttling

    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "verify": "2/min",
        },
    }
    from rest_framework.throttling import ScopedRateThrottle

    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"verify": "2/min"})
    clock = {"now": 1_800_000_059.0}  # a multiple of 60 plus 59 s: the window's last second
    monkeypatch.setattr(portal.throttling, "time", types.SimpleNamespace(time=lambda: clock["now"]))
    auth, _ = granted
    url = f"/api/v1/verify/{auth.verification_code}/"
    assert [client.get(url).status_code for _ in range(3)] == [200, 200, 429]
    clock["now"] = 1_800_000_060.0  # the next window
    assert [client.get(url).status_code for _ in range(3)] == [200, 200, 429]
