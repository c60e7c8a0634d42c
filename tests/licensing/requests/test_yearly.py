"""Yearly obligations: Alegre's re-registration of auxiliary drivers (Lei 3.703/2022, art. 7,
§2) and Araporã's yearly proof of requirements in a 4-year permission (Lei 724/2008, art. 3,
§2): rules at their boundaries, requests end to end (API and HTML), the job (idempotent)."""

from datetime import date, timedelta

import pytest

from licensing.grants.rules import add_years
from licensing.models import AlvaraStatus
from licensing.requests.models import AuxiliaryDriver, AuxiliaryStatus, RequestKind, YearlyNotice
from licensing.requests.rules import (
    auxiliary_reregistration_due,
    compliance_anniversaries,
    compliance_filing,
    yearly_due,
)
from licensing.requests.services import yearly_obligations_check
from portal.models import AuditEntry, Notification
from portal.regulation import Param
from tests.licensing.requests.helpers import aux_data, decide, file, grant

pytestmark = pytest.mark.django_db

ART_7 = "Lei 3.703/2022 (Alegre/ES), art. 7, §2"
ART_3 = "Lei 724/2008 (Araporã/MG), art. 3, §2"


# --- pure rules at the boundaries -----------------------------------------------------------
def test_reregistration_due_on_day_365_is_on_time_and_day_366_overdue():
    registered = date(2025, 3, 1)
    due_on = auxiliary_reregistration_due(registered)
    assert due_on == date(2026, 3, 1) and (due_on - registered).days == 365
    assert yearly_due(due_on=due_on, today=registered + timedelta(days=365)).overdue is False
    assert yearly_due(due_on=due_on, today=registered + timedelta(days=366)).overdue is True


def test_yearly_reminder_window_is_30_days():
    due_on = date(2026, 3, 1)
    assert yearly_due(due_on=due_on, today=due_on - timedelta(days=31)).remind is False
    assert yearly_due(due_on=due_on, today=due_on - timedelta(days=30)).remind is True
    assert yearly_due(due_on=due_on, today=due_on).remind is True
    assert yearly_due(due_on=due_on, today=due_on + timedelta(days=1)).remind is False


def test_compliance_anniversary_day_on_time_the_day_after_late():
    param = Param("grant.yearly_compliance_proof", True, ART_3, date(2008, 1, 1))
    start = date(2024, 5, 10)
    end = add_years(start, 4)
    assert compliance_anniversaries(valid_from=start, valid_until=end) == [
        date(2025, 5, 10), date(2026, 5, 10), date(2027, 5, 10)]
    on_time = compliance_filing(param=param, valid_from=start, valid_until=end, proven_years=set(),
                                filed_on=date(2025, 5, 10))
    assert (on_time.year, on_time.late) == (1, False)
    late = compliance_filing(param=param, valid_from=start, valid_until=end, proven_years=set(),
                             filed_on=date(2025, 5, 11))
    assert (late.year, late.late) == (1, True)
    early = compliance_filing(param=param, valid_from=start, valid_until=end, proven_years={1},
                              filed_on=date(2025, 5, 9))
    assert early.code == "compliance_proof_too_early"
    none = compliance_filing(param=None, valid_from=start, valid_until=end, proven_years=set(), filed_on=start)
    assert none.code == "compliance_proof_not_provided"


# --- Alegre: re-registration of auxiliary drivers ------------------------------------------
def _aux(api, applicant, clerk, auth, registered_on=None):
    r = file(api, applicant, auth, "auxiliary_add", aux_data(cnh_category="D"))
    assert r.status_code == 201, r.json()
    decide(api, clerk, r.json()["id"])
    aux = AuxiliaryDriver.objects.get(authorization=auth, status=AuxiliaryStatus.ACTIVE)
    if registered_on:
        AuxiliaryDriver.objects.filter(pk=aux.pk).update(added_on=registered_on)
        aux.refresh_from_db()
    return aux


def _docs(pack, modality="taxi", applies_to="auxiliary"):
    return [d["code"] for d in pack.documents(modality, "renewal", applies_to=applies_to)]


