"""Publication in the Diário Oficial (PL 015/2025 art. 18, §5) and the renewal hold that lasts
until it (art. 18, §6): the list as PDF and text, the date recorded once, audited."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from licensing.applications import publication as svc
from licensing.applications.rules import renewal_held_until_publication
from licensing.applications.services import application_reject
from licensing.grants import jobs
from licensing.models import Application, Authorization, Publication
from portal.exceptions import InvalidTransition, RuleViolation
from portal.models import AuditEntry
from portal.regulation import Param
from tests.licensing.applications.helpers import (
    create_and_submit,
    open_call,
    review_all_and_inspect,
)
from tests.licensing.grants.test_issued_documents import pdf_text

EXTENDS = Param("publication.extends_validity", True, "PL 015/2025 (Itagibá/BA), art. 18, §6", date(2025, 1, 1), False)


@pytest.mark.parametrize("published,held", [(None, True), (date(2026, 3, 9), True), (date(2026, 3, 10), False),
                                            (date(2026, 3, 11), False)])
def test_a_decided_renewal_holds_until_a_publication_on_or_after_the_decision(published, held):
    assert renewal_held_until_publication(extends=EXTENDS, decided_on=date(2026, 3, 10),
                                          last_published_on=published) is held


def test_without_the_pack_rule_nothing_is_held_after_the_decision():
    assert renewal_held_until_publication(extends=None, decided_on=date(2026, 3, 10), last_published_on=None) is False


def _granted(api, applicant, clerk, agent) -> tuple[int, dict]:
    open_call("taxi")
    app = create_and_submit(api, applicant)
    review_all_and_inspect(api, clerk, agent, app["id"])
    r = api(clerk).post(f"/api/v1/applications/{app['id']}/approve/")
    assert r.status_code == 200, r.json()
    return app["id"], r.json()["authorization"]


@pytest.mark.django_db
def test_granted_requests_are_gathered_into_a_publication_and_its_date_recorded_once(
        itagiba, api, applicant, clerk, agent, client):
    _, granted = _granted(api, applicant, clerk, agent)
    pending = svc.pending(itagiba)
    assert [a.number for a in pending["grants"]] == [granted["number"]]
    pub = svc.publication_prepare(actor=clerk)
    assert pub.authorizations.get().number == granted["number"] and svc.pending(itagiba)["grants"] == []
    assert f"nº {granted['number']}" in pub.text and "art. 18, §5" in pub.text and applicant.display_name in pub.text
    assert applicant.cpf not in pub.text.replace(".", "").replace("-", "")
    pdf = svc.publication_pdf(pub)
    assert granted["number"] in pdf_text(pdf) and svc.publication_pdf(pub) == pdf  # frozen
    with pytest.raises(InvalidTransition):
        svc.publication_prepare(actor=clerk)  # nothing pending any more
    today = itagiba.today()
    svc.publication_record(actor=clerk, publication=pub, published_on=today, edition="1.234", page="7")
    pub.refresh_from_db()
    assert (pub.published_on, pub.edition, pub.page, pub.recorded_by) == (today, "1.234", "7", clerk)
    with pytest.raises(InvalidTransition):
        svc.publication_record(actor=clerk, publication=pub, published_on=today)
    assert set(AuditEntry.objects.filter(object_id=str(pub.pk), action__startswith="publication_")
               .values_list("action", flat=True)) == {"publication_prepared", "publication_recorded"}
    client.force_login(clerk)
    page = client.get(f"/atendimento/publicacoes/{pub.pk}/").content.decode()
    assert "Publicada no Diário Oficial em" in page and "1.234" in page
    assert client.get(f"/atendimento/publicacoes/{pub.pk}/publicacao.txt").content.decode() == pub.text


@pytest.mark.django_db
def test_the_publication_date_cannot_be_future_nor_before_the_list(itagiba, api, applicant, clerk, agent):
    from django.core.exceptions import ValidationError

    _granted(api, applicant, clerk, agent)
    pub = svc.publication_prepare(actor=clerk)
    for day in (itagiba.today() + timedelta(days=1), itagiba.today() - timedelta(days=1)):
        with pytest.raises(ValidationError):
            svc.publication_record(actor=clerk, publication=pub, published_on=day)
    assert Publication.objects.get(pk=pub.pk).published_on is None


@pytest.mark.django_db
def test_a_pack_without_the_duty_refuses_to_prepare(alegre, clerk):
    with pytest.raises(RuleViolation) as exc:
        svc.publication_prepare(actor=clerk)
    assert "Lei 3.703/2022" in exc.value.legal_basis


@pytest.mark.django_db
def test_publication_hold_a_refused_renewal_keeps_the_grant_until_the_list_is_published(
        itagiba, api, applicant, clerk, agent):
    first_id, granted = _granted(api, applicant, clerk, agent)
    plate = Application.objects.get(pk=first_id).vehicle.plate
    from tests.factories import backdate_issue

    backdate_issue(Authorization.objects.get(pk=granted["id"]), itagiba.today() - timedelta(days=365))
    renewal = create_and_submit(api, applicant, kind="renewal", vehicle={"plate": plate})
    auth = Authorization.objects.get(pk=granted["id"])
    yesterday = itagiba.today() - timedelta(days=1)
    Authorization.objects.filter(pk=auth.pk).update(valid_from=yesterday - timedelta(days=364), valid_until=yesterday)
    Application.objects.filter(pk=renewal["id"]).update(
        submitted_at=auth.issued_at.replace(year=yesterday.year, month=yesterday.month, day=yesterday.day, hour=15))
    application_reject(actor=clerk, application=Application.objects.get(pk=renewal["id"]), reason="Vistoria reprovada")
    jobs.expire_grants()
    assert Authorization.objects.get(pk=auth.pk).status == "active"  # decided, but the list not yet published
    pub = svc.publication_prepare(actor=clerk)  # the earlier grant is still pending: the list of the day
    svc.publication_record(actor=clerk, publication=pub, published_on=itagiba.today())
    jobs.expire_grants()
    assert Authorization.objects.get(pk=auth.pk).status == "expired"
