"""The HTML journeys: agent, clerk, holder and julgador, the PDFs, immutability, queries."""

import os
import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from enforcement import services
from enforcement.models import Infraction
from licensing.grants.selectors import active_bar
from portal import regulation
from portal.models import AuditEntry
from tests.enforcement.helpers import due, other_judge, regulate_all

pytestmark = pytest.mark.django_db


def _form(plate, code, key="k1", when=None, **extra):
    pack = regulation.current()
    when = when or timezone.now()
    return {"plate": plate, "infraction_code": code, "occurred_at": when.astimezone(pack.tz).strftime("%Y-%m-%dT%H:%M"),
            "location": "Av. Brasil, 100", "description": "Cobrança acima da tarifa.", "driver_cpf": "",
            "idempotency_key": key, **extra}


def _chain_html(web, pack, grant, code, agent, clerk, judge, applicant, appeal=True):
    regulate_all()
    today = pack.today()
    r = web(agent).post(reverse("enforcement:new"), _form(grant.vehicle.plate, code,
                                                          when=timezone.now() - timedelta(days=1)))
    assert r.status_code == 302, r.content.decode()[:2000]
    inf = Infraction.objects.get()
    r = web(clerk).post(reverse("enforcement:notify", args=[inf.pk]), {"acknowledged_on": today.isoformat()})
    assert r.status_code == 302
    inf.refresh_from_db()
    if inf.status == "notified":
        page = web(applicant).get(reverse("enforcement:mine")).content.decode()
        days = (inf.defense_deadline - today).days  # 15, or more when the last day had no office hours
        assert inf.number in page and f"faltam {days} dias" in page
        r = web(applicant).post(reverse("enforcement:defense", args=[inf.pk]), {"text": "Não cometi a infração."})
        assert r.status_code == 302
    queue = web(judge).get(reverse("enforcement:queue")).content.decode()
    assert inf.number in queue
    page = web(judge).get(reverse("enforcement:judge", args=[inf.pk])).content.decode()
    assert "Penalidade que a lei impõe" in page
    r = web(judge).post(reverse("enforcement:judge", args=[inf.pk]), {"upheld": "1", "grounds": "Provas do agente."})
    if r.status_code == 200:  # a decision that suspends or ends the grant is confirmed first
        page = r.content.decode()
        assert "Confirmar e registrar a decisão" in page
        digest = re.search(r'name="digest" value="([0-9a-f]+)"', page).group(1)
        r = web(judge).post(reverse("enforcement:judge", args=[inf.pk]),
                            {"upheld": "1", "grounds": "Provas do agente.", "confirm": "1", "digest": digest})
    assert r.status_code == 302
    # the notice of the decision opens the appeal period
    r = web(clerk).post(reverse("enforcement:decision-notice", args=[inf.pk]), {"acknowledged_on": today.isoformat()})
    assert r.status_code == 302, r.content.decode()[:3000]
    if appeal:
        r = web(applicant).post(reverse("enforcement:appeal", args=[inf.pk]), {"text": "Peço reconsideração."})
        assert r.status_code == 302
        r = web(judge).post(reverse("enforcement:appeal-judge", args=[inf.pk]), {"granted": "0", "grounds": "Mantida."})
        assert r.status_code == 409  # the same julgador may not decide the appeal
        r = web(other_judge()).post(reverse("enforcement:appeal-judge", args=[inf.pk]),
                                    {"granted": "0", "grounds": "Mantida."})
        assert r.status_code == 302
    inf.refresh_from_db()
    return inf


def test_full_chain_alegre_html(web, alegre, grant, agent, clerk, judge, applicant):
    inf = _chain_html(web, alegre, grant, "19-I", agent, clerk, judge, applicant)
    assert inf.status == "final" and inf.fine.amount == 150
    page = web(applicant).get(reverse("enforcement:detail", args=[inf.pk])).content.decode()
    assert "R$ 150,00" in page and "DAM nº" in page
    r = web(clerk).post(reverse("enforcement:fine-paid", args=[inf.pk]), {"paid_on": alegre.today().isoformat()})
    assert r.status_code == 302
    inf.fine.refresh_from_db()
    assert inf.fine.paid


