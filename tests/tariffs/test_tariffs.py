"""Tariff tables (seed, publish, history) and the fare API / calculator page."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management import call_command

from portal.exceptions import RuleViolations
from portal.models import AuditEntry
from tariffs.models import TariffTable
from tariffs.services import tariff_publish, tariff_seed_from_pack

QUOTE = "/api/v1/fares/quote/"
TARIFFS = "/api/v1/fares/tariffs/"


def _load(slug):
    from portal import regulation

    call_command("load_regulation", slug, stdout=__import__("io").StringIO())
    regulation.invalidate()
    return regulation.current()


@pytest.fixture
def alegre_db(db):
    return _load("alegre")


@pytest.fixture
def itagiba_db(db):
    return _load("itagiba")


def test_load_regulation_stores_the_pack_tables_once(alegre_db):
    assert (
        TariffTable.objects.filter(municipality_id=alegre_db.municipality_id).count()
        == len(alegre_db.tariffs)
        == 2
    )
    _load("alegre")
    assert tariff_seed_from_pack(pack=alegre_db) == 0
    assert TariffTable.objects.count() == 2


def test_a_table_is_never_edited_nor_deleted(alegre_db):
    table = TariffTable.objects.first()
    table.decree = "outro"
    with pytest.raises(ValidationError):
        table.save()
    with pytest.raises(ValidationError):
        TariffTable.objects.update(decree="x")
    with pytest.raises(ValidationError):
        table.delete()


@pytest.mark.parametrize(
    "km,total",
    [
        ("0", "14.99"),
        ("10", "30.99"),
        ("1,5", "17.39"),
        ("0.003", "14.99"),
        ("0.004", "15.00"),
        ("1000", "1614.99"),
    ],
)
def test_alegre_quote(alegre_db, client, km, total):
    r = client.get(
        QUOTE,
        {
            "modality": "taxi",
            "km": km,
            "at": "2026-11-29T22:30:00-03:00",
            "waiting_minutes": 0,
            "student": "false",
        },
    )
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["total"] == total and body["currency"] == "BRL"
    assert body["tariff"]["decree"] == "Lei nº 3.703/2022, Anexo I"
    assert body["tariff"]["effective_from"] == "2022-05-18"
    assert "art. 15" in body["legal_basis"]
    assert [set(c) for c in body["components"]] == [{"label", "amount"}] * 2
    assert sum(Decimal(c["amount"]) for c in body["components"]) == Decimal(total)
    assert "public" in r["Cache-Control"] and "max-age" in r["Cache-Control"]


@pytest.mark.parametrize(
    "km", [None, "", "-1", "-0.001", "abc", "1000.001", "1e9", "NaN", "Infinity"]
)
def test_quote_refuses_bad_km_naming_the_field(alegre_db, client, km):
    params = {"modality": "taxi"} if km is None else {"modality": "taxi", "km": km}
    r = client.get(QUOTE, params)
    assert r.status_code == 400
    assert r.json()["errors"]["km"]


def test_quote_refuses_bad_date_and_waiting(alegre_db, client):
    r = client.get(QUOTE, {"modality": "taxi", "km": "1", "at": "ontem", "waiting_minutes": "x"})
    assert r.status_code == 400 and set(r.json()["errors"]) == {"at", "waiting_minutes"}
    assert client.get(QUOTE, {"modality": "metro", "km": "1"}).status_code == 400


@pytest.mark.parametrize(
    "at,flag,total",
    [
        ("2026-11-25T20:59:00-03:00", 1, "36.00"),
        ("2026-11-25T21:00:00-03:00", 2, "42.00"),
        ("2026-11-26T05:59:00-03:00", 2, "42.00"),
        ("2026-11-26T06:00:00-03:00", 1, "36.00"),
        # 23:59 UTC is 20:59 in the municipality (America/Bahia): bandeira 1
        ("2026-11-25T23:59:00+00:00", 1, "36.00"),
    ],
)
def test_itagiba_flags_by_local_time(itagiba_db, client, at, flag, total):
    r = client.get(QUOTE, {"modality": "taxi", "km": "10", "at": at})
    assert r.status_code == 200, r.content
    assert r.json()["flag"] == flag and r.json()["total"] == total


def test_itagiba_waiting_and_mototaxi_maximum(itagiba_db, client):
    r = client.get(
        QUOTE,
        {"modality": "taxi", "km": "0", "at": "2026-11-25T10:00:00-03:00", "waiting_minutes": 30},
    )
    assert r.json()["total"] == "21.00"
    r = client.get(QUOTE, {"modality": "mototaxi", "km": "3", "at": "2026-11-25T10:00:00-03:00"})
    assert r.json()["total"] == "6.00" and r.json()["is_maximum"] is True
    r = client.get(QUOTE, {"modality": "mototaxi", "km": "21"})
    assert r.status_code == 400 and r.json()["errors"]["km"]


def test_arapora_units(db, client):
    _load("arapora")
    r = client.get(QUOTE, {"modality": "taxi", "km": "10", "at": "2026-11-25T10:00:00-03:00"})
    assert r.json()["total"] == "36.00"


def test_bus_student_pays_half(alegre_db, client):
    full = client.get(
        QUOTE, {"modality": "bus", "km": "5", "student": "false", "at": "2026-02-01T08:00:00-03:00"}
    )
    half = client.get(
        QUOTE, {"modality": "bus", "km": "5", "student": "true", "at": "2026-02-01T08:00:00-03:00"}
    )
    assert full.json()["total"] == "4.50" and half.json()["total"] == "2.25"
    rural = client.get(
        QUOTE,
        {"modality": "bus", "zone": "rural", "student": "true", "at": "2026-02-01T08:00:00-03:00"},
    )
    assert rural.json()["total"] == "3.25"
    before = client.get(QUOTE, {"modality": "bus", "km": "1", "at": "2025-01-12T08:00:00-03:00"})
    assert before.status_code == 400 and before.json()["errors"]["at"]


@pytest.mark.parametrize("value,status", [("true", 200), ("false", 200), ("1", 200), ("", 200),
                                          ("talvez", 400), ("2", 400)])
def test_bus_student_flag_must_be_a_boolean(alegre_db, client, value, status):
    r = client.get(QUOTE, {"modality": "bus", "student": value, "at": "2026-02-01T08:00:00-03:00"})
    assert r.status_code == status, r.content
    if status == 400:
        assert r.json()["errors"]["student"]


def test_bus_student_fare_is_half_the_fare_rounded_half_up(alegre_db, admin_user, client):
    """Lei 3.447/2017, art. 4, parágrafo único: the student's fare is 50 % of the fare."""
    today = alegre_db.today()
    _publish(admin_user, alegre_db, modality="bus", structure="zones", decree="Decreto nº 11/2026",
             effective_from=today + timedelta(days=10),
             components={"urban": "4.75", "rural": "4.53", "student_discount": "0.50"},
             legal_basis="Lei 3.447/2017, art. 17")
    at = f"{(today + timedelta(days=10)).isoformat()}T08:00:00-03:00"
    urban = client.get(QUOTE, {"modality": "bus", "student": "true", "at": at}).json()
    assert urban["total"] == "2.38"  # 4.75 × 50 % = 2.375 → 2.38
    assert [c["amount"] for c in urban["components"]] == ["4.75", "-2.37"]
    rural = client.get(QUOTE, {"modality": "bus", "student": "true", "zone": "rural", "at": at}).json()
    assert rural["total"] == "2.27"  # 4.53 × 50 % = 2.265 → 2.27


