"""A modality exists only when its law is in force: Alegre's mototáxi waits for the decree of
Lei 3.703/2022, art. 29, parágrafo único (pack: ``modalities.mototaxi.requires_decree``)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from portal import regulation
from portal.audit_actions import AuditAction
from portal.exceptions import RuleViolation
from portal.modality_rules import modality_closed
from portal.models import AuditEntry, ModalityDecree
from tests.factories import record_modality_decree as record_decree

ART_29 = "art. 29, parágrafo único"


def _at(monkeypatch, instant: datetime) -> None:
    monkeypatch.setattr(timezone, "now", lambda: instant)
    regulation.invalidate()


# --- the rule, pure -------------------------------------------------------------------------------
def test_rule_unknown_modality_is_invalid_input():
    v = modality_closed(modality="mototaxi", label="Mototáxi", municipality="X/YY", known=False, decree_basis=None,
                        in_force=False)
    assert v.code == "modality.unknown" and not v.conflict and v.field == "modality"


def test_rule_a_modality_without_decree_requirement_is_open():
    assert modality_closed(modality="taxi", label="Táxi", municipality="X/YY", known=True, decree_basis=None,
                           in_force=False) is None


def test_rule_pending_decree_is_a_conflict_citing_the_article():
    v = modality_closed(modality="mototaxi", label="Mototáxi", municipality="Alegre/ES", known=True,
                        decree_basis="Lei 3.703/2022 (Alegre/ES), art. 29, parágrafo único", in_force=False)
    assert v.conflict and v.code == "modality.decree_pending" and ART_29 in v.legal_basis
    assert "mototáxi" in v.message and "decreto" in v.message
    upcoming = modality_closed(modality="mototaxi", label="Mototáxi", municipality="Alegre/ES", known=True,
                               decree_basis="art. 29", in_force=False, upcoming=("Decreto nº 9/2026", date(2026, 7, 1)))
    assert "01/07/2026" in upcoming.message and "Decreto nº 9/2026" in upcoming.message
    assert modality_closed(modality="mototaxi", label="Mototáxi", municipality="Alegre/ES", known=True,
                           decree_basis="art. 29", in_force=True) is None


# --- the pack's declaration -----------------------------------------------------------------------
def test_alegre_mototaxi_requires_the_decree_itagiba_does_not(db):
    alegre = regulation.read_pack_file("alegre")["modalities"]["mototaxi"]
    assert alegre["requires_decree"]["value"] is True and ART_29 in alegre["requires_decree"]["legal_basis"]
    assert "requires_decree" not in regulation.read_pack_file("itagiba")["modalities"]["mototaxi"]


@pytest.mark.parametrize("table,fragment", [
    ({"label": "Mototáxi", "legal_basis": "x", "requires_decre": {"value": True, "legal_basis": "x"}}, "requires_decre"),
    ({"label": "Mototáxi", "legal_basis": "x", "requires_decree": {"value": True}}, "requires_decree"),
    ({"label": "Mototáxi", "legal_basis": "x", "requires_decree": True}, "requires_decree"),
])
def test_a_malformed_modality_table_is_refused_naming_the_key(table, fragment):
    data = regulation.read_pack_file("alegre")
    data["modalities"]["mototaxi"] = table
    with pytest.raises(regulation.PackError, match=fragment):
        regulation.validate_pack_data(data)


# --- before the decree: nothing of the modality ----------------------------------------------------
def test_before_the_decree_alegre_offers_no_mototaxi(alegre, applicant, api, admin_user):
    from licensing.applications.calls import call_open, open_call_for
    from licensing.applications.forms import modality_choices
    from tests.licensing.applications.helpers import payload

    assert not alegre.has_modality("mototaxi") and alegre.in_force_modalities == ["taxi"]
    assert alegre.service_name == "Táxi"  # branding names only what exists
    assert "mototaxi" not in [m for m, _label in modality_choices()]
    with pytest.raises(RuleViolation) as refused:
        call_open(actor=None, modality="mototaxi", start=alegre.today(), end=alegre.today() + timedelta(days=10))
    assert ART_29 in refused.value.legal_basis
    assert open_call_for("mototaxi") is None
    r = api(applicant).post("/api/v1/applications/", payload("mototaxi"), format="json")
    assert r.status_code == 409, r.content
    assert r.json()["rule"]["code"] == "modality.decree_pending" and ART_29 in r.json()["rule"]["legal_basis"]
    assert "modality" in r.json()["errors"]


def test_before_the_decree_no_tariff_table_and_no_calculator_tab(alegre, admin_user, web):
    from tariffs.services import tariff_publish

    today = alegre.today()
    with pytest.raises(Exception) as refused:  # RuleViolations: the modality is the first
        tariff_publish(actor=admin_user, modality="mototaxi", decree="Decreto nº 1/2026", published_on=today,
                       effective_from=today, structure="max_fare_bands",
                       components={"bands": [{"up_to_km": "5", "fare": "8.00"}]}, legal_basis="art. 29")
    assert ART_29 in str(refused.value)
    body = web(None).get("/tarifas/").content.decode()
    assert 'value="mototaxi"' not in body and ART_29 in body  # the calculator says why there is no tab


def test_an_unknown_modality_is_still_refused_as_invalid(arapora, applicant, api):
    from tests.licensing.applications.helpers import payload

    r = api(applicant).post("/api/v1/applications/", payload("mototaxi"), format="json")
    assert r.status_code == 400 and r.json()["rule"]["code"] == "modality.unknown"


# --- recording the decree -------------------------------------------------------------------------
def test_recording_the_decree_opens_the_modality_and_is_audited(alegre, applicant, api):
    from licensing.applications.calls import call_open
    from tests.licensing.applications.helpers import payload

    row = record_decree(link="https://alegre.es.gov.br/diario/4321")
    pack = regulation.current()
    assert pack.has_modality("mototaxi") and pack.service_name == "Táxi e Mototáxi"
    entry = AuditEntry.objects.get(action=AuditAction.MODALITY_DECREE_RECORDED)
    assert entry.actor.username == "decree-admin" and entry.data["number"] == row.number
    assert ART_29 in entry.data["legal_basis"]
    call, _ = call_open(actor=None, modality="mototaxi", start=pack.today(), end=pack.today() + timedelta(days=10))
    r = api(applicant).post("/api/v1/applications/", payload("mototaxi"), format="json")
    assert r.status_code == 201, r.content


@pytest.mark.parametrize("utc_hour,open_", [(2, False), (3, True)])
def test_decree_in_force_from_its_day_in_the_municipality_time_zone(alegre, monkeypatch, utc_hour, open_):
    # 10/06/2026 02:00 UTC is still 09/06 23:00 in America/Sao_Paulo: a decree in force from 10/06
    # has not started; at 03:00 UTC (00:00 of 10/06 there) it has.
    _at(monkeypatch, datetime(2026, 6, 10, 0, 0, tzinfo=UTC))
    record_decree(act_date=date(2026, 6, 9), effective_from=date(2026, 6, 10))
    _at(monkeypatch, datetime(2026, 6, 10, utc_hour, 0, tzinfo=UTC))
    pack = regulation.current()
    assert pack.has_modality("mototaxi") is open_
    if not open_:
        assert "10/06/2026" in pack.modality_refusal("mototaxi").message


@pytest.mark.parametrize("utc_hour,accepted", [(2, False), (3, True)])
def test_a_decree_dated_tomorrow_is_refused_today_in_the_municipality_time_zone(alegre, monkeypatch, utc_hour,
                                                                                accepted):
    _at(monkeypatch, datetime(2026, 6, 10, utc_hour, 0, tzinfo=UTC))
    if accepted:
        assert record_decree(act_date=date(2026, 6, 10)).effective_from == date(2026, 6, 10)
        assert regulation.current().has_modality("mototaxi")
    else:
        with pytest.raises(ValidationError) as refused:
            record_decree(act_date=date(2026, 6, 10))
        assert "act_date" in refused.value.message_dict
        assert not ModalityDecree.objects.exists()


def test_a_decree_is_refused_for_a_modality_that_needs_none(itagiba, admin_user):
    from portal.modality_decrees import modality_decree_record

    with pytest.raises(ValidationError) as refused:
        modality_decree_record(actor=admin_user, modality="mototaxi", number="Decreto nº 1/2026",
                               act_date=itagiba.today())
    assert "modality" in refused.value.message_dict


def test_api_records_the_decree_and_names_bad_fields(alegre, admin_user, api):
    client = api(admin_user)
    r = client.post("/api/v1/modality-decrees/", {"modality": "mototaxi", "number": " ", "date": "2026-01-01",
                                                   "effective_from": "2025-12-31", "link": "ftp://x"}, format="json")
    assert r.status_code == 400
    assert set(r.json()["errors"]) >= {"number"} or set(r.json()["errors"]) >= {"effective_from", "link"}
    r = client.post("/api/v1/modality-decrees/", {"modality": "mototaxi", "number": "Decreto nº 5/2026",
                                                   "date": alegre.today().isoformat(), "effective_from": "2025-12-31",
                                                   "link": "ftp://x"}, format="json")
    assert r.status_code == 400 and set(r.json()["errors"]) == {"effective_from", "link"}
    before = client.get("/api/v1/modality-decrees/").json()
    assert before["modalities"][0]["in_force"] is False and ART_29 in before["modalities"][0]["legal_basis"]
    r = client.post("/api/v1/modality-decrees/", {"modality": "mototaxi", "number": "Decreto nº 5/2026",
                                                   "date": alegre.today().isoformat()}, format="json")
    assert r.status_code == 201 and r.json()["effective_from"] == alegre.today().isoformat()
    after = client.get("/api/v1/modality-decrees/").json()
    assert after["modalities"][0]["in_force"] is True and after["results"][0]["number"] == "Decreto nº 5/2026"


def test_ops_page_records_the_decree(alegre, admin_user, web):
    client = web(admin_user)
    page = client.get("/administracao/decretos-modalidades/").content.decode()
    assert ART_29 in page and "Registrar decreto" in page
    r = client.post("/administracao/decretos-modalidades/", {"modality": "mototaxi", "number": "",
                                                              "act_date": "31/02/2026"})
    assert r.status_code == 400 and "Informe o número do decreto." in r.content.decode()
    r = client.post("/administracao/decretos-modalidades/", {
        "modality": "mototaxi", "number": "Decreto nº 6/2026", "act_date": alegre.today().strftime("%d/%m/%Y")})
    assert r.status_code == 302
    assert regulation.current().has_modality("mototaxi")
    assert "Decreto nº 6/2026" in client.get("/administracao/decretos-modalidades/").content.decode()


def test_the_wizard_says_why_mototaxi_is_not_offered(alegre, applicant, web):
    client = web(applicant)
    page = client.get("/requerimentos/novo/").content.decode()
    assert 'value="mototaxi"' not in page and ART_29 in page
    r = client.post("/requerimentos/novo/", {"modality": "mototaxi", "kind": "new"})
    assert r.status_code == 400 and ART_29 in r.content.decode().split("<form")[1]
