"""Autos, notices, decisions and DAMs of enforcement are kept as issued: the PDF of an auto
downloaded before and after its judgement is the same bytes, each frozen on its own record."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from enforcement import services
from portal import regulation
from portal.models import IssuedDocument
from tests.enforcement.helpers import regulate_all


@pytest.mark.django_db
def test_auto_pdf_before_and_after_the_judgement_is_byte_identical(web, alegre, grant, applicant, agent, clerk, judge):
    pack = regulation.current()
    regulate_all()
    inf, _ = services.infraction_issue(actor=agent, plate=grant.vehicle.plate, infraction_code="19-I",
                                       occurred_at=timezone.now() - timedelta(days=2), location="Praça da Matriz",
                                       description="Cobrança acima da tarifa.")
    auto = web(applicant).get(reverse("enforcement:pdf", args=[inf.pk, "auto"])).content
    services.infraction_notify(actor=clerk, infraction=inf, acknowledged_on=pack.today() - timedelta(days=1))
    notice = web(applicant).get(reverse("enforcement:pdf", args=[inf.pk, "notice"])).content
    services.defense_waive(actor=applicant, infraction=inf, text="Renuncio ao prazo de defesa.")
    services.infraction_judge(actor=judge, infraction=inf, upheld=True, grounds="Comprovada a infração.")
    assert web(applicant).get(reverse("enforcement:pdf", args=[inf.pk, "auto"])).content == auto
    assert web(clerk).get(reverse("enforcement:pdf", args=[inf.pk, "notice"])).content == notice
    decision = web(applicant).get(reverse("enforcement:pdf", args=[inf.pk, "decision"])).content
    assert decision.startswith(b"%PDF") and decision != auto
    assert set(IssuedDocument.objects.values_list("kind", flat=True)) >= {
        "infraction_auto", "infraction_notice", "infraction_decision"}


@pytest.mark.django_db
def test_auto_notice_and_decision_are_stored_at_issue_before_any_download(
        alegre, grant, applicant, agent, clerk, judge, django_capture_on_commit_callbacks):
    """Rendered once at issue (a worker, right after the issuing commit), not at first download:
    what is downloaded later is what was issued, whatever changed in between."""
    pack = regulation.current()
    regulate_all()
    with django_capture_on_commit_callbacks(execute=True):
        inf, _ = services.infraction_issue(actor=agent, plate=grant.vehicle.plate, infraction_code="19-I",
                                           occurred_at=timezone.now() - timedelta(days=2), location="Centro",
                                           description="Cobrança acima da tarifa.")
    assert set(IssuedDocument.objects.values_list("kind", flat=True)) == {"infraction_auto"}
    with django_capture_on_commit_callbacks(execute=True):
        services.infraction_notify(actor=clerk, infraction=inf, acknowledged_on=pack.today() - timedelta(days=1))
    with django_capture_on_commit_callbacks(execute=True):
        services.defense_waive(actor=applicant, infraction=inf, text="Renuncio ao prazo de defesa.")
        services.infraction_judge(actor=judge, infraction=inf, upheld=True, grounds="Comprovada a infração.")
    assert set(IssuedDocument.objects.values_list("kind", flat=True)) >= {
        "infraction_auto", "infraction_notice", "infraction_decision"}