def test_alegre_reregistration_end_to_end(alegre, applicant, clerk, api):
    today = alegre.today()
    auth, _ = grant(applicant)
    aux = _aux(api, applicant, clerk, auth, registered_on=today - timedelta(days=366))
    missing = file(api, applicant, auth, "aux_reregistration", {"auxiliary": aux.pk, "documents": []})
    assert missing.status_code == 400 and "documents" in missing.json()["errors"]
    assert "Indicação do taxista auxiliar" in missing.json()["errors"]["documents"][0]
    r = file(api, applicant, auth, "aux_reregistration", {"auxiliary": aux.pk, "documents": _docs(alegre)})
    assert r.status_code == 201, r.json()
    assert r.json()["legal_basis"] == ART_7 and r.json()["late"] is True
    dup = file(api, applicant, auth, "aux_reregistration", {"auxiliary": aux.pk, "documents": _docs(alegre)})
    assert dup.status_code == 409
    refused = decide(api, clerk, r.json()["id"], approved=False)
    assert refused.status_code == 400  # a refusal needs its reason
    d = decide(api, clerk, r.json()["id"])
    assert d.status_code == 200, d.json()
    aux.refresh_from_db()
    assert aux.registered_on == today
    assert d.json()["result"]["next_due_on"] == add_years(today, 1).isoformat()
    assert AuditEntry.objects.filter(action="auxiliary_reregistered").count() == 1
    assert AuditEntry.objects.filter(action="lifecycle_request_decided").count() == 2  # add + re-registration
    assert Notification.objects.filter(recipient=applicant, subject__icontains="deferido").count() == 2


def test_the_auxiliary_files_their_own_reregistration(alegre, applicant, clerk, api):
    auth, _ = grant(applicant)
    aux = _aux(api, applicant, clerk, auth)
    r = file(api, aux.person, auth, "aux_reregistration", {"documents": _docs(alegre)})
    assert r.status_code == 201, r.json()
    assert r.json()["data"]["auxiliary"] == aux.pk
    assert api(aux.person).get(f"/api/v1/requests/{r.json()['id']}/").status_code == 200
    other, _ = grant()
    assert file(api, aux.person, other, "aux_reregistration", {"documents": _docs(alegre)}).status_code == 404


def test_reregistration_refused_where_the_law_has_none(itagiba, applicant, clerk, api):
    auth, _ = grant(applicant)
    aux = _aux(api, applicant, clerk, auth)
    r = file(api, applicant, auth, "aux_reregistration", {"auxiliary": aux.pk, "documents": []})
    assert r.status_code == 400
    assert r.json()["rule"]["code"] == "reregistration_not_provided"
    assert "recadastramento anual" in r.json()["errors"]["kind"][0]
    p = file(api, applicant, auth, "compliance_proof", {"documents": []})
    assert p.status_code == 400 and p.json()["rule"]["code"] == "compliance_proof_not_provided"


def test_driver_scope_reregistration_renews_the_auxiliarys_alvara(arapora, applicant, clerk, api, monkeypatch):
    original = type(arapora).param

    def param(self, key, modality=None, at=None, **kw):
        if key == "auxiliary.yearly_reregistration":
            return Param(key, True, "art. X (teste)", date(2000, 1, 1))
        return original(self, key, modality, at, **kw)

    monkeypatch.setattr(type(arapora), "param", param)
    auth, _ = grant(applicant)
    aux = _aux(api, applicant, clerk, auth)
    old = auth.alvaras.get(person=aux.person, status=AlvaraStatus.ACTIVE)
    r = file(api, applicant, auth, "aux_reregistration", {"auxiliary": aux.pk, "documents": _docs(arapora)})
    assert r.status_code == 201, r.json()
    d = decide(api, clerk, r.json()["id"])
    assert d.status_code == 200, d.json()
    old.refresh_from_db()
    assert old.status == AlvaraStatus.SUPERSEDED
    assert d.json()["result"]["alvara"]["supersedes"] == old.number