def test_tariffs_endpoint(alegre_db, client):
    r = client.get(TARIFFS, {"modality": "taxi"})
    body = r.json()
    assert {"modality", "decree", "effective_from", "components", "legal_basis"} <= set(body)
    assert body["components"] == {"base": "14.99", "per_km": "1.60"}
    assert body["adjustment_month"]["month"] == 11
    assert client.get(TARIFFS, {"modality": "mototaxi"}).status_code == 404
    assert client.get(TARIFFS, {"modality": "x"}).status_code == 400
    assert {t["modality"] for t in client.get(TARIFFS).json()} == {"taxi", "bus"}


def _publish(actor, pack, **kw):
    data = {
        "modality": "taxi",
        "decree": "Decreto nº 10/2026",
        "published_on": pack.today(),
        "effective_from": pack.today() + timedelta(days=1),
        "structure": "base_plus_km",
        "components": {"base": "16.00", "per_km": "2.00"},
        "legal_basis": "Lei 3.703/2022, art. 15",
    }
    data.update(kw)
    return tariff_publish(actor=actor, **data)


def test_a_table_effective_tomorrow_is_not_used_today(alegre_db, admin_user, client):
    table = _publish(admin_user, alegre_db)
    today = alegre_db.today()
    r = client.get(
        QUOTE, {"modality": "taxi", "km": "10", "at": f"{today.isoformat()}T23:59:00-03:00"}
    )
    assert r.json()["total"] == "30.99"
    tomorrow = today + timedelta(days=1)
    r = client.get(
        QUOTE, {"modality": "taxi", "km": "10", "at": f"{tomorrow.isoformat()}T00:00:00-03:00"}
    )
    assert r.json()["total"] == "36.00" and r.json()["tariff"]["decree"] == table.decree
    # a past date still uses the table then in force
    r = client.get(QUOTE, {"modality": "taxi", "km": "10", "at": "2023-01-01T10:00:00-03:00"})
    assert r.json()["tariff"]["effective_from"] == "2022-05-18"
    assert AuditEntry.objects.filter(action="tariff_published").count() == 1
    assert TariffTable.objects.filter(modality="taxi").count() == 2  # history kept


