"""The clerk's panel is a desk: a count per queue with the oldest waiting, each opening its
list; the navigation groups a clerk's many entries (issue 19)."""

from __future__ import annotations

from portal.roles import Role
from tests.e2e.helpers import login, no_sideways_scroll, phone, shot

CPF_RITA = "52998224725"


def _desk():
    from rest_framework.test import APIClient

    from tests.conftest import make_user
    from tests.licensing.applications.helpers import (
        create_and_submit,
        open_call,
        review_all_and_inspect,
    )

    open_call("taxi")
    rita = make_user(CPF_RITA, Role.APPLICANT.value, cpf=CPF_RITA, name="Rita Requerente")
    bob = make_user("11144477735", Role.APPLICANT.value, cpf="11144477735", name="Bob Requerente")
    clerk = make_user("e2e-atendente", Role.CLERK.value, name="Ana Atendente")
    agent = make_user("e2e-agente", Role.AGENT.value, name="Caio Agente")

    def api(user):
        client = APIClient()
        client.force_authenticate(user=user)
        return client

    waiting = create_and_submit(api, rita)
    ready = create_and_submit(api, bob)
    review_all_and_inspect(api, clerk, agent, ready["id"])
    return waiting, ready


def _queue(tab, label):
    return tab.locator(".desk-queue").filter(has_text=label)


def test_the_desk_counts_each_queue_and_opens_it(site, page):
    waiting, ready = _desk()
    login(page, site, "e2e-atendente")
    shot(page, "desk-desktop")
    review = _queue(page, "Documentos a conferir")
    assert review.locator(".desk-count").inner_text() == "1" and "mais antigo" in review.inner_text()
    assert _queue(page, "Prontos para decidir").locator(".desk-count").inner_text() == "1"
    assert _queue(page, "Exigências respondidas").locator(".desk-count").inner_text() == "0"
    assert _queue(page, "Pedidos de alteração").count() == 1 and _queue(page, "Taxas a conciliar").count() == 1
    review.click()
    page.wait_for_url("**/atendimento/requerimentos/?fila=review")
    listed = page.locator("main table").inner_text()
    assert waiting["protocol"] in listed and ready["protocol"] not in listed
    # the navigation: headings that open their entries
    nav = page.locator("nav[aria-label='Menu principal']")
    nav.get_by_role("button", name="Atendimento").click()
    entry = nav.get_by_role("link", name="Classificação")
    entry.wait_for(state="visible")
    shot(page, "desk-nav-open")
    entry.click()
    page.wait_for_url("**/atendimento/classificacao/**")


def test_the_desk_on_a_phone(site, browser):
    _desk()
    with phone(browser) as tab:
        login(tab, site, "e2e-atendente")
        shot(tab, "desk-phone")
        assert no_sideways_scroll(tab) <= 0
        assert _queue(tab, "Documentos a conferir").bounding_box()["y"] < 844