def test_reregistration_job_reminds_and_flags_once(alegre, applicant, clerk, agent, api, web):
    today = alegre.today()
    auth, _ = grant(applicant)
    soon = _aux(api, applicant, clerk, auth, registered_on=add_years(today, -1) + timedelta(days=30))
    assert yearly_obligations_check() == 1
    assert yearly_obligations_check() == 0
    assert Notification.objects.filter(recipient=applicant, subject__icontains="a vencer").count() == 1
    assert Notification.objects.filter(recipient=soon.person, subject__icontains="a vencer").count() == 1
    AuxiliaryDriver.objects.filter(pk=soon.pk).update(added_on=today - timedelta(days=365))
    assert yearly_obligations_check() == 1  # day 365: on time (only the reminder of this deadline)
    assert not YearlyNotice.objects.filter(stage="overdue").exists()
    assert "recadastramento vencido" not in web(applicant).get("/minha-autorizacao/").content.decode()
    AuxiliaryDriver.objects.filter(pk=soon.pk).update(added_on=today - timedelta(days=366))
    assert yearly_obligations_check() == 1
    assert yearly_obligations_check() == 0
    assert Notification.objects.filter(recipient=applicant, subject__icontains="vencido").count() == 1
    assert Notification.objects.filter(recipient=clerk, subject__icontains="Recadastramento vencido").count() == 1
    assert AuditEntry.objects.filter(action="auxiliary_reregistration_overdue").count() == 1
    assert "recadastramento vencido" in web(applicant).get("/minha-autorizacao/").content.decode()
    assert "Recadastramento vencido" in web(clerk).get("/atendimento/pedidos/").content.decode()
    status = api(agent).get(f"/api/v1/vehicles/{auth.vehicle.plate}/status/", {"driver_cpf": soon.person.cpf}).json()
    assert status["driver"]["reregistration_overdue"] is True
    assert status["driver"]["reregistration"]["label"] == "recadastramento vencido"
    assert status["driver"]["role"] == "condutor auxiliar" and "verdict" in status
    holder = api(agent).get(f"/api/v1/vehicles/{auth.vehicle.plate}/status/", {"driver_cpf": applicant.cpf}).json()
    assert holder["driver"]["reregistration"] is None and holder["driver"]["reregistration_overdue"] is False
    # the re-registration regularises it
    r = file(api, applicant, auth, "aux_reregistration", {"auxiliary": soon.pk, "documents": _docs(alegre)})
    decide(api, clerk, r.json()["id"])
    assert YearlyNotice.objects.filter(stage="overdue", resolved_at__isnull=True).count() == 0
    assert "recadastramento vencido" not in web(applicant).get("/minha-autorizacao/").content.decode()


# --- Araporã: yearly proof of requirements ----------------------------------------------------
def test_arapora_compliance_proof_end_to_end(arapora, applicant, clerk, api):
    today = arapora.today()
    auth, _ = grant(applicant, valid_from=add_years(today + timedelta(days=1), -1))  # anniversary tomorrow
    docs = _docs(arapora, applies_to="holder")
    bad = file(api, applicant, auth, "compliance_proof", {"documents": docs[:1]})
    assert bad.status_code == 400 and "documents" in bad.json()["errors"]
    r = file(api, applicant, auth, "compliance_proof", {"documents": docs})
    assert r.status_code == 201, r.json()
    assert r.json()["data"]["year"] == 1 and r.json()["late"] is False and r.json()["legal_basis"] == ART_3
    d = decide(api, clerk, r.json()["id"])
    assert d.status_code == 200, d.json()
    assert d.json()["result"] == {"year": 1, "next_due_on": add_years(auth.valid_from, 2).isoformat()}
    assert AuditEntry.objects.filter(action="compliance_proof_accepted").count() == 1
    early = file(api, applicant, auth, "compliance_proof", {"documents": docs})
    assert early.status_code == 409 and early.json()["rule"]["code"] == "compliance_proof_too_early"


def test_arapora_compliance_filed_the_day_after_is_late(arapora, applicant, api):
    today = arapora.today()
    auth, _ = grant(applicant, valid_from=add_years(today - timedelta(days=1), -1))
    r = file(api, applicant, auth, "compliance_proof", {"documents": _docs(arapora, applies_to="holder")})
    assert r.status_code == 201 and r.json()["late"] is True