def test_full_chain_itagiba_html_cassation_bars(web, itagiba, grant, agent, clerk, judge, applicant):
    inf = _chain_html(web, itagiba, grant, "19-VII", agent, clerk, judge, applicant, appeal=False)
    assert inf.status == "upheld"
    services.close_appeal_windows(due(itagiba.today(), 30) + timedelta(days=1))
    grant.refresh_from_db()
    assert grant.status == "cassada" and active_bar(applicant.cpf, itagiba.today()) is not None
    # the act of cassation waits on the one publication desk (the old page redirects there)
    assert web(judge).get(reverse("enforcement:publication")).status_code == 302
    page = web(judge).get(reverse("licensing-publications")).content.decode()
    assert "Cassações" in page and f"{grant.act_name} nº {grant.number}" in page


def test_full_chain_arapora_html(web, arapora, grant, agent, clerk, judge, applicant):
    inf = _chain_html(web, arapora, grant, "23-I", agent, clerk, judge, applicant)
    assert inf.status == "final" and str(inf.fine.amount) == "20.00"


def test_agent_double_submit_of_the_form_creates_one_auto(web, alegre, grant, agent):
    client = web(agent)
    data = _form(grant.vehicle.plate, "19-I", key="same-key")
    first = client.post(reverse("enforcement:new"), data)
    second = client.post(reverse("enforcement:new"), data)
    assert first.status_code == second.status_code == 302 and first["Location"] == second["Location"]
    assert Infraction.objects.count() == 1


def test_auto_form_keeps_values_and_names_fields_on_error(web, alegre, agent):
    r = web(agent).post(reverse("enforcement:new"), _form("1", "19-I", location=""))
    body = r.content.decode()
    assert r.status_code == 400 and "error-summary" in body and 'value="1"' in body


def test_auto_form_defaults_to_now_and_has_a_hidden_key(web, alegre, agent):
    body = web(agent).get(reverse("enforcement:new")).content.decode()
    assert 'type="datetime-local"' in body and 'name="idempotency_key"' in body and 'type="hidden"' in body
    assert timezone.now().astimezone(alegre.tz).strftime("%Y-%m-%dT") in body


def test_new_auto_with_missing_fields_says_what_to_fill(web, itagiba, agent):
    body = web(agent).post(reverse("enforcement:new"), {"plate": "ABC1D23"}).content.decode()
    assert "Informe: local." in body and "Escolha uma opção em “Infração (código do catálogo)”." in body
    assert "Este campo é obrigatório" not in body


def test_plate_lookup_shows_verdict(web, itagiba, grant, agent):
    body = web(agent).get(reverse("enforcement:lookup"), {"plate": grant.vehicle.plate}).content.decode()
    assert "AUTORIZADO" in body and grant.number in body
    body = web(agent).get(reverse("enforcement:lookup"), {"plate": "QQQ1Q11"}).content.decode()
    assert "IRREGULAR" in body and "sem autorização" in body
    # a mistyped plate is a typing error, not an unauthorised vehicle
    body = web(agent).get(reverse("enforcement:lookup"), {"plate": "12"}).content.decode()
    assert "IRREGULAR" not in body and "Placa inválida" in body


def test_late_defense_through_html_says_the_article(web, alegre, grant, agent, clerk, applicant):
    inf, _ = services.infraction_issue(actor=agent, plate=grant.vehicle.plate, infraction_code="19-I",
                                       occurred_at=timezone.now() - timedelta(days=30), location="x", description="y")
    # well past the 15 days: a 15th day on a weekend or holiday is moved to the next business day
    # (Lei 9.784/1999, art. 66, §1º), so "16 days ago" is not late on every date (the day-15/16
    # boundary is tested with fixed dates in the deadline rules' tests)
    services.infraction_notify(actor=clerk, infraction=inf, acknowledged_on=alegre.today() - timedelta(days=25))
    r = web(applicant).post(reverse("enforcement:defense", args=[inf.pk]), {"text": "Tarde"})
    assert r.status_code == 409 and "art. 18, §4" in r.content.decode()


