"""The applicant's panel always says the next step, at the top, on a phone (issue 19)."""

from __future__ import annotations

from datetime import datetime, timedelta

from portal.roles import Role
from tests.e2e.helpers import PHONE, login, phone, shot

CPF_RITA = "52998224725"


def _api(user):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(user=user)
    return client


def _people():
    from tests.conftest import make_user
    from tests.licensing.applications.helpers import open_call

    open_call("taxi")
    return (make_user(CPF_RITA, Role.APPLICANT.value, cpf=CPF_RITA, name="Rita Requerente"),
            make_user("e2e-atendente", Role.CLERK.value, name="Ana Atendente"),
            make_user("e2e-agente", Role.AGENT.value, name="Caio Agente"))


def _first_card(tab):
    card = tab.locator(".next-step").first
    box = card.bounding_box()
    assert box is not None and box["y"] + box["height"] <= PHONE["height"], box  # in the first screen
    return card.inner_text()


def test_a_draft_says_continue(site, browser):
    from licensing.models import Application

    rita, _, _ = _people()
    Application.objects.create(applicant=rita, kind="new", modality="taxi", wizard_step="driver")
    with phone(browser) as tab:
        login(tab, site, CPF_RITA)
        shot(tab, "panel-draft")
        assert "Pedido em rascunho" in _first_card(tab)
        tab.locator(".next-step").first.get_by_role("link", name="Continuar pedido").click()
        tab.wait_for_url("**/etapa/driver/")


def test_a_refused_document_comes_first(site, browser):
    from licensing.applications.review import document_review
    from licensing.models import Application
    from tests.licensing.applications.helpers import create_and_submit

    rita, clerk, _ = _people()
    app = Application.objects.get(pk=create_and_submit(_api, rita)["id"])
    doc = app.documents.first()
    document_review(actor=clerk, document=doc, accepted=False, reason="Arquivo ilegível")
    with phone(browser) as tab:
        login(tab, site, CPF_RITA)
        shot(tab, "panel-rejected")
        text = _first_card(tab)
        assert "1 documento recusado — envie de novo" in text and "Arquivo ilegível" in text
        tab.locator(".next-step").first.get_by_role("link", name="Enviar de novo").click()
        tab.wait_for_url(f"**/requerimentos/{app.pk}/#doc-{doc.type}")
        assert tab.locator(".next-step").first.is_visible()  # the application page says it too


def test_the_vistoria_date_time_and_place_are_at_the_top(site, browser):
    from django.utils import timezone

    from licensing.applications.review import document_review, inspection_schedule
    from licensing.models import Application
    from portal import regulation
    from tests.licensing.applications.helpers import create_and_submit

    rita, clerk, agent = _people()
    app = Application.objects.get(pk=create_and_submit(_api, rita)["id"])
    for doc in app.documents.all():
        document_review(actor=clerk, document=doc, accepted=True)
    pack = regulation.current()
    when = timezone.make_aware(datetime.combine(pack.today() + timedelta(days=3), datetime.min.time()).replace(hour=9,
                                                                                                             minute=30), pack.tz)
    inspection_schedule(actor=clerk, application=app, scheduled_for=when, agent=agent, location="Pátio da Secretaria")
    with phone(browser) as tab:
        login(tab, site, CPF_RITA)
        shot(tab, "panel-inspection")
        text = _first_card(tab)
        assert f"Vistoria em {when:%d/%m/%Y} às 09:30" in text and "Pátio da Secretaria" in text


def test_the_deferido_notice_names_the_act_and_links_its_pdf(site, browser):
    from licensing.applications.services import application_approve
    from licensing.models import Application
    from portal.models import Notification
    from tests.licensing.applications.helpers import create_and_submit, review_all_and_inspect

    rita, clerk, agent = _people()
    app = Application.objects.get(pk=create_and_submit(_api, rita)["id"])
    review_all_and_inspect(_api, clerk, agent, app.pk)
    # signing the act runs an event loop of its own: not in the thread where Playwright's runs
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connections

    def approve():
        try:
            return application_approve(actor=clerk, application=app)
        finally:
            connections.close_all()

    import contextvars

    with ThreadPoolExecutor(1) as pool:  # in a copy of this context: the municipality in scope
        auth, _ = pool.submit(contextvars.copy_context().run, approve).result()
    with phone(browser) as tab:
        login(tab, site, CPF_RITA)
        shot(tab, "panel-approved")
        assert f"{auth.act_name} nº {auth.number}" in _first_card(tab)
        tab.goto(site + "/notificacoes/")
        shot(tab, "notice-approved")
        notice = tab.locator("main li.list-group-item").filter(has_text="foi deferido").first
        assert f"{auth.act_name} nº {auth.number}" in notice.inner_text()
        assert notice.get_by_role("button", name="Abrir").is_visible()
        link = Notification.objects.get(recipient=rita, body__contains="foi deferido").link
        assert link == f"/api/v1/authorizations/{auth.pk}/act.pdf"
        response = tab.request.get(site + link)  # the session of the applicant opens it
        assert response.status == 200 and response.headers["content-type"] == "application/pdf"