def test_arapora_compliance_job_reminds_and_flags_once(arapora, applicant, clerk, api, web):
    today = arapora.today()
    auth, _ = grant(applicant, valid_from=add_years(today + timedelta(days=30), -1))
    assert yearly_obligations_check() == 1
    assert yearly_obligations_check() == 0
    assert Notification.objects.filter(recipient=applicant, subject__icontains="a vencer").count() == 1
    auth.__class__.objects.filter(pk=auth.pk).update(valid_from=add_years(today, -1),
                                                     valid_until=add_years(today, 3))
    assert yearly_obligations_check() == 0  # anniversary day: on time
    auth.__class__.objects.filter(pk=auth.pk).update(valid_from=add_years(today - timedelta(days=1), -1),
                                                     valid_until=add_years(today - timedelta(days=1), 3))
    assert yearly_obligations_check() == 1
    assert yearly_obligations_check() == 0
    assert Notification.objects.filter(recipient=applicant, subject__icontains="vencida").count() == 1
    assert Notification.objects.filter(recipient=clerk, subject__icontains="Comprovação anual vencida").count() == 1
    assert "comprovação anual vencida" in web(applicant).get("/minha-autorizacao/").content.decode()
    assert "Comprovação anual vencida" in web(clerk).get("/atendimento/pedidos/").content.decode()


def test_the_yearly_job_reads_no_grant_where_the_law_has_neither_obligation(itagiba, applicant, clerk, api):
    """Itagibá's law has neither yearly obligation: the daily job read every current grant and
    every active auxiliary of the municipality (with their users) to find nothing due."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from licensing.models import Authorization

    auth, _ = grant(applicant, valid_from=add_years(itagiba.today() - timedelta(days=1), -1))
    _aux(api, applicant, clerk, auth, registered_on=itagiba.today() - timedelta(days=366))
    with CaptureQueriesContext(connection) as captured:
        assert yearly_obligations_check() == 0
    tables = (Authorization._meta.db_table, AuxiliaryDriver._meta.db_table)
    assert not [q["sql"] for q in captured.captured_queries if any(t in q["sql"] for t in tables)]


def test_a_yearly_obligation_of_one_modality_is_swept(itagiba, applicant, monkeypatch):
    """A pack may set the obligation for one modality only ("taxi.grant.yearly_compliance_proof"):
    the job still looks at that modality's grants, and at no other."""
    from licensing.models import Authorization
    from licensing.requests.services import _rule_set
    from portal import regulation

    pack, key = regulation.current(), "grant.yearly_compliance_proof"
    assert not _rule_set(pack, key)
    monkeypatch.setitem(pack.params, f"taxi.{key}", [Param(f"taxi.{key}", True, ART_3, date(2008, 1, 1))])
    assert _rule_set(pack, key)
    monkeypatch.setitem(pack.params, f"taxi.{key}", [Param(f"taxi.{key}", False, ART_3, date(2008, 1, 1))])
    assert not _rule_set(pack, key)
    monkeypatch.setitem(pack.params, f"taxi.{key}", [Param(f"taxi.{key}", True, ART_3, date(2008, 1, 1))])
    start = add_years(itagiba.today() + timedelta(days=30), -1)  # the first anniversary in 30 days
    for holder, modality in ((applicant, "taxi"), (None, "mototaxi")):
        auth, _ = grant(holder, modality=modality, valid_from=start)
        Authorization.objects.filter(pk=auth.pk).update(valid_until=add_years(start, 4))
    assert yearly_obligations_check() == 1
    assert Notification.objects.filter(recipient=applicant, subject__icontains="a vencer").count() == 1