def test_only_admin_or_julgador_publishes(alegre_db, clerk, judge):
    with pytest.raises(PermissionDenied):
        _publish(clerk, alegre_db)
    assert _publish(judge, alegre_db).created_by == judge


def test_effective_date_rules_on_publish(alegre_db, admin_user):
    today = alegre_db.today()
    with pytest.raises(RuleViolations) as exc:
        _publish(
            admin_user,
            alegre_db,
            published_on=today + timedelta(days=2),
            effective_from=today + timedelta(days=1),
        )
    assert exc.value.violations[0].field == "effective_from"
    with pytest.raises(RuleViolations) as exc:
        _publish(
            admin_user,
            alegre_db,
            modality="bus",
            structure="zones",
            components={"urban": "5.00"},
            effective_from=today + timedelta(days=9),
        )
    assert "art. 17" in exc.value.violations[0].legal_basis
    assert (
        _publish(
            admin_user,
            alegre_db,
            modality="bus",
            structure="zones",
            components={"urban": "5.00"},
            effective_from=today + timedelta(days=10),
        ).modality
        == "bus"
    )
    with pytest.raises(RuleViolations):
        _publish(
            admin_user,
            alegre_db,
            modality="mototaxi",
            structure="base_plus_km",
            components={"base": "x"},
        )


def test_admin_page_publishes_and_shows_errors(alegre_db, admin_user, web):
    c = web(admin_user)
    today = alegre_db.today()
    bad = c.post(
        "/tarifas/publicar/",
        {
            "modality": "taxi",
            "decree": "D 1",
            "published_on": today.isoformat(),
            "effective_from": (today - timedelta(days=1)).isoformat(),
            "structure": "base_plus_km",
            "base_plus_km__base": "15,00",
            "base_plus_km__per_km": "muito",
            "legal_basis": "art. 15",
        },
    )
    body = bad.content.decode()
    assert bad.status_code == 400 and "Quilômetro rodado (R$): valor inválido (muito)" in body and "JSON" not in body
    preview = c.post(
        "/tarifas/publicar/",
        {
            "modality": "taxi", "decree": "D 1", "published_on": today.isoformat(),
            "effective_from": (today + timedelta(days=3)).isoformat(), "structure": "base_plus_km",
            "base_plus_km__base": "5,00", "base_plus_km__per_km": "2,50", "legal_basis": "art. 15", "preview": "1",
        },
    )
    assert preview.status_code == 200 and "R$ 30,00" in preview.content.decode()  # 10 km: 5,00 + 10 × 2,50
    from tariffs.models import TariffTable

    assert not TariffTable.objects.filter(decree="D 1").exists()  # a preview publishes nothing
    ok = c.post(
        "/tarifas/publicar/",
        {
            "modality": "taxi",
            "decree": "D 1",
            "published_on": today.isoformat(),
            "effective_from": (today + timedelta(days=3)).isoformat(),
            "structure": "base_plus_km",
            "base_plus_km__base": "15,00",
            "base_plus_km__per_km": "1,70",
            "legal_basis": "art. 15",
        },
    )
    assert ok.status_code == 302
    assert TariffTable.objects.get(decree="D 1").components == {"base": "15.00", "per_km": "1.70"}
    assert "futura" in c.get("/tarifas/publicar/").content.decode()


def test_calculator_page_works_without_javascript(alegre_db, client):
    r = client.get(
        "/tarifas/", {"modality": "taxi", "km": "10", "date": "2026-11-29", "time": "22:30"}
    )
    body = r.content.decode()
    assert r.status_code == 200
    assert "R$ 30,99" in body and "Lei nº 3.703/2022, Anexo I" in body and "art. 15" in body
    assert "novembro" in body  # yearly adjustment month
    assert "<script>" not in body and "js/tariffs.js" in body
    assert "public" in r["Cache-Control"]