def test_admin_cannot_change_or_delete_an_auto(web, alegre, grant, agent, admin_user):
    inf, _ = services.infraction_issue(actor=agent, plate=grant.vehicle.plate, infraction_code="19-I",
                                       occurred_at=timezone.now(), location="x", description="y")
    client = web(admin_user)
    change = reverse("admin:enforcement_infraction_change", args=[inf.pk])
    assert client.get(change).status_code == 200  # view only
    r = client.post(change, {"location": "outro", "status": "cancelled"})
    assert r.status_code == 403
    assert client.post(reverse("admin:enforcement_infraction_delete", args=[inf.pk]), {"post": "yes"}).status_code == 403
    assert client.get(reverse("admin:enforcement_infraction_add")).status_code == 403
    inf.refresh_from_db()
    assert inf.location == "x" and inf.status == "issued"


def test_audit_log_shows_every_step(alegre, grant, agent, clerk, judge, applicant):
    regulate_all()
    inf, _ = services.infraction_issue(actor=agent, plate=grant.vehicle.plate, infraction_code="19-I",
                                       occurred_at=timezone.now(), location="x", description="y")
    services.infraction_notify(actor=clerk, infraction=inf, acknowledged_on=alegre.today())
    services.defense_file(actor=applicant, infraction=inf, text="d")
    services.infraction_judge(actor=judge, infraction=inf, upheld=True, grounds="g")
    services.appeal_file(actor=applicant, infraction=inf, text="a")  # before the notice of the decision: in time
    services.appeal_judge(actor=other_judge(), infraction=inf, granted=False, grounds="n")
    entries = list(AuditEntry.objects.filter(object_type="enforcement.infraction", object_id=str(inf.pk))
                   .order_by("at", "id").values_list("action", "from_state", "to_state", "actor_label"))
    assert [e[0] for e in entries] == [
        "infraction_issued", "infraction_notified", "infraction_defense_filed", "infraction_upheld",
        "infraction_appealed", "appeal_judged", "infraction_final", "infraction_effects"]
    assert entries[1][1:] == ("issued", "notified", clerk.username)
    assert AuditEntry.objects.filter(action="fine_issued").exists()


@pytest.mark.parametrize("url_name,who", [("enforcement:mine", "requerente"), ("enforcement:list", "atendente"),
                                          ("enforcement:queue", "julgador"), ("enforcement:notice-queue", "atendente")])
def test_html_lists_use_constant_queries(web, alegre, personas, grant, url_name, who):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    pack = regulation.current()
    client = web(personas[who])
    counts = []
    for rows in (1, 30):
        for _n in range(rows - Infraction.objects.count()):
            Infraction.objects.create(number=f"{Infraction.objects.count() + 1:03d}/2026", plate=grant.vehicle.plate,
                                      holder=grant.holder, authorization=grant, agent=personas["agente"],
                                      infraction_code="19-I", occurred_at=timezone.now(), occurred_on=pack.today(),
                                      location="x", description="y",
                                      status="issued" if url_name == "enforcement:notice-queue" else "awaiting_judgement")
        client.get(reverse(url_name))
        with CaptureQueriesContext(connection) as ctx:
            body = client.get(reverse(url_name)).content.decode()
        assert body.count("/2026</a>") == rows
        counts.append(len(ctx.captured_queries))
    assert counts[0] == counts[1], counts


