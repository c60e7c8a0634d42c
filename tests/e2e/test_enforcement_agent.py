"""The agent in the street, on a phone: plate lookup, verdict at a glance, auto in one go."""

from datetime import timedelta

import pytest

from tests.conftest import CPF_ALICE, make_user

pytestmark = [pytest.mark.e2e]


@pytest.mark.django_db(transaction=True)
def test_agent_looks_up_a_plate_and_issues_an_auto_on_a_phone(live_server, chromium_path, load_pack):
    if not chromium_path:
        pytest.skip("Chromium não encontrado (defina CHROMIUM_PATH)")
    from playwright.sync_api import sync_playwright

    from enforcement.models import Infraction
    from portal.roles import Role
    from tests.factories import VehicleFactory, issue_authorization

    pack = load_pack("itagiba")
    holder = make_user(CPF_ALICE, Role.APPLICANT, cpf=CPF_ALICE, name="Alice Requerente")
    grant, _ = issue_authorization(holder=holder, vehicle=VehicleFactory(owner=holder),
                                   valid_from=pack.today() - timedelta(days=30))
    make_user("agente-e2e", Role.AGENT, name="Carlos Agente", registration_number="AG-7")
    plate = grant.vehicle.plate

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path, args=["--no-sandbox"])
        page = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True).new_page()
        page.goto(f"{live_server.url}/conta/entrar/")
        page.fill("input[name=username]", "agente-e2e")
        page.fill("input[name=password]", "senha-forte-123")
        page.click("main button[type=submit]")  # the login form's (the header has the search's)
        page.wait_for_url("**/painel/")
        page.goto(f"{live_server.url}/fiscalizacao/placa/")
        page.fill("input[name=plate]", plate.lower())
        page.click("button:has-text('Consultar')")
        assert "AUTORIZADO" in page.inner_text("#verdict")
        vehicle = grant.vehicle  # make, model and colour, to compare with the vehicle stopped
        assert f"{vehicle.make} {vehicle.model}, {vehicle.color}" in page.inner_text(".verdict-vehicle")
        assert page.evaluate("document.documentElement.scrollWidth") <= 360  # one column, no sideways scroll
        button = page.locator("a:has-text('Lavrar auto de infração')")
        assert button.bounding_box()["height"] >= 44  # large touch target
        button.click()
        page.select_option("select[name=infraction_code]", "19-VII")
        page.fill("input[name=location]", "Rodoviária")
        page.fill("textarea[name=description]", "Cobrou acima da tabela.")
        page.check("input[name=alvara_retained]")
        page.click("button:has-text('Lavrar o auto')")
        page.wait_for_url("**/fiscalizacao/autos/*/")
        assert "lavrado" in page.inner_text("main")
        browser.close()
    inf = Infraction.objects.get()
    assert inf.plate == plate and inf.agent_registration == "AG-7" and inf.retained_alvara is not None
