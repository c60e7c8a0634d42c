"""Due process at every boundary, for each pack (issue #13): defense period before the judgement,
the notice of the decision opening the appeal period, two instances two people, business days,
example values without legal effect, recidivism recomputed, paper filings."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from enforcement import services
from enforcement.models import Infraction
from portal import regulation
from portal.models import AuditEntry
from tests.enforcement.helpers import D, other_judge

pytestmark = pytest.mark.django_db

CODE = {"alegre": "19-I", "itagiba": "4-P1", "arapora": "23-I"}
FINE_CODE = CODE


@pytest.fixture
def grant_on(applicant):
    from tests.factories import VehicleFactory, issue_authorization

    auth, _ = issue_authorization(holder=applicant, vehicle=VehicleFactory(owner=applicant), modality="taxi",
                                  valid_from=D - timedelta(days=300))
    return auth


def _issue(issue, pack, grant, day, code=None):
    return issue(grant.vehicle.plate, code or CODE[pack.slug], day)["id"]


def _judge(api, judge, pk, upheld=True):
    return api(judge).post(f"/api/v1/infractions/{pk}/judge/", {"upheld": upheld, "grounds": "Fatos comprovados."},
                           format="json")


# --- no judgement while the defense period runs ----------------------------------------
@pytest.mark.parametrize("days_since_notice,expected", [(15, 409), (16, 200)])
def test_judgement_on_day_15_refused_day_16_allowed(api, any_pack, judge, grant_on, issue, chain, clock,
                                                    days_since_notice, expected):
    pk = _issue(issue, any_pack, grant_on, D - timedelta(days=days_since_notice + 1))
    notified = chain.notify(pk, D - timedelta(days=days_since_notice))
    assert notified["defense_deadline"] == (D - timedelta(days=days_since_notice - 15)).isoformat()
    r = _judge(api, judge, pk)
    assert r.status_code == expected, r.content
    if expected == 409:
        rule = r.json()["rule"]
        assert rule["code"] == "defense_period_running"
        assert rule["legal_basis"] == any_pack.basis("defense.days") and "art." in rule["legal_basis"]
        assert (D + timedelta(days=1)).strftime("%d/%m/%Y") in str(r.json()["errors"])
        assert Infraction.objects.get(pk=pk).status == "notified"
    else:
        assert r.json()["status"] == "upheld"


@pytest.mark.parametrize("days_since_notice,expected", [(15, 201), (16, 409)])
def test_defense_filed_on_day_15_accepted_day_16_refused(api, any_pack, applicant, grant_on, issue, chain, clock,
                                                         days_since_notice, expected):
    pk = _issue(issue, any_pack, grant_on, D - timedelta(days=days_since_notice + 1))
    chain.notify(pk, D - timedelta(days=days_since_notice))
    r = api(applicant).post(f"/api/v1/infractions/{pk}/defense/", {"text": "Não cometi a infração."}, format="json")
    assert r.status_code == expected, r.content
    if expected == 409:
        assert r.json()["rule"]["code"] == "defense_deadline_passed"


def test_a_defense_or_a_written_waiver_allows_the_judgement_before_the_end(api, any_pack, applicant, judge,
                                                                         grant_on, issue, chain, clock):
    filed = _issue(issue, any_pack, grant_on, D - timedelta(days=3))
    waived = _issue(issue, any_pack, grant_on, D - timedelta(days=3))
    for pk in (filed, waived):
        chain.notify(pk, D - timedelta(days=2))
        assert _judge(api, judge, pk).status_code == 409
    assert api(applicant).post(f"/api/v1/infractions/{filed}/defense/", {"text": "Defesa."},
                               format="json").status_code == 201
    r = api(applicant).post(f"/api/v1/infractions/{waived}/defense/waiver/", {"text": "Renuncio ao prazo."},
                            format="json")
    assert r.status_code == 201 and r.json()["status"] == "awaiting_judgement"
    assert AuditEntry.objects.filter(object_id=str(waived), action="infraction_awaiting_judgement",
                                     reason__startswith="Renúncia").exists()
    for pk in (filed, waived):
        assert _judge(api, judge, pk).status_code == 200
    detail = api(applicant).get(f"/api/v1/infractions/{waived}/").json()
    assert detail["defense_waiver"]["text"] == "Renuncio ao prazo." and detail["defense_waiver"]["channel"] == "online"


# --- the notice of the decision opens the appeal period --------------------------------
@pytest.mark.parametrize("late", [False, True])
def test_appeal_on_the_last_day_of_the_decision_notice_accepted_the_next_refused(
        api, any_pack, applicant, judge, clerk, grant_on, issue, chain, clock, late):
    """Alegre art. 18, §§5º–7º (30 days); Itagibá art. 25 (30 days); Araporã art. 25, §1 (10 days):
    counted from the ciência of the notice of the decision, though the first notice was 40 days before."""
    days = int(any_pack.value("appeal.days"))
    x = D - timedelta(days=days)  # decision notice: its day ``days`` is D, a Tuesday
    pk = _issue(issue, any_pack, grant_on, x - timedelta(days=41))
    clock.set(x)
    chain.notify(pk, x - timedelta(days=40))
    judged = _judge(api, judge, pk).json()
    assert judged["appeal_deadline"] is None and judged["decision_notice_pending"] is True
    # nothing becomes final while the notice of the decision is pending
    assert services.close_appeal_windows(x + timedelta(days=400)) == 0
    r = api(clerk).post(f"/api/v1/infractions/{pk}/decision-notice/", {"acknowledged_on": x.isoformat()}, format="json")
    assert r.status_code == 200, r.content
    assert r.json()["appeal_deadline"] == D.isoformat() and "ciência da notificação da decisão" in r.json()[
        "appeal_deadline_note"]
    assert api(clerk).post(f"/api/v1/infractions/{pk}/decision-notice/", {"acknowledged_on": x.isoformat()},
                           format="json").status_code == 409  # recorded once
    clock.set(D + timedelta(days=1) if late else D)
    r = api(applicant).post(f"/api/v1/infractions/{pk}/appeal/", {"text": "Recorro."}, format="json")
    if late:
        assert r.status_code == 409 and r.json()["rule"]["code"] == "appeal_deadline_passed"
        assert "art. 25" in r.json()["rule"]["legal_basis"] or "art. 18, §7" in r.json()["rule"]["legal_basis"]
    else:
        assert r.status_code == 201, r.content


def test_decision_notice_by_refusal_or_publication_and_never_before_the_decision(api, any_pack, judge, clerk,
                                                                                 grant_on, issue, chain, clock):
    pk = _issue(issue, any_pack, grant_on, D - timedelta(days=30))
    chain.notify(pk, D - timedelta(days=25))
    assert _judge(api, judge, pk).status_code == 200
    url = f"/api/v1/infractions/{pk}/decision-notice/"
    r = api(clerk).post(url, {"acknowledged_on": (D - timedelta(days=1)).isoformat()}, format="json")
    assert r.status_code == 400 and "acknowledged_on" in r.json()["errors"]
    r = api(clerk).post(url, {"acknowledged_on": D.isoformat(), "refused": True, "published": True}, format="json")
    assert r.status_code == 400
    r = api(clerk).post(url, {"acknowledged_on": D.isoformat(), "published": True}, format="json")
    assert r.status_code == 200
    notices = api(clerk).get(f"/api/v1/infractions/{pk}/").json()["decision_notices"]
    assert notices[0]["published"] is True and notices[0]["instance"] == 1


# --- two instances, two people -----------------------------------------------------------
def test_the_same_julgador_is_refused_on_the_appeal_another_is_accepted(api, any_pack, applicant, judge, grant_on,
                                                                        issue, chain, clock):
    pk = _issue(issue, any_pack, grant_on, D - timedelta(days=30))
    chain.notify(pk, D - timedelta(days=25))
    assert _judge(api, judge, pk).status_code == 200
    chain.decision_notice(pk, D)
    assert api(applicant).post(f"/api/v1/infractions/{pk}/appeal/", {"text": "Recorro."},
                               format="json").status_code == 201
    url = f"/api/v1/infractions/{pk}/appeal/judge/"
    r = api(judge).post(url, {"granted": False, "grounds": "Mantida."}, format="json")
    assert r.status_code == 409 and r.json()["rule"]["code"] == "same_judge_both_instances"
    assert r.json()["rule"]["legal_basis"] == any_pack.basis("appeal.distinct_judge")
    assert Infraction.objects.get(pk=pk).status == "appealed"
    r = api(other_judge()).post(url, {"granted": False, "grounds": "Mantida."}, format="json")
    assert r.status_code == 200, r.content


def test_ex_officio_review_hears_the_holder_before_making_it_worse(api, itagiba, applicant, judge, clerk, grant_on,
                                                                  issue, chain, clock):
    """PL 015/2025 art. 25, §1 with Lei 9.784/1999 art. 64, parágrafo único."""
    pk = _issue(issue, itagiba, grant_on, D - timedelta(days=30), code="19-VII")
    chain.notify(pk, D - timedelta(days=25))
    r = _judge(api, judge, pk, upheld=False)
    assert r.json()["ex_officio_review"] is True
    url = f"/api/v1/infractions/{pk}/appeal/judge/"
    reviewer = other_judge()
    r = api(reviewer).post(url, {"granted": True, "grounds": "Reforma."}, format="json")
    assert r.status_code == 409 and r.json()["rule"]["code"] == "review_hearing_required"
    assert api(judge).post(url, {"granted": False, "grounds": "x"}, format="json").status_code == 409  # same person
    h = api(clerk).post(f"/api/v1/infractions/{pk}/review/hearing/", {"acknowledged_on": D.isoformat()}, format="json")
    assert h.status_code == 200, h.content
    assert api(reviewer).post(url, {"granted": True, "grounds": "Reforma."}, format="json").status_code == 409
    assert api(applicant).post(f"/api/v1/infractions/{pk}/review/allegations/", {"text": "Mantenham o arquivamento."},
                               format="json").status_code == 201
    r = api(reviewer).post(url, {"granted": True, "grounds": "Reforma após ouvido o autuado."}, format="json")
    assert r.status_code == 200 and r.json()["status"] == "final"


# --- business days -------------------------------------------------------------------------
@pytest.mark.parametrize("notice_on,last_day", [
    (date(2026, 6, 5), date(2026, 6, 22)),   # +15 = Saturday 20/06 → Monday 22/06
    (date(2026, 8, 23), date(2026, 9, 8)),   # +15 = Monday 07/09 (Independência) → 08/09
])
def test_a_period_ending_on_a_saturday_or_a_holiday_moves_to_the_next_business_day(
        api, any_pack, judge, grant_on, issue, chain, clock, notice_on, last_day):
    clock.set(date(2026, 9, 30))
    pk = _issue(issue, any_pack, grant_on, notice_on - timedelta(days=1))
    notified = chain.notify(pk, notice_on)
    assert notified["defense_deadline"] == last_day.isoformat()
    assert "primeiro dia útil" in notified["defense_deadline_note"] and "art. 66" in notified["defense_deadline_note"]
    clock.set(last_day)
    assert _judge(api, judge, pk).status_code == 409  # the moved last day still belongs to the defense
    clock.set(last_day + timedelta(days=1))
    assert _judge(api, judge, pk).status_code == 200


@pytest.mark.parametrize("slug,notice_on,last_day", [
    ("alegre", date(2026, 3, 29), date(2026, 4, 14)),   # 13/04: Nossa Senhora da Penha (ES)
    ("itagiba", date(2026, 6, 17), date(2026, 7, 3)),   # 02/07: Independência da Bahia (BA)
])
def test_state_holidays_of_the_pack_move_the_deadline(request, slug, issue, chain, clock, notice_on, last_day):
    pack = request.getfixturevalue(slug)
    grant = request.getfixturevalue("grant_on")
    clock.set(date(2026, 9, 30))
    pk = _issue(issue, pack, grant, notice_on - timedelta(days=1))
    assert chain.notify(pk, notice_on)["defense_deadline"] == last_day.isoformat()


def test_a_municipal_holiday_of_the_pack_moves_the_deadline(api, arapora, grant_on, issue, chain, clock):
    from portal.models import Municipality, RegulationParameter

    RegulationParameter.objects.create(municipality=Municipality.objects.get(is_active=True),
                                       key="deadlines.municipal_holidays",
                                       value=[{"date": "06-16", "name": "Aniversário do município"}],
                                       legal_basis="Lei municipal de feriados", effective_from=date(2020, 1, 1),
                                       source="admin")
    regulation.invalidate()
    pk = _issue(issue, arapora, grant_on, D - timedelta(days=16))
    notified = chain.notify(pk, D - timedelta(days=15))
    assert notified["defense_deadline"] == (D + timedelta(days=1)).isoformat()
    assert "feriado municipal" in notified["defense_deadline_note"]


# --- example values produce no legal effect ------------------------------------------------------
def test_a_fine_with_an_example_value_charges_nothing_until_the_regulation_is_recorded(
        api, any_pack, judge, admin_user, applicant, grant_on, issue, chain, clock):
    code = FINE_CODE[any_pack.slug]
    pk = _issue(issue, any_pack, grant_on, D - timedelta(days=30))
    chain.notify(pk, D - timedelta(days=25))
    judged = _judge(api, judge, pk).json()
    assert "fine" in judged["penalty"]["kinds"] and judged["penalty"]["amount"] is None
    assert judged["missing_regulation"] and judged["penalty"]["missing_regulation"] == judged["missing_regulation"]
    missing = api(admin_user).get("/api/v1/regulations/").json()["missing"]
    key = "fiscal_unit" if any_pack.slug != "alegre" else f"fine:{code}"
    assert key in [m["key"] for m in missing]
    # the regulation is recorded, in force since before the infraction
    assert api(applicant).post("/api/v1/regulations/", {"key": key, "number": "Decreto nº 5/2026",
                                                       "date": "2026-01-02", "value": "12.00"},
                               format="json").status_code == 403
    r = api(admin_user).post("/api/v1/regulations/", {"key": key, "number": "Decreto nº 5/2026", "date": "2026-01-02",
                                                      "value": "12.00"}, format="json")
    assert r.status_code == 201, r.content
    assert AuditEntry.objects.filter(action="regulation_recorded").exists()
    if any_pack.slug == "itagiba":  # 19-I: a fine left to regulation, on top of the example UFP
        assert api(admin_user).post("/api/v1/regulations/", {"key": "fine:4-P1", "number": "x", "date": "2026-01-02",
                                                             "value": "1"}, format="json").status_code == 400
    second = _issue(issue, any_pack, grant_on, D - timedelta(days=20))
    chain.notify(second, D - timedelta(days=18))
    penalty = _judge(api, judge, second).json()["penalty"]
    assert penalty["missing_regulation"] is None and penalty["amount"] is not None
    # the first auto: at the final decision the regulation in force on the day of its infraction applies
    chain.decision_notice(pk, D)
    services.close_appeal_windows(D + timedelta(days=60))
    inf = Infraction.objects.get(pk=pk)
    assert inf.status == "final" and inf.fine.amount > 0


def test_a_regulation_in_force_after_the_infraction_does_not_reach_it(api, alegre, judge, admin_user, grant_on,
                                                                     issue, chain, clock):
    pk = _issue(issue, alegre, grant_on, D - timedelta(days=30))
    chain.notify(pk, D - timedelta(days=25))
    api(admin_user).post("/api/v1/regulations/", {"key": "fine:19-I", "number": "Decreto nº 7/2026",
                                                  "date": (D - timedelta(days=10)).isoformat(), "value": "200.00"},
                         format="json")
    assert _judge(api, judge, pk).json()["penalty"]["amount"] is None


def test_regulation_input_is_checked(api, alegre, admin_user, clock):
    r = api(admin_user).post("/api/v1/regulations/", {"key": "fine:99-Z", "number": "", "date": "2099-01-01",
                                                      "value": "0"}, format="json")
    assert r.status_code == 400


# --- recidivism recomputed ---------------------------------------------------------------------
def test_an_annulled_earlier_auto_no_longer_doubles_the_later_fine(api, alegre, applicant, judge, grant_on, issue,
                                                                   chain, clock):
    """Lei 3.703/2022 art. 23: the first auto granted on appeal stops counting; the second is recomputed."""
    chain.regulate()
    first = _issue(issue, alegre, grant_on, D - timedelta(days=40))
    chain.notify(first, D - timedelta(days=39))
    second = _issue(issue, alegre, grant_on, D - timedelta(days=30))
    chain.notify(second, D - timedelta(days=29))
    assert _judge(api, judge, first).json()["penalty"]["multiplier"] == 1
    doubled = _judge(api, judge, second).json()["penalty"]
    assert doubled["multiplier"] == 2 and doubled["amount"] == "300.00"
    chain.decision_notice(first, D)
    api(applicant).post(f"/api/v1/infractions/{first}/appeal/", {"text": "Não fui eu."}, format="json")
    chain.judge_appeal(first, granted=True)
    recomputed = Infraction.objects.get(pk=second).penalty
    assert recomputed["multiplier"] == 1 and recomputed["amount"] == "150.00" and not recomputed["recidivism"]
    entry = AuditEntry.objects.get(action="penalty_recomputed", object_id=str(second))
    assert entry.data["before"]["amount"] == "300.00" and entry.data["after"]["amount"] == "150.00"
    from portal.models import Notification

    assert Notification.objects.filter(recipient=applicant, subject__startswith="Penalidade recalculada").exists()


def test_arapora_cancelled_earlier_auto_stops_doubling_and_a_warning_counts(api, arapora, judge, grant_on, issue,
                                                                          chain, clock):
    """Lei 724/2008 art. 26: any earlier infraction within 90 days (a warning too) makes a recidivism."""
    chain.regulate()
    warning = _issue(issue, arapora, grant_on, D - timedelta(days=60), code="23-X")  # A + B-1
    chain.notify(warning, D - timedelta(days=59))
    assert _judge(api, judge, warning).status_code == 200
    later = _issue(issue, arapora, grant_on, D - timedelta(days=30))
    chain.notify(later, D - timedelta(days=29))
    penalty = _judge(api, judge, later).json()["penalty"]
    assert penalty["multiplier"] == 2 and penalty["amount"] == "40.00"
    r = api(judge).post(f"/api/v1/infractions/{warning}/cancel/", {"reason": "Placa errada."}, format="json")
    assert r.status_code == 200
    assert Infraction.objects.get(pk=later).penalty["amount"] == "20.00"


# --- Itagibá: refusing the notice cancels the authorization (art. 21, §2, III) ---------------------------
def test_itagiba_refusal_of_the_notice_cancels_the_grant_without_the_cassation_bar(api, itagiba, applicant, grant_on,
                                                                                  issue, chain, clock):
    from licensing.grants.selectors import active_bar

    pk = _issue(issue, itagiba, grant_on, D - timedelta(days=3))
    chain.notify(pk, D - timedelta(days=2), refused=True)
    grant_on.refresh_from_db()
    assert grant_on.status == "cancelled" and "art. 21, §2, III" in grant_on.status_reason
    assert active_bar(applicant.cpf, D) is None  # the 60 months belong to cassação (art. 19, §4)
    assert Infraction.objects.get(pk=pk).status == "notified"  # the procedure goes on


def test_alegre_refusal_counts_as_notice_and_keeps_the_grant(api, alegre, grant_on, issue, chain, clock):
    pk = _issue(issue, alegre, grant_on, D - timedelta(days=3))
    chain.notify(pk, D - timedelta(days=2), refused=True)
    grant_on.refresh_from_db()
    assert grant_on.status == "active"


# --- paper ------------------------------------------------------------------------------------
@pytest.mark.parametrize("received_day,expected", [(15, 201), (16, 409)])
def test_a_defense_delivered_on_paper_is_judged_by_its_date_of_receipt(api, any_pack, clerk, applicant, grant_on,
                                                                       issue, chain, clock, received_day, expected):
    notice_on = D - timedelta(days=20)
    pk = _issue(issue, any_pack, grant_on, notice_on - timedelta(days=1))
    chain.notify(pk, notice_on)
    assert api(applicant).post(f"/api/v1/infractions/{pk}/defense/paper/", {"text": "x", "received_on": D.isoformat()},
                               format="json").status_code == 403
    # recorded days later, received at the counter on day 15 (or 16)
    r = api(clerk).post(f"/api/v1/infractions/{pk}/defense/paper/",
                        {"text": "Defesa entregue no balcão.", "channel": "counter",
                         "received_on": (notice_on + timedelta(days=received_day)).isoformat()}, format="multipart")
    assert r.status_code == expected, r.content
    if expected == 201:
        detail = api(applicant).get(f"/api/v1/infractions/{pk}/").json()
        assert detail["defense"]["channel"] == "counter" and detail["defense"]["received_by"]
        assert detail["defense"]["filed_on"] == (notice_on + timedelta(days=received_day)).isoformat()


def test_an_appeal_by_post_and_its_scanned_pages(api, any_pack, clerk, judge, grant_on, issue, chain, clock):
    from django.core.files.uploadedfile import SimpleUploadedFile

    pk = _issue(issue, any_pack, grant_on, D - timedelta(days=30))
    chain.notify(pk, D - timedelta(days=25))
    clock.set(D - timedelta(days=2))
    _judge(api, judge, pk)
    chain.decision_notice(pk, D - timedelta(days=2))
    clock.set(D)
    page = SimpleUploadedFile("recurso.pdf", b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n",
                              content_type="application/pdf")
    r = api(clerk).post(f"/api/v1/infractions/{pk}/appeal/paper/",
                        {"text": "Recurso pelo correio.", "channel": "post", "received_on": D.isoformat(), "pages": page},
                        format="multipart")
    assert r.status_code == 201, r.content
    detail = api(clerk).get(f"/api/v1/infractions/{pk}/").json()
    assert detail["appeals"][0]["channel"] == "post" and detail["attachments"][0]["kind"] == "appeal"


# --- the procedure on the auto's page ----------------------------------------------------------
def test_the_auto_shows_the_periods_and_what_may_be_done_now(api, web, any_pack, judge, clerk, applicant, grant_on,
                                                             issue, chain, clock):
    from django.urls import reverse

    pk = _issue(issue, any_pack, grant_on, D - timedelta(days=3))
    chain.notify(pk, D - timedelta(days=2))
    detail = api(clerk).get(f"/api/v1/infractions/{pk}/").json()
    defense = detail["periods"][0]
    assert defense["code"] == "defense" and defense["end"] == detail["defense_deadline"]
    assert defense["legal_basis"] == any_pack.basis("defense.days") and defense["counted"]
    judge_action = next(a for a in detail["allowed_actions"] if a["code"] == "judge")
    assert judge_action["by"] == "julgador" and judge_action["from"] == (
        date.fromisoformat(detail["defense_deadline"]) + timedelta(days=1)).isoformat()
    page = web(judge).get(reverse("enforcement:detail", args=[pk])).content.decode()
    assert "Processo administrativo" in page and "Prazo da defesa prévia" in page and "a partir de" in page
    page = web(applicant).get(reverse("enforcement:detail", args=[pk])).content.decode()
    assert "Renunciar ao prazo de defesa" in page


# the designated appeal authority (a profile per municipality): tests/enforcement/test_appeal_authority.py


def test_arapora_second_instance_counts_from_the_notice_of_the_appeal_decision(api, arapora, applicant, judge,
                                                                               grant_on, issue, chain, clock):
    """Lei 724/2008 art. 25, §2: for D and E, 10 more days to the Prefeito, from the notice of the
    Secretaria's decision; the same people never decide twice."""
    from tests.conftest import make_user

    pk = _issue(issue, arapora, grant_on, D - timedelta(days=60), code="23-II")  # B-1, C-2 and D
    clock.set(D - timedelta(days=30))
    chain.notify(pk, D - timedelta(days=55))
    assert _judge(api, judge, pk).status_code == 200
    chain.decision_notice(pk, D - timedelta(days=30))
    api(applicant).post(f"/api/v1/infractions/{pk}/appeal/", {"text": "1ª instância."}, format="json")
    clock.set(D - timedelta(days=10))
    first = chain.judge_appeal(pk, granted=False, notify_decision=False)
    assert first["status"] == "upheld" and first["decision_notice_pending"] is True
    noticed = chain.decision_notice(pk, D - timedelta(days=10))
    assert noticed["instance"] == 2 and noticed["appeal_deadline"] == D.isoformat()
    clock.set(D + timedelta(days=1))
    r = api(applicant).post(f"/api/v1/infractions/{pk}/appeal/", {"text": "Tarde."}, format="json")
    assert r.status_code == 409 and "art. 25, §2" in r.json()["rule"]["legal_basis"]
    clock.set(D)
    assert api(applicant).post(f"/api/v1/infractions/{pk}/appeal/", {"text": "2ª instância."},
                               format="json").status_code == 201
    chain.judge_appeal(pk, granted=False, expect=409)  # decided the first appeal
    final = chain.judge_appeal(pk, granted=False, user=make_user("prefeito", "julgador"))
    assert final["status"] == "final"
    grant_on.refresh_from_db()
    assert grant_on.status == "suspended"  # only now, with the final decision