@pytest.mark.parametrize("doc", ["auto", "notice", "decision", "dam"])
def test_pdfs_render(web, any_pack, applicant, agent, clerk, judge, doc):
    from tests.factories import VehicleFactory, issue_authorization

    pack = regulation.current()
    grant, _ = issue_authorization(holder=applicant, vehicle=VehicleFactory(owner=applicant),
                                   valid_from=pack.today() - timedelta(days=100))
    code = {"alegre": "19-I", "itagiba": "19-VII", "arapora": "23-IX"}[pack.slug]
    inf, _ = services.infraction_issue(actor=agent, plate=grant.vehicle.plate, infraction_code=code,
                                       occurred_at=timezone.now() - timedelta(days=2), location="Praça da Matriz",
                                       description="Cobrança acima da tarifa, constatada com o passageiro.",
                                       driver_cpf=applicant.cpf, alvara_retained=True)
    regulate_all()
    services.infraction_notify(actor=clerk, infraction=inf, acknowledged_on=pack.today() - timedelta(days=1))
    services.defense_waive(actor=applicant, infraction=inf, text="Renuncio ao prazo de defesa.")
    services.infraction_judge(actor=judge, infraction=inf, upheld=True, grounds="Comprovada a infração pelo relato do agente.")
    services.decision_notice_record(actor=clerk, infraction=inf, acknowledged_on=pack.today())
    services.appeal_file(actor=applicant, infraction=inf, text="Recurso.")
    services.appeal_judge(actor=other_judge(), infraction=inf, granted=False, grounds="Mantida a decisão.")
    r = web(applicant).get(reverse("enforcement:pdf", args=[inf.pk, doc]))
    assert r.status_code == 200 and r["Content-Type"] == "application/pdf" and r.content.startswith(b"%PDF")
    dump = os.environ.get("ENFORCEMENT_PDF_DUMP")
    if dump:
        with open(os.path.join(dump, f"{pack.slug}-{doc}.pdf"), "wb") as fh:
            fh.write(r.content)


def test_judge_page_shows_the_recidivism_with_the_earlier_autos(web, alegre, grant, agent, clerk, judge):
    regulate_all()
    day = timezone.now() - timedelta(days=20)
    first, _ = services.infraction_issue(actor=agent, plate=grant.vehicle.plate, infraction_code="19-I",
                                         occurred_at=day, location="x", description="y")
    services.infraction_notify(actor=clerk, infraction=first, acknowledged_on=alegre.today() - timedelta(days=19))
    services.infraction_judge(actor=judge, infraction=first, upheld=True, grounds="g")
    second, _ = services.infraction_issue(actor=agent, plate=grant.vehicle.plate, infraction_code="19-II",
                                          occurred_at=day + timedelta(days=10), location="x", description="y")
    services.infraction_notify(actor=clerk, infraction=second, acknowledged_on=alegre.today())
    body = web(judge).get(reverse("enforcement:judge", args=[second.pk])).content.decode()
    assert "Reincidência" in body and f"auto nº {first.number}" in body and "10 dias antes" in body
    assert "R$ 300,00" in body and "art. 23" in body and "art. 19, II" in body


def test_home_tells_the_holder_of_a_running_deadline(web, alegre, grant, agent, clerk, applicant, outsider):
    inf, _ = services.infraction_issue(actor=agent, plate=grant.vehicle.plate, infraction_code="19-I",
                                       occurred_at=timezone.now(), location="x", description="y")
    services.infraction_notify(actor=clerk, infraction=inf, acknowledged_on=alegre.today())
    deadline = due(alegre.today(), 15, "defense.days").strftime("%d/%m/%Y")
    assert f"vence em {deadline}" in web(applicant).get("/").content.decode()
    assert "autos de infração com prazo" not in web(outsider).get("/").content.decode()


def test_no_html_path_edits_or_deletes_an_auto(web, alegre, grant, agent, judge, clerk, admin_user):
    from django.urls import get_resolver

    inf, _ = services.infraction_issue(actor=agent, plate=grant.vehicle.plate, infraction_code="19-I",
                                       occurred_at=timezone.now(), location="x", description="y")
    included = [r for r in get_resolver().url_patterns if getattr(r, "namespace", None) == "enforcement"]
    names = [pattern.name for r in included for pattern in r.url_patterns]
    assert names and not [n for n in names if any(w in n for w in ("edit", "update", "delete", "change"))]
    for user in (agent, judge, clerk, admin_user):
        client = web(user)
        url = reverse("enforcement:detail", args=[inf.pk])
        assert client.post(url, {"location": "outro"}).status_code == 405
        assert client.delete(url).status_code == 405
        assert client.put(url, {"location": "outro"}).status_code == 405
    inf.refresh_from_db()
    assert inf.location == "x" and inf.status == "issued"


