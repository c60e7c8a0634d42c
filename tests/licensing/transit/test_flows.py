"""Concession lifecycle through the API and the services, at the law's boundaries."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.urls import reverse

from licensing.transit import selectors as sel
from licensing.transit import services as svc
from licensing.transit.models import (
    BidderStatus,
    Concession,
    ConcessionStatus,
    DefaultStatus,
    Intervention,
    InterventionStatus,
    ItineraryStatus,
)
from portal.audit import history_for
from portal.exceptions import RuleViolation
from tests.licensing.transit.conftest import make_company, make_concession

pytestmark = pytest.mark.django_db


def _sign(api, clerk, c, signed_on):
    return api(clerk).post(reverse("api-transit-contract", kwargs={"pk": c.pk}),
                           {"signed_on": signed_on.isoformat(), "contract_number": "CT-9"}, format="json")


def test_contract_signed_on_day_10_after_bidding(alegre, clerk, api):
    c = make_concession(alegre, closed_days_ago=10)
    r = _sign(api, clerk, c, alegre.today())
    assert r.status_code == 200, r.json()
    body = r.json()
    assert body["status"] == ConcessionStatus.AWAITING_START
    assert body["concessionaire"]["legal_name"] == "Primeira Ltda"
    assert body["term_end"] == (alegre.today().replace(year=alegre.today().year + 10) - timedelta(days=1)).isoformat()
    assert "service_start" in body["deadlines"]


def test_contract_on_day_11_is_refused_and_the_next_classified_called(alegre, clerk, api):
    c = make_concession(alegre, closed_days_ago=11)
    r = _sign(api, clerk, c, alegre.today())
    assert r.status_code == 409
    body = r.json()
    assert body["rule"]["code"] == "contract_sign_deadline" and "art. 8" in body["rule"]["legal_basis"]
    assert "Segunda Ltda" in body["errors"]["signed_on"][0]
    bidders = {b.position: b for b in c.classified.all()}
    assert bidders[1].status == BidderStatus.RENOUNCED and bidders[2].status == BidderStatus.CALLED
    assert bidders[2].called_on == alegre.today()
    # the second company now has its own 10 days
    r = _sign(api, clerk, c, alegre.today())
    assert r.status_code == 200 and r.json()["concessionaire"]["legal_name"] == "Segunda Ltda"


def test_without_more_classified_a_new_bidding_is_needed(alegre, clerk, api):
    c = make_concession(alegre, closed_days_ago=11, companies=[make_company("Única Ltda")])
    r = _sign(api, clerk, c, alegre.today())
    assert r.status_code == 409 and "nova licitação" in r.json()["errors"]["signed_on"][0]
    c.refresh_from_db()
    assert c.status == ConcessionStatus.BIDDING_FAILED


def test_service_start_on_day_30_and_lapse_on_day_31(alegre, clerk, api):
    ok = make_concession(alegre, closed_days_ago=32, signed_days_ago=30)
    r = api(clerk).post(reverse("api-transit-start", kwargs={"pk": ok.pk}), {"started_on": alegre.today().isoformat()},
                        format="json")
    assert r.status_code == 200 and r.json()["status"] == ConcessionStatus.IN_SERVICE
    late = make_concession(alegre, closed_days_ago=33, signed_days_ago=31)
    r = api(clerk).post(reverse("api-transit-start", kwargs={"pk": late.pk}), {"started_on": alegre.today().isoformat()},
                        format="json")
    assert r.status_code == 409 and r.json()["rule"]["code"] == "service_start_lapsed"
    assert "art. 22" in r.json()["rule"]["legal_basis"]
    late.refresh_from_db()
    assert late.status == ConcessionStatus.LAPSED and late.extinction_cause == "caducidade"


@pytest.mark.parametrize("category,seated,standing,status", [
    ("onibus", 30, 0, 400), ("onibus", 31, 10, 201), ("onibus", 31, 11, 400),
    ("lotacao", 7, 0, 400), ("lotacao", 8, 0, 201), ("lotacao", 8, 1, 400),
    ("microonibus", 30, 0, 400), ("microonibus", 29, 0, 201),
])
def test_bus_registration_follows_the_category(alegre, clerk, api, category, seated, standing, status):
    c = make_concession(alegre, category=category, signed_days_ago=3)
    r = api(clerk).post(reverse("api-transit-bus-create", kwargs={"pk": c.pk}),
                        {"plate": "ABC1D23", "category": category, "seated": seated, "standing": standing}, format="json")
    assert r.status_code == status, r.json()
    if status == 400:
        assert "art. 2" in r.json()["rule"]["legal_basis"]


def test_bus_of_another_category_than_the_contract_is_refused(alegre, clerk, api):
    c = make_concession(alegre, category="onibus", signed_days_ago=3)
    r = api(clerk).post(reverse("api-transit-bus-create", kwargs={"pk": c.pk}),
                        {"plate": "ABC1D23", "category": "lotacao", "seated": 10, "standing": 0}, format="json")
    assert r.status_code == 400 and r.json()["rule"]["code"] == "bus_category_mismatch"


def _change(api, clerk, line, extra_km):
    segs = [{"origin": "A", "destination": "B", "length_km": "40", "zone": "urban"},
            {"origin": "B", "destination": "C", "length_km": "60", "zone": "urban"},
            {"origin": "C", "destination": "D", "length_km": extra_km, "zone": "urban"}]
    return api(clerk).post(reverse("api-transit-itinerary-change", kwargs={"pk": line.pk}),
                           {"segments": segs, "reason": "Extensão ao bairro D"}, format="json")


def test_itinerary_change_of_25_percent_goes_by_amendment(running, clerk, api):
    _, line = running
    r = _change(api, clerk, line, "25")
    assert r.status_code == 201, r.json()
    assert r.json()["status"] == ItineraryStatus.PROPOSED and r.json()["changed_km"] == "25.000"


def test_itinerary_change_of_25_01_percent_needs_a_new_bidding(running, clerk, api):
    _, line = running
    r = _change(api, clerk, line, "25.01")
    assert r.status_code == 400
    assert r.json()["rule"]["code"] == "itinerary_change_over_limit" and "art. 7" in r.json()["rule"]["legal_basis"]
    assert line.itineraries.count() == 1


def test_successive_changes_are_measured_against_the_original(running, clerk, api, alegre):
    _, line = running
    first = _change(api, clerk, line, "20").json()
    api(clerk).post(reverse("api-transit-itinerary-approve", kwargs={"pk": first["id"]}),
                    {"amendment_reference": "Aditivo 1", "announced_on": alegre.today().isoformat(),
                     "effective_from": (alegre.today() + timedelta(days=10)).isoformat()}, format="json")
    # from the version with D (+20 km), adding 6 km more makes 26 km changed from the original
    segs = [{"origin": "A", "destination": "B", "length_km": "40"}, {"origin": "B", "destination": "C", "length_km": "60"},
            {"origin": "C", "destination": "D", "length_km": "20"}, {"origin": "D", "destination": "E", "length_km": "6"}]
    r = api(clerk).post(reverse("api-transit-itinerary-change", kwargs={"pk": line.pk}),
                        {"segments": segs, "reason": "Mais um bairro"}, format="json")
    assert r.status_code == 400 and r.json()["rule"]["code"] == "itinerary_change_over_limit"


def test_itinerary_change_in_force_only_after_10_days_notice(running, clerk, api, alegre):
    _, line = running
    proposed = _change(api, clerk, line, "10").json()
    url = reverse("api-transit-itinerary-approve", kwargs={"pk": proposed["id"]})
    today = alegre.today()
    r = api(clerk).post(url, {"amendment_reference": "Aditivo 1", "announced_on": today.isoformat(),
                              "effective_from": (today + timedelta(days=9)).isoformat()}, format="json")
    assert r.status_code == 400 and r.json()["rule"]["code"] == "itinerary_notice_too_short"
    r = api(clerk).post(url, {"amendment_reference": "Aditivo 1", "announced_on": today.isoformat(),
                              "effective_from": (today + timedelta(days=10)).isoformat()}, format="json")
    assert r.status_code == 200 and r.json()["status"] == ItineraryStatus.APPROVED
    assert sel.itinerary_in_force(line, today + timedelta(days=9)).version == 1
    assert sel.itinerary_in_force(line, today + timedelta(days=10)).version == 2
    public = api(None).get(reverse("api-transit-line", kwargs={"pk": line.pk})).json()
    assert public["itinerary"]["version"] == 1 and public["upcoming_itineraries"][0]["version"] == 2


def _fare(api, clerk, line, amount, announced, effective, zone="urban"):
    return api(clerk).post(reverse("api-transit-line-fares", kwargs={"pk": line.pk}),
                           {"zone": zone, "amount": amount, "decree": "Decreto 5/2026",
                            "announced_on": announced.isoformat(), "effective_from": effective.isoformat()},
                           format="json")


def test_fare_change_effective_on_day_10_not_day_9(running, clerk, api, alegre):
    _, line = running
    today = alegre.today()
    assert _fare(api, clerk, line, "4.00", today - timedelta(days=30), today - timedelta(days=30)).status_code == 201
    r = _fare(api, clerk, line, "4.55", today, today + timedelta(days=9))
    assert r.status_code == 400 and r.json()["rule"]["code"] == "fare_notice_too_short"
    assert "art. 17" in r.json()["rule"]["legal_basis"]
    assert _fare(api, clerk, line, "4.55", today, today + timedelta(days=10)).status_code == 201
    url = reverse("api-transit-line-fare", kwargs={"pk": line.pk})
    day9 = api(None).get(url, {"at": (today + timedelta(days=9)).isoformat()}).json()
    day10 = api(None).get(url, {"at": (today + timedelta(days=10)).isoformat(), "student": "true"}).json()
    assert day9["amount"] == "4.00"
    assert day10["full_fare"] == "4.55" and day10["amount"] == "2.28" and "art. 4" in day10["legal_basis"]


def test_rural_fare_only_on_a_line_with_rural_stretches(running, clerk, api, alegre):
    _, line = running
    r = _fare(api, clerk, line, "6.00", alegre.today(), alegre.today(), zone="rural")
    assert r.status_code == 400 and "art. 16" in r.json()["rule"]["legal_basis"]


def test_fare_endpoint_validates_its_parameters(running, api, alegre):
    _, line = running
    url = reverse("api-transit-line-fare", kwargs={"pk": line.pk})
    assert api(None).get(url, {"zone": "lunar"}).status_code == 400
    assert api(None).get(url, {"at": "ontem"}).status_code == 400
    assert api(None).get(url).status_code == 404  # no fare yet
    assert "zone" in api(None).get(url).json()["errors"]


def test_intervention_deadlines(running, clerk, judge, api, alegre):
    c, _ = running
    today = alegre.today()
    r = api(clerk).post(reverse("api-transit-intervention-create", kwargs={"pk": c.pk}),
                        {"decree": "Decreto 7/2026", "declared_on": (today - timedelta(days=31)).isoformat(),
                         "interventor": "Ivo", "term_days": 120, "objectives": "Regularizar", "grounds": ["a"]},
                        format="json")
    assert r.status_code == 201
    i = Intervention.objects.get(pk=r.json()["id"])
    assert i.concession.status == ConcessionStatus.INTERVENED
    url = reverse("api-transit-intervention-procedure", kwargs={"pk": i.pk})
    r = api(clerk).post(url, {"opened_on": today.isoformat(), "reference": "PA 1"}, format="json")
    assert r.status_code == 409 and r.json()["rule"]["code"] == "intervention_open_deadline"
    r = api(clerk).post(url, {"opened_on": (today - timedelta(days=1)).isoformat(), "reference": "PA 1"}, format="json")
    assert r.status_code == 200, r.json()
    assert "procedure_conclude" in r.json()["deadlines"]
    r = api(judge).post(reverse("api-transit-intervention-conclude", kwargs={"pk": i.pk}),
                        {"concluded_on": today.isoformat(), "upheld": False, "conclusion": "Sem pressupostos"},
                        format="json")
    assert r.status_code == 200 and r.json()["status"] == InterventionStatus.ANNULLED
    c.refresh_from_db()
    assert c.status == ConcessionStatus.IN_SERVICE


def test_intervention_concluded_on_day_180_not_181(running, alegre):
    c, _ = running
    today = alegre.today()
    i = svc.intervention_declare(actor=None, concession=c, decree="D 1", declared_on=today - timedelta(days=200),
                                 interventor="Ivo", term_days=365, objectives="x")
    svc.intervention_open_procedure(actor=None, intervention=i, opened_on=today - timedelta(days=181), reference="PA")
    with pytest.raises(RuleViolation) as exc:
        svc.intervention_conclude(actor=None, intervention=i, concluded_on=today, upheld=True, conclusion="ok")
    assert exc.value.code == "intervention_conclude_deadline"
    svc.intervention_conclude(actor=None, intervention=i, concluded_on=today - timedelta(days=1), upheld=True,
                              conclusion="Causas comprovadas")
    i.refresh_from_db()
    assert i.status == InterventionStatus.UPHELD


def test_sweep_applies_deadlines_once(alegre, clerk):
    today = alegre.today()
    waiting = make_concession(alegre, closed_days_ago=11)
    on_time = make_concession(alegre, closed_days_ago=10)
    lapsing = make_concession(alegre, closed_days_ago=33, signed_days_ago=31)
    starting = make_concession(alegre, closed_days_ago=32, signed_days_ago=30)
    running = make_concession(alegre, closed_days_ago=300, signed_days_ago=290, started_days_ago=280)
    i = svc.intervention_declare(actor=None, concession=running, decree="D", declared_on=today - timedelta(days=250),
                                 interventor="Ivo", term_days=365, objectives="x")
    svc.intervention_open_procedure(actor=None, intervention=i, opened_on=today - timedelta(days=231), reference="PA")
    other = make_concession(alegre, closed_days_ago=40, signed_days_ago=38, started_days_ago=37)
    late_open = svc.intervention_declare(actor=None, concession=other, decree="D2", declared_on=today - timedelta(days=31),
                                         interventor="Eva", term_days=90, objectives="y")
    assert svc.transit_deadlines_sweep() == 4
    assert svc.transit_deadlines_sweep() == 0
    for obj in (waiting, on_time, lapsing, starting, running, i, late_open):
        obj.refresh_from_db()
    assert waiting.classified.get(position=2).status == BidderStatus.CALLED
    assert on_time.classified.get(position=1).status == BidderStatus.CALLED
    assert lapsing.status == ConcessionStatus.LAPSED and starting.status == ConcessionStatus.AWAITING_START
    assert i.status == InterventionStatus.INVALID and running.status == ConcessionStatus.IN_SERVICE
    assert late_open.open_overdue_flagged and late_open.status == InterventionStatus.DECLARED
    from portal.models import Notification

    assert Notification.objects.filter(recipient=clerk, subject__contains="D2").count() == 1


def test_sweep_extinguishes_at_the_end_of_the_term(alegre):
    c = make_concession(alegre, closed_days_ago=5, signed_days_ago=3, started_days_ago=1)
    Concession.objects.filter(pk=c.pk).update(term_end=alegre.today() - timedelta(days=1))
    assert svc.transit_deadlines_sweep() == 1
    c.refresh_from_db()
    assert c.status == ConcessionStatus.EXTINCT and c.extinction_cause == "term"


def test_one_renewal_only(running, clerk, api):
    c, _ = running
    url = reverse("api-transit-renew", kwargs={"pk": c.pk})
    first = api(clerk).post(url, {}, format="json")
    assert first.status_code == 200
    c.refresh_from_db()
    assert c.term_end == svc.rules.concession_term_end(c.term_start, 20) and c.renewals == 1
    second = api(clerk).post(url, {}, format="json")
    assert second.status_code == 409 and "art. 25" in second.json()["rule"]["legal_basis"]


def test_rescission_needs_a_proven_default_after_the_period_to_cure(running, clerk, judge, api, alegre):
    c, _ = running
    today = alegre.today()
    extinguish = reverse("api-transit-extinguish", kwargs={"pk": c.pk})
    payload = {"cause": "rescisao", "act": "Decreto 20/2026", "extinct_on": today.isoformat()}
    r = api(judge).post(extinguish, payload, format="json")
    assert r.status_code == 409 and r.json()["rule"]["code"] == "rescission_without_proven_default"
    d = svc.default_notify(actor=None, concession=c, grounds=["I", "VI"], details="Horários descumpridos",
                           notified_on=today - timedelta(days=15), cure_days=15)
    url = reverse("api-transit-default-open", kwargs={"pk": d.pk})
    r = api(clerk).post(url, {"opened_on": today.isoformat(), "reference": "PI 1"}, format="json")
    assert r.status_code == 409 and r.json()["rule"]["code"] == "default_cure_period_running"
    d.notified_on = today - timedelta(days=16)
    d.save()
    assert api(clerk).post(url, {"opened_on": today.isoformat(), "reference": "PI 1"}, format="json").status_code == 200
    r = api(judge).post(reverse("api-transit-default-conclude", kwargs={"pk": d.pk}),
                        {"proven": True, "decision": "Inadimplência comprovada", "concluded_on": today.isoformat()},
                        format="json")
    assert r.status_code == 200 and r.json()["status"] == DefaultStatus.PROVEN
    r = api(judge).post(extinguish, payload, format="json")
    assert r.status_code == 200 and r.json()["status"] == ConcessionStatus.EXTINCT
    assert [h.action for h in history_for(c)].count("concession_status") >= 3


def test_encampacao_requires_law_and_prior_indemnity(running, judge, api, alegre):
    c, _ = running
    url = reverse("api-transit-extinguish", kwargs={"pk": c.pk})
    base = {"cause": "encampacao", "act": "Decreto 30/2026", "extinct_on": alegre.today().isoformat()}
    r = api(judge).post(url, {**base, "authorizing_law": "Lei 4.000/2026"}, format="json")
    assert r.status_code == 400 and "art. 19" in r.json()["rule"]["legal_basis"]
    r = api(judge).post(url, {**base, "authorizing_law": "Lei 4.000/2026", "indemnity_paid": True}, format="json")
    assert r.status_code == 200


def test_clauses_checklist_is_recorded_and_audited(running, clerk, api, alegre):
    c, _ = running
    r = api(clerk).post(reverse("api-transit-clauses", kwargs={"pk": c.pk}), {"clauses": ["I", "IV", "XII"]},
                        format="json")
    assert r.status_code == 200
    present = {cl["code"] for cl in r.json()["clauses"] if cl["present"]}
    assert present == {"I", "IV", "XII"} and len(r.json()["clauses"]) == 18
    assert history_for(c).filter(action="concession_clauses").exists()
    assert api(clerk).post(reverse("api-transit-clauses", kwargs={"pk": c.pk}), {"clauses": ["XIX"]},
                           format="json").status_code == 400


def test_concessionaire_cnpj_check_digits(alegre, clerk, api):
    url = reverse("api-transit-concessionaires")
    data = {"legal_name": "X Ltda", "cnpj": "11.222.333/0001-80", "registry_number": "1", "address": "Rua",
            "representative_name": "Rep", "representative_cpf": "529.982.247-25"}
    r = api(clerk).post(url, data, format="json")
    assert r.status_code == 400 and "cnpj" in r.json()["errors"]
    r = api(clerk).post(url, {**data, "cnpj": "11.222.333/0001-81"}, format="json")
    assert r.status_code == 201 and r.json()["cnpj"] == "11.222.333/0001-81"
    assert api(clerk).post(url, {**data, "cnpj": "11222333000181"}, format="json").status_code == 400


def test_public_line_shows_operator_itinerary_schedule_and_fare(running, web, alegre):
    c, line = running
    svc.fare_set(actor=None, line=line, zone="urban", amount=Decimal("4.50"), decree="Decreto 3/2026",
                 announced_on=alegre.today(), effective_from=alegre.today())
    body = web(None).get(reverse("transit-line", kwargs={"pk": line.pk})).content.decode()
    assert "Primeira Ltda" in body and "R$ 4,50" in body and "06:00" in body and "<li>C</li>" in body
    body = web(None).get(reverse("transit-line", kwargs={"pk": line.pk}), {"zone": "urban", "student": "on"}).content.decode()
    assert "R$ 2,25" in body
    listing = web(None).get(reverse("transit-lines")).content.decode()
    assert "L01" in listing and "R$ 4,50" in listing


def test_anyone_files_a_complaint_and_a_clerk_answers(running, web, clerk):
    _, line = running
    r = web(None).post(reverse("transit-complaint", kwargs={"pk": line.pk}),
                       {"text": "O ônibus das 6h não passou.", "contact": "maria@example.org"})
    assert r.status_code == 200 and "Protocolo" in r.content.decode()
    complaint = line.complaints.get()
    assert complaint.protocol in r.content.decode()
    r = web(clerk).post(reverse("transit-complaint-answer", kwargs={"pk": complaint.pk}),
                        {"answer": "A empresa foi notificada."})
    assert r.status_code == 302
    complaint.refresh_from_db()
    assert complaint.status == "answered" and complaint.answered_by == clerk
    assert [h.action for h in history_for(complaint)] == ["complaint_filed", "complaint_answered"]
    lookup = reverse("transit-complaint-lookup")
    body = web(None).get(lookup, {"protocolo": complaint.protocol, "codigo": complaint.access_code}).content.decode()
    assert "A empresa foi notificada." in body and "maria@example.org" not in body
    wrong = web(None).get(lookup, {"protocolo": complaint.protocol, "codigo": "AAAA-BBBB-CCCC"})
    assert wrong.status_code == 404 and "A empresa foi notificada." not in wrong.content.decode()
    assert web(None).get(lookup, {"protocolo": "", "codigo": ""}).status_code == 400


def test_html_contract_late_shows_the_article_and_keeps_the_values(alegre, web, clerk):
    c = make_concession(alegre, closed_days_ago=11)
    r = web(clerk).post(reverse("transit-contract", kwargs={"pk": c.pk}),
                        {"signed_on": alegre.today().strftime("%d/%m/%Y"), "contract_number": "CT-77"})
    body = r.content.decode()  # the deadline passed: a conflict with the state of things, as in the API
    assert r.status_code == 409 and "art. 8" in body and "CT-77" in body and "Segunda Ltda" in body


def test_html_line_creation_and_itinerary_change(running, web, clerk):
    c, _ = running
    r = web(clerk).post(reverse("transit-line-new", kwargs={"pk": c.pk}),
                        {"code": "L02", "name": "Centro — Rive",
                         "segments": "Centro; Ponte; 2,5; urbano\nPonte; Rive; 7,5; rural",
                         "weekday": "06:00 07:30", "saturday": "", "sunday": ""})
    assert r.status_code == 302, r.content.decode()[:2000]
    line = c.lines.get(code="L02")
    assert line.itineraries.get().total_km == Decimal("10.000")
    r = web(clerk).post(reverse("transit-itinerary-change", kwargs={"pk": line.pk}),
                        {"segments": "Centro; Ponte; 2,5; urbano\nPonte; Rive; 7,5; rural\nRive; Sítio; 2,6; rural",
                         "weekday": "06:00", "reason": "Novo trecho"})
    assert r.status_code == 400 and "art. 7" in r.content.decode()
    r = web(clerk).post(reverse("transit-itinerary-change", kwargs={"pk": line.pk}),
                        {"segments": "Centro; Ponte; 2,5; urbano\nPonte; Rive; 7,5; rural\nRive; Sítio; 2,5; rural",
                         "weekday": "06:00", "reason": "Novo trecho"})
    assert r.status_code == 302



def test_periodic_task_records_its_run_and_is_idempotent(alegre):
    from django.conf import settings

    from licensing.transit.tasks import transit_deadlines
    from portal.models import JobRun

    make_concession(alegre, closed_days_ago=33, signed_days_ago=31)
    assert transit_deadlines.delay().get() == 1
    assert transit_deadlines.delay().get() == 0
    runs = list(JobRun.objects.filter(name="transit_deadlines").order_by("id").values_list("changed", flat=True))
    assert runs == [1, 0]
    assert settings.CELERY_BEAT_SCHEDULE["transit-deadlines"]["task"] == transit_deadlines.name


def test_sweep_does_nothing_without_collective_transport(itagiba):
    assert svc.transit_deadlines_sweep() == 0


def test_demo_seed_is_idempotent_and_home_links_the_lines(alegre, clerk, web):
    import io

    from licensing.transit.demo import seed_transit_demo
    from licensing.transit.models import BusLine

    seed_transit_demo({"atendente": clerk}, io.StringIO())
    seed_transit_demo({"atendente": clerk}, io.StringIO())
    assert BusLine.objects.count() == 1
    body = web(None).get(reverse("home")).content.decode()
    assert "Transporte coletivo" in body and reverse("transit-lines") in body


@pytest.mark.django_db(transaction=True)
def test_concurrent_contract_signatures_sign_once(load_pack):
    """Two clerks record the same signature at once: one contract, one audit entry (PostgreSQL)."""
    import contextvars
    import threading

    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("concorrência real só no PostgreSQL (SQLite serializa as escritas)")
    pack = load_pack("alegre")
    c = make_concession(pack, closed_days_ago=5)
    results: list[str] = []
    barrier = threading.Barrier(2)

    def sign():
        from django.db import connection as conn

        try:
            barrier.wait()
            svc.concession_contract_sign(actor=None, concession=Concession.objects.get(pk=c.pk),
                                         signed_on=pack.today(), contract_number="CT-1")
            results.append("ok")
        except Exception as exc:  # noqa: BLE001 - the loser gets InvalidTransition
            results.append(type(exc).__name__)
        finally:
            conn.close()

    threads = [threading.Thread(target=contextvars.copy_context().run, args=(sign,)) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["InvalidTransition", "ok"]
    assert history_for(c).filter(action="concession_status", to_state=ConcessionStatus.AWAITING_START).count() == 1


def test_after_the_lapse_the_next_classified_may_be_called(alegre, clerk, api):
    c = make_concession(alegre, closed_days_ago=45, signed_days_ago=40)
    svc.transit_deadlines_sweep()
    c.refresh_from_db()
    assert c.status == ConcessionStatus.LAPSED
    r = api(clerk).post(reverse("api-transit-call-next", kwargs={"pk": c.pk}), {}, format="json")
    assert r.status_code == 200 and r.json()["status"] == ConcessionStatus.AWAITING_CONTRACT
    assert r.json()["concessionaire"] is None
    bidders = {b.position: b.status for b in c.classified.all()}
    assert bidders == {1: BidderStatus.LAPSED, 2: BidderStatus.CALLED}
    r = _sign(api, clerk, c, alegre.today())
    assert r.status_code == 200 and r.json()["concessionaire"]["legal_name"] == "Segunda Ltda"
    # no one left after a second lapse
    Concession.objects.filter(pk=c.pk).update(contract_signed_on=alegre.today() - timedelta(days=31))
    svc.transit_deadlines_sweep()
    r = api(clerk).post(reverse("api-transit-call-next", kwargs={"pk": c.pk}), {}, format="json")
    assert r.status_code == 409 and r.json()["rule"]["code"] == "no_remaining_classified"


def test_extinction_ends_an_open_intervention_with_audit(running, judge, api, alegre):
    c, _ = running
    i = svc.intervention_declare(actor=None, concession=c, decree="D 3", declared_on=alegre.today(),
                                 interventor="Ivo", term_days=60, objectives="x")
    r = api(judge).post(reverse("api-transit-extinguish", kwargs={"pk": c.pk}),
                        {"cause": "falencia", "act": "Sentença de falência", "extinct_on": alegre.today().isoformat()},
                        format="json")
    assert r.status_code == 200
    i.refresh_from_db()
    assert i.status == InterventionStatus.ENDED
    assert history_for(i).filter(to_state=InterventionStatus.ENDED).exists()


def test_public_complaints_are_throttled_per_address(running, web):
    from licensing.transit.views import COMPLAINTS_PER_HOUR

    _, line = running
    url = reverse("transit-complaint", kwargs={"pk": line.pk})
    client = web(None)
    for _ in range(COMPLAINTS_PER_HOUR):
        assert client.post(url, {"text": "Ônibus lotado e atrasado hoje."}).status_code == 200
    assert client.post(url, {"text": "Ônibus lotado e atrasado hoje."}).status_code == 429
    assert line.complaints.count() == COMPLAINTS_PER_HOUR


def test_clerk_sees_running_deadlines_with_dates_and_articles(alegre, clerk, judge, web):
    c = make_concession(alegre, closed_days_ago=4)
    deadline = (alegre.today() + timedelta(days=6)).strftime("%d/%m/%Y")
    listing = web(clerk).get(reverse("transit-concessions")).content.decode()
    assert "Assinatura do contrato por Primeira Ltda" in listing and deadline in listing and "faltam 6 dias" in listing
    detail = web(judge).get(reverse("transit-concession", kwargs={"pk": c.pk})).content.decode()
    assert deadline in detail and "art. 8" in detail
    assert reverse("transit-contract", kwargs={"pk": c.pk}) not in detail  # the julgador does not sign contracts


def test_bus_withdrawal_and_discarded_change_are_audited(running, clerk, api):
    c, line = running
    bus = svc.bus_register(actor=None, concession=c, plate="XYZ9A87", category="onibus", seated=35, standing=5)
    url = reverse("api-transit-bus-withdraw", kwargs={"pk": bus.pk})
    assert api(clerk).post(url, {}, format="json").status_code == 400  # reason required
    r = api(clerk).post(url, {"reason": "Veículo acidentado"}, format="json")
    assert r.status_code == 200 and r.json()["status"] == "withdrawn"
    assert api(clerk).post(url, {"reason": "de novo"}, format="json").status_code == 409
    assert history_for(bus).filter(action="bus_withdrawn").count() == 1
    proposed = _change(api, clerk, line, "5").json()
    r = api(clerk).post(reverse("api-transit-itinerary-discard", kwargs={"pk": proposed["id"]}),
                        {"reason": "Proposta substituída"}, format="json")
    assert r.status_code == 200 and r.json()["status"] == ItineraryStatus.DISCARDED
