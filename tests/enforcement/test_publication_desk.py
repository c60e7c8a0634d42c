"""One publication desk: the decisions of appeals (enforcement) go into the same publication as the
acts of the grants (PL 015/2025 art. 18, §5; art. 24, §3; art. 27, §1); the old page redirects."""

from __future__ import annotations

import shutil
import subprocess
from datetime import timedelta

import pytest
from django.urls import reverse

from licensing.applications import publication as desk
from licensing.models import PublishedAct
from portal.exceptions import InvalidTransition
from portal.menu import items_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def decided_appeal(itagiba, grant, issue, chain, api, applicant):
    """A cassação upheld, appealed and the appeal not granted: the grant is cassada (an act of
    cassation) and the decision of the appeal is to be published."""
    today = itagiba.today()
    body = issue(grant.vehicle.plate, "19-VII", today - timedelta(days=3))
    chain.notify(body["id"], today - timedelta(days=2))
    chain.judge(body["id"])
    r = api(applicant).post(f"/api/v1/infractions/{body['id']}/appeal/", {"text": "Recorro."}, format="json")
    assert r.status_code == 201, r.content
    decided = chain.judge_appeal(body["id"], granted=False)
    from enforcement.models import Appeal

    return Appeal.objects.get(infraction_id=body["id"], instance=1), decided


def test_the_desk_gathers_appeal_decisions_with_the_acts_of_the_grants(itagiba, decided_appeal, clerk, applicant):
    appeal, _ = decided_appeal
    pending = desk.pending(itagiba)
    [item] = pending["appeal_decisions"]
    assert item["ref"] == f"enforcement.appeal:{appeal.pk}" and item["number"] == appeal.number
    assert "não provido" in item["decision"] and appeal.infraction.number in item["decision"]
    assert len(pending["cassations"]) == 1  # the act of cassation, once (not a second entry from the auto)
    pub = desk.publication_prepare(actor=clerk)
    assert PublishedAct.objects.get(publication=pub).ref == item["ref"]
    assert "DECISÕES DE RECURSOS" in pub.text and f"Decisão de recurso nº {appeal.number}" in pub.text
    assert "CASSAÇÕES" in pub.text and applicant.cpf not in pub.text.replace(".", "").replace("-", "")
    assert desk.pending(itagiba)["appeal_decisions"] == [] and desk.pending(itagiba)["cassations"] == []
    with pytest.raises(InvalidTransition):
        desk.publication_prepare(actor=clerk)  # published once


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext (poppler) ausente")
def test_the_publication_pdf_lists_the_appeal_decision(itagiba, decided_appeal, clerk):
    appeal, _ = decided_appeal
    pub = desk.publication_prepare(actor=clerk)
    pdf = desk.publication_pdf(pub)
    text = " ".join(subprocess.run(["pdftotext", "-", "-"], input=pdf, capture_output=True,
                                   check=True).stdout.decode().split())
    assert "Decisões de recursos" in text and f"Decisão de recurso nº {appeal.number}" in text
    assert "não provido" in text and desk.publication_pdf(pub) == pdf


def test_the_old_page_redirects_and_the_julgador_reads_the_desk(itagiba, decided_appeal, web, judge, clerk):
    appeal, _ = decided_appeal
    r = web(judge).get("/fiscalizacao/publicacao/")
    assert r.status_code == 302 and r["Location"] == reverse("licensing-publications")
    page = web(judge).get(reverse("licensing-publications")).content.decode()
    assert "Decisões de recursos" in page and f"Decisão de recurso nº {appeal.number}" in page
    assert "Preparar a publicação" not in page
    assert web(judge).post(reverse("licensing-publications"), {}).status_code == 403
    assert "Preparar a publicação (2 atos)" in web(clerk).get(reverse("licensing-publications")).content.decode()
    r = web(clerk).post(reverse("licensing-publications"), {})
    assert r.status_code == 302
    assert web(judge).get(r["Location"]).status_code == 200


def test_one_menu_entry_for_publications(itagiba, judge, clerk):
    for user in (judge, clerk):
        labels = [i["label"] for i in items_for(user, public=False)]
        assert labels.count("Publicações no Diário Oficial") == 1 and "Diário Oficial" not in labels


def test_nothing_from_enforcement_where_the_law_requires_no_publication(alegre, grant, issue, chain):
    today = alegre.today()
    body = issue(grant.vehicle.plate, "19-I", today - timedelta(days=3))
    chain.notify(body["id"], today - timedelta(days=2))
    chain.judge(body["id"])
    assert desk.pending(alegre) == {}
