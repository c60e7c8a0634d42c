"""The applicant's wizard in a browser: what was typed is never lost (issue 19)."""

from __future__ import annotations

from portal.roles import Role
from tests.e2e.helpers import login, phone, shot


def _start_draft(site, tab):
    from tests.conftest import make_user
    from tests.licensing.applications.helpers import open_call

    make_user("e2e-req", Role.APPLICANT.value, cpf="52998224725", name="Rita Requerente")
    open_call("taxi")
    login(tab, site, "e2e-req", "/requerimentos/novo/")
    tab.get_by_role("radio", name="Táxi", exact=True).check()
    tab.get_by_role("button", name="Começar").click()
    tab.wait_for_url("**/etapa/vehicle/")


def test_save_for_later_keeps_a_half_filled_step(site, browser):
    from licensing.models import Application

    with phone(browser) as tab:
        _start_draft(site, tab)
        tab.get_by_label("Placa").fill("QAB1C23")
        tab.get_by_label("Marca").fill("Chevrolet")
        tab.get_by_label("Ano de fabricação").fill("20")  # half typed
        tab.get_by_role("button", name="Salvar e continuar depois").click()
        tab.wait_for_url("**/requerimentos/")
        shot(tab, "wizard-later-saved")
        assert "Rascunho salvo" in tab.locator("main").inner_text()
        tab.get_by_role("link", name="Continuar pedido").first.click()
        tab.wait_for_url("**/etapa/vehicle/")
        assert tab.get_by_label("Placa").input_value() == "QAB1C23"
        assert tab.get_by_label("Marca").input_value() == "Chevrolet"
        assert tab.get_by_label("Ano de fabricação").input_value() == "20"
        shot(tab, "wizard-later-resumed")
        # continuing judges the step: the half-typed year is refused, and nothing typed goes away
        tab.get_by_role("button", name="Salvar e continuar", exact=True).click()
        assert tab.locator("#id_manufacture_year").get_attribute("aria-invalid") == "true"
        assert tab.get_by_label("Placa").input_value() == "QAB1C23"
        assert tab.get_by_label("Marca").input_value() == "Chevrolet"
    app = Application.objects.get(applicant__username="e2e-req")
    assert app.vehicle is None and app.typed["vehicle"]["plate"] == "QAB1C23"


def test_a_refused_step_keeps_every_field_typed(site, page):
    _start_draft(site, page)
    values = {"plate": "QAB1C23", "renavam": "123", "make": "Fiat", "model": "Uno", "color": "branca",
              "manufacture_year": "1990", "first_registration_date": "10/02/1990", "doors": "4", "seats": "5",
              "engine_cc": "1000"}
    for name, value in values.items():
        page.fill(f"#id_{name}", value)
    page.get_by_role("button", name="Salvar e continuar", exact=True).click()
    page.wait_for_selector("[aria-invalid=true]")
    shot(page, "wizard-refused-step")
    for name, value in values.items():
        assert page.input_value(f"#id_{name}") == value, name