def test_periodic_tasks_run_through_celery_and_record_the_run(alegre, grant, agent, clerk):
    from enforcement import tasks
    from portal.models import JobRun

    inf, _ = services.infraction_issue(actor=agent, plate=grant.vehicle.plate, infraction_code="19-I",
                                       occurred_at=timezone.now() - timedelta(days=40), location="x", description="y")
    services.infraction_notify(actor=clerk, infraction=inf, acknowledged_on=alegre.today() - timedelta(days=30))
    assert tasks.close_defense_windows.delay().get() == 1
    assert tasks.close_defense_windows.delay().get() == 0
    assert tasks.close_appeal_windows.delay().get() == 0 and tasks.lift_ended_suspensions.delay().get() == 0
    assert JobRun.objects.filter(name="enforcement_close_defense_windows").count() == 2


def test_judgement_page_has_breadcrumbs_back_to_the_queue_and_the_auto(web, alegre, grant, agent, clerk, judge):
    inf, _ = services.infraction_issue(actor=agent, plate=grant.vehicle.plate, infraction_code="19-I",
                                       occurred_at=timezone.now() - timedelta(days=1), location="x", description="y")
    services.infraction_notify(actor=clerk, infraction=inf, acknowledged_on=alegre.today())
    body = web(judge).get(reverse("enforcement:judge", args=[inf.pk])).content.decode()
    trail = body[body.index('aria-label="Trilha de navegação"'):body.index("</nav>", body.index("Trilha de navegação"))]
    assert f'href="{reverse("enforcement:queue")}">Fila de julgamento</a>' in trail
    assert f'href="{reverse("enforcement:detail", args=[inf.pk])}">Auto nº {inf.number}</a>' in trail
    assert 'aria-current="page">Julgar o auto de infração</li>' in trail


@pytest.mark.parametrize("notice_days_ago,blocked", [(15, True), (16, False)])
def test_judge_page_blocks_the_judgement_while_the_defense_period_runs(web, alegre, judge, grant, issue, chain,
                                                                      notice_days_ago, blocked):
    """Lei 3.703/2022 art. 18, §4: 15 days of defense from the ciência — on day 15 the page shows the date
    from which the auto may be judged instead of the button; on day 16 the form."""
    today = alegre.today()
    notice_on = today - timedelta(days=notice_days_ago)
    body = issue(grant.vehicle.plate, "19-I", notice_on - timedelta(days=1))
    chain.notify(body["id"], notice_on)
    deadline = Infraction.objects.get(pk=body["id"]).defense_deadline
    if deadline > notice_on + timedelta(days=15):  # a non-business day moved the last day on
        pytest.skip("the last day fell on a non-business day: covered by the rules tests")
    page = web(judge).get(reverse("enforcement:judge", kwargs={"pk": body["id"]})).content.decode()
    assert ('id="judgement-blocked"' in page) is blocked
    assert ("Confirmar</button>" in page) is not blocked
    if blocked:
        assert f"a partir de <strong>{today + timedelta(days=1):%d/%m/%Y}</strong>" in page and "art. 18, §4" in page
        r = web(judge).post(reverse("enforcement:judge", kwargs={"pk": body["id"]}), {"upheld": "1", "grounds": "x"})
        assert r.status_code == 409 and Infraction.objects.get(pk=body["id"]).status == "notified"


def test_judge_finds_the_suspensive_effect_action_on_an_appealed_auto(web, api, itagiba, applicant, judge, grant,
                                                                       issue, chain):
    today = itagiba.today()
    body = issue(grant.vehicle.plate, "19-VII", today - timedelta(days=3))
    chain.notify(body["id"], today - timedelta(days=2))
    chain.judge(body["id"])
    detail = reverse("enforcement:detail", kwargs={"pk": body["id"]})
    assert "Conceder efeito suspensivo" not in web(judge).get(detail).content.decode()
    api(applicant).post(f"/api/v1/infractions/{body['id']}/appeal/", {"text": "Recorro."}, format="json")
    assert "Conceder efeito suspensivo" in web(judge).get(detail).content.decode()
    r = web(judge).post(reverse("enforcement:suspensive-effect", kwargs={"pk": body["id"]}),
                        {"grounds": "Dano de difícil reparação."}, follow=True)
    assert "Efeito suspensivo concedido" in r.content.decode()
    grant.refresh_from_db()
    assert grant.status == "active"
