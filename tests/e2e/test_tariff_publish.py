"""Publishing a tariff is a form with the table's fields and a preview of the fares (issue 19)."""

from __future__ import annotations

from portal.roles import Role
from tests.e2e.helpers import login, phone, shot


def test_the_admin_types_the_values_previews_and_publishes(site, browser):
    from tariffs.models import TariffTable
    from tests.conftest import make_user

    make_user("e2e-admin", Role.ADMIN.value, name="Adm Portal", is_staff=True)
    with phone(browser) as tab:
        login(tab, site, "e2e-admin", "/tarifas/publicar/")
        assert tab.locator("textarea").count() == 0  # no JSON to write by hand
        tab.select_option("#id_modality", "taxi")
        tab.fill("#id_decree", "Decreto nº 77/2026")
        tab.select_option("#id_structure", "base_plus_km")
        assert tab.locator("fieldset[data-structure='flags']").is_hidden()
        tab.get_by_label("Tarifa básica (R$)").fill("5,00")
        tab.get_by_label("Quilômetro rodado (R$)").fill("2,50")
        tab.fill("#id_legal_basis", "art. 15")
        tab.get_by_role("button", name="Pré-visualizar as tarifas").click()
        preview = tab.locator(".tariff-preview")
        preview.wait_for()
        shot(tab, "tariff-preview")
        assert "R$ 30,00" in preview.locator("tr", has_text="10 km").inner_text()
        assert not TariffTable.objects.filter(decree="Decreto nº 77/2026").exists()
        assert tab.get_by_label("Tarifa básica (R$)").input_value() == "5,00"  # kept for publishing
        tab.get_by_role("button", name="Publicar tabela").click()
        tab.wait_for_url("**/tarifas/publicar/")
        assert "publicada" in tab.locator(".messages").inner_text()
    table = TariffTable.objects.get(decree="Decreto nº 77/2026")
    assert table.structure == "base_plus_km" and table.components == {"base": "5.00", "per_km": "2.50"}