def test_calculator_bad_input_gets_a_message_beside_the_field(alegre_db, client):
    r = client.get("/tarifas/", {"modality": "taxi", "km": "-3"})
    body = r.content.decode()
    assert r.status_code == 400
    assert 'id="id_km-error"' in body and "não pode ser negativa" in body


def test_tariff_table_pdf(alegre_db, client):
    r = client.get("/tarifas/tabela.pdf", {"modality": "taxi"})
    assert (
        r.status_code == 200
        and r["Content-Type"] == "application/pdf"
        and r.content.startswith(b"%PDF")
    )
    again = client.get(
        "/tarifas/tabela.pdf", {"modality": "taxi"}
    )  # from the cache, same file and name
    assert again.content == r.content and again["Content-Disposition"] == r["Content-Disposition"]
    assert client.get("/tarifas/tabela.pdf", {"modality": "mototaxi"}).status_code == 404


def test_fare_endpoints_use_a_constant_number_of_queries(
    alegre_db, client, django_assert_max_num_queries
):
    client.get(QUOTE, {"modality": "taxi", "km": "1"})  # warm the pack cache
    with django_assert_max_num_queries(1):
        assert client.get(QUOTE, {"modality": "taxi", "km": "10"}).status_code == 200
    with django_assert_max_num_queries(2):
        assert client.get("/tarifas/", {"modality": "taxi", "km": "10"}).status_code == 200
    with django_assert_max_num_queries(0):  # served from the cache
        assert client.get("/tarifas/", {"modality": "taxi", "km": "10"}).status_code == 200


def test_calculator_page_follows_a_new_table(alegre_db, admin_user, client):
    day = (alegre_db.today() + timedelta(days=2)).isoformat()
    params = {"modality": "taxi", "km": "10", "date": day, "time": "10:00"}
    assert "R$ 30,99" in client.get("/tarifas/", params).content.decode()
    _publish(admin_user, alegre_db)
    assert "R$ 36,00" in client.get("/tarifas/", params).content.decode()


def test_quote_accepts_an_offset_whose_plus_became_a_space(alegre_db, client):
    r = client.get(QUOTE + "?modality=taxi&km=10&at=2026-11-29T22:30:00+00:00")
    assert r.status_code == 200 and r.json()["at"].startswith("2026-11-29T19:30:00")


@pytest.fixture
def alegre_without_hooks(db, monkeypatch):
    """The pack loaded without its after-load hooks: no tariff table stored yet."""
    from portal import hooks, regulation

    monkeypatch.setattr(hooks, "_PACK_LOADED", [])
    regulation.load_pack("alegre")
    return regulation.current()


def test_calculator_answers_before_the_tables_are_stored(alegre_without_hooks, client):
    """With no table stored yet, quotes come from the pack's own tables."""
    assert TariffTable.objects.count() == 0
    assert client.get(QUOTE, {"modality": "taxi", "km": "10"}).json()["total"] == "30.99"


def test_publishing_stores_the_pack_tables_first(alegre_without_hooks, admin_user):
    _publish(admin_user, alegre_without_hooks)
    assert set(TariffTable.objects.values_list("modality", "source")) == {
        ("taxi", "pack"),
        ("bus", "pack"),
        ("taxi", "published"),
    }


def test_two_tables_for_the_same_date_conflict(alegre_db, admin_user):
    from portal.exceptions import RuleViolation

    _publish(admin_user, alegre_db)
    with pytest.raises(RuleViolation) as exc:
        _publish(admin_user, alegre_db, decree="Decreto nº 11/2026")
    assert exc.value.conflict and exc.value.field == "effective_from"


@pytest.mark.django_db(transaction=True)
def test_concurrent_publications_for_the_same_date_store_one_table(admin_user):
    """Two publishers at the same moment: one table, the other gets the conflict (PostgreSQL)."""
    import contextvars
    import threading

    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("concorrência real só no PostgreSQL")
    pack = _load("alegre")
    outcomes = []
    barrier = threading.Barrier(2)

    def publish(n):
        from django.db import connections

        try:
            barrier.wait()
            _publish(admin_user, pack, decree=f"Decreto nº {n}/2026")
            outcomes.append("ok")
        except Exception as exc:  # noqa: BLE001 - the outcome is what the test checks
            outcomes.append(type(exc).__name__)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=contextvars.copy_context().run, args=(publish, n)) for n in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["RuleViolation", "ok"]
    assert TariffTable.objects.filter(source="published").count() == 1


