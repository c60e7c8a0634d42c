"""Notices and histories speak Portuguese: document labels, statuses, names, plurals (issue 19)."""

from __future__ import annotations

import re

from portal.roles import Role
from tests.e2e.helpers import login, phone, shot

CPF_RITA = "52998224725"


def _submitted_with_an_auxiliary():
    from rest_framework.test import APIClient

    from licensing.applications.review import document_review
    from licensing.models import Application
    from tests.conftest import make_user
    from tests.licensing.applications.helpers import create_and_submit, open_call

    rita = make_user(CPF_RITA, Role.APPLICANT.value, cpf=CPF_RITA, name="Rita Requerente")
    clerk = make_user("e2e-atendente", Role.CLERK.value, name="Ana Atendente")
    open_call("taxi")

    def api(user):
        client = APIClient()
        client.force_authenticate(user=user)
        return client

    created = create_and_submit(api, rita, auxiliaries=1)
    app = Application.objects.get(pk=created["id"])
    aux_doc = app.documents.filter(type__contains=":aux1").first()
    document_review(actor=clerk, document=aux_doc, accepted=False, reason="Arquivo ilegível")
    return app, aux_doc


def test_the_applicant_reads_labels_statuses_and_plurals(site, browser):
    from licensing.applications.selectors import document_label

    app, doc = _submitted_with_an_auxiliary()
    label = document_label(app, doc.type)
    with phone(browser) as tab:
        login(tab, site, CPF_RITA)
        text = tab.locator("main").inner_text()
        assert "notificaçãoões" not in text and re.search(r"\d+ notificações não lidas", text), text
        tab.goto(site + "/notificacoes/")
        shot(tab, "words-notifications")
        notices = tab.locator("main").inner_text()
        assert label in notices and doc.type not in notices
        tab.goto(f"{site}/requerimentos/{app.pk}/")
        history = tab.locator("ol.history").inner_text()
        shot(tab, "words-application-history")
        assert "(rejected)" not in history and "(recusado)" in history
        assert doc.type not in history and "condutor auxiliar 1" in history


def test_the_clerk_reads_names_not_cpf_digits(site, page):
    from tests.conftest import make_user

    app, _ = _submitted_with_an_auxiliary()
    make_user("e2e-atendente-2", Role.CLERK.value, name="Bia Atendente")
    login(page, site, "e2e-atendente-2", f"/requerimentos/{app.pk}/")
    history = page.locator("ol.history").inner_text()
    shot(page, "words-clerk-history")
    assert CPF_RITA not in history and "Rita Requerente" in history and "Ana Atendente" in history