def test_the_yearly_job_reads_the_holders_of_the_notices_only(arapora, applicant):
    """The grants are read without their holders: a join with the users (select_related) made
    PostgreSQL hash every user of the installation daily, for the few notices due."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from licensing.models import Authorization

    today = arapora.today()
    grant(applicant, valid_from=add_years(today + timedelta(days=30), -1))
    grant(valid_from=add_years(today + timedelta(days=200), -1))
    with CaptureQueriesContext(connection) as captured:
        assert yearly_obligations_check() == 1
    user_t, grant_t = get_user_model()._meta.db_table, Authorization._meta.db_table
    sweeps = [q["sql"] for q in captured.captured_queries
              if f'FROM "{grant_t}"' in q["sql"] and "status" in q["sql"] and "IN" in q["sql"]]
    assert sweeps and not [sql for sql in sweeps if user_t in sql], sweeps
    assert Notification.objects.filter(recipient=applicant, subject__icontains="a vencer").count() == 1


def test_html_forms_file_both_kinds(alegre, applicant, clerk, api, web):
    auth, _ = grant(applicant)
    aux = _aux(api, applicant, clerk, auth)
    url = f"/minha-autorizacao/{auth.pk}/pedidos/novo/{RequestKind.AUXILIARY_REREGISTRATION.value}/"
    page = web(applicant).get(url)
    assert page.status_code == 200 and "Indicação do taxista auxiliar" in page.content.decode()
    bad = web(applicant).post(url, {"auxiliary": str(aux.pk)})
    assert bad.status_code == 400
    ok = web(applicant).post(url, {"auxiliary": str(aux.pk), "documents": _docs(alegre)})
    assert ok.status_code == 302, ok.content.decode()[:2000]


def _count(client, url):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.get(url)  # warm the per-process caches (the host's municipality, its pack): counted is the page
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def test_overdue_lists_use_a_constant_number_of_queries(arapora, applicant, clerk, web, django_assert_num_queries):
    today = arapora.today()
    start = add_years(today - timedelta(days=1), -1)
    grant(applicant, valid_from=start)
    yearly_obligations_check()
    client = web(clerk)
    one = _count(client, "/atendimento/pedidos/")
    for _ in range(29):
        grant(valid_from=start)
    assert yearly_obligations_check() == 29
    with django_assert_num_queries(one):
        body = client.get("/atendimento/pedidos/").content.decode()
    assert body.count("Comprovação anual vencida</strong>") == 30


def test_holder_page_constant_with_auxiliaries(alegre, applicant, clerk, api, web, django_assert_num_queries):
    auth, _ = grant(applicant)
    _aux(api, applicant, clerk, auth)
    client = web(applicant)
    one = _count(client, "/minha-autorizacao/")
    r = file(api, applicant, auth, "auxiliary_add", aux_data(cnh_category="D"))
    decide(api, clerk, r.json()["id"])
    with django_assert_num_queries(one):
        body = client.get("/minha-autorizacao/").content.decode()
    assert body.count("Recadastramento anual até") == 2


def test_html_compliance_proof_and_clerk_decision(arapora, applicant, clerk, web):
    today = arapora.today()
    auth, _ = grant(applicant, valid_from=add_years(today, -1) + timedelta(days=10))
    url = f"/minha-autorizacao/{auth.pk}/pedidos/novo/compliance_proof/"
    ok = web(applicant).post(url, {"documents": _docs(arapora, applies_to="holder")})
    assert ok.status_code == 302, ok.content.decode()[-3000:]
    from licensing.requests.models import LifecycleRequest

    req = LifecycleRequest.objects.get(authorization=auth, kind=RequestKind.COMPLIANCE_PROOF)
    detail = web(clerk).get(f"/pedidos/{req.pk}/").content.decode()
    assert "documentos apresentados" in detail.lower()
    first = arapora.documents(auth.modality, "renewal", applies_to="holder")[0]["label"]
    assert first in detail
    d = web(clerk).post(f"/atendimento/pedidos/{req.pk}/decidir/", {"approved": "1", "reason": "Documentos conferidos"})
    assert d.status_code == 302
    req.refresh_from_db()
    assert req.status == "approved" and req.result["year"] == 1
    assert AuditEntry.objects.filter(action="compliance_proof_accepted", reason="Documentos conferidos").count() == 1
    assert Notification.objects.filter(recipient=applicant, subject__icontains="deferido").count() == 1