def test_menu_has_the_public_entries_for_everyone(alegre_db, client):
    body = client.get("/").content.decode()
    for label in ("Tarifas", "Verificar autorização", "Transparência"):
        assert label in body
    assert "Publicar tarifa" not in body


def test_a_service_the_law_does_not_have_is_named_as_such(db, client):
    _load("arapora")  # Lei 724/2008: táxi only
    for r in (client.get(TARIFFS, {"modality": "mototaxi"}),
              client.get(QUOTE, {"modality": "mototaxi", "km": "3"})):
        assert r.status_code in (400, 404)
        assert "não prevê o serviço de mototáxi" in r.json()["errors"]["modality"][0]
    assert client.get(TARIFFS, {"modality": "mototaxi"}).status_code == 404
    _load("itagiba")  # no collective transport
    r = client.get(TARIFFS, {"modality": "bus"})
    assert r.status_code == 404 and "não prevê o serviço de ônibus" in r.json()["errors"]["modality"][0]


def test_a_service_without_a_decree_yet_says_so(alegre_db, client):
    # Lei 3.703/2022, art. 29, parágrafo único: mototáxi by decree; before the decree the answer cites it
    r = client.get(TARIFFS, {"modality": "mototaxi"})
    assert r.status_code == 404
    assert "art. 29, parágrafo único" in r.json()["errors"]["modality"][0]
    from tests.factories import record_modality_decree as record_decree

    record_decree("mototaxi")  # the decree opens the service: now only the table is missing
    r = client.get(TARIFFS, {"modality": "mototaxi"})
    assert r.json()["errors"]["modality"] == ["Ainda não há tabela de tarifas de mototáxi publicada."]


def test_before_the_first_table_the_rule_cites_its_basis(itagiba_db, client):
    r = client.get(QUOTE, {"modality": "taxi", "km": "1", "at": "2026-01-01T23:59:00-03:00"})
    assert r.status_code == 400
    assert "02/01/2026" in r.json()["errors"]["at"][0]
    assert r.json()["rule"]["code"] == "fare.no_table_at" and r.json()["rule"]["legal_basis"]
    r = client.get(QUOTE, {"modality": "taxi", "km": "1", "at": "2026-01-02T00:00:00-03:00"})
    assert r.status_code == 200
    r = client.get(TARIFFS, {"modality": "taxi", "at": "2026-01-01T12:00:00-03:00"})
    assert r.status_code == 404 and "02/01/2026" in r.json()["errors"]["modality"][0]


@pytest.mark.parametrize(
    "at,flag",
    [
        # 21:00 local (America/Bahia, UTC−3) is the start of bandeira 2 whatever the offset given
        ("2026-11-26T00:00:00Z", 2),
        ("2026-11-25T23:59:59Z", 1),
        ("2026-11-25 23:59:59 00:00", 1),  # "+00:00" unencoded: the plus became a space
        ("2026-11-26 00:00:00 00:00", 2),
        ("2026-11-25T19:00:00-05:00", 2),
        ("2026-11-25T18:59:00-05:00", 1),
        ("2026-11-26T09:00:00+0000", 1),  # 06:00 local: back to bandeira 1
        ("2026-11-26T08:59:00+0000", 2),
    ],
)
def test_bandeira_2_boundary_in_local_time_from_any_offset(itagiba_db, client, at, flag):
    r = client.get(QUOTE + f"?modality=taxi&km=10&at={at}")
    assert r.status_code == 200, r.content
    assert r.json()["flag"] == flag


def test_calculator_total_is_shown_beside_the_inputs_for_phones(alegre_db, client):
    """Without JavaScript too: the total right after the km field, the full result still below."""
    body = client.get("/tarifas/", {"modality": "taxi", "km": "10", "date": "2026-11-29", "time": "22:30"}).content.decode()
    km, peek, date_field = body.index('name="km"'), body.index('id="fare-peek"'), body.index('name="date"')
    assert km < peek < date_field and body.index("R$ 30,99", peek) < date_field
    assert 'href="#fare-result"' in body[peek:date_field]
    empty = client.get("/tarifas/").content.decode()
    assert '<p class="fare-peek d-lg-none" id="fare-peek" hidden>' in empty  # nothing to show yet
