"""The municipality's law decides the branding, the calculator explains a missing modality,
and dates read DD/MM/AAAA under any browser locale (issue 19)."""

from __future__ import annotations

from tests.e2e.helpers import phone, shot


def test_a_taxi_only_law_shows_no_mototaxi(site, browser):
    from portal import regulation

    regulation.load_pack("arapora")
    regulation.invalidate()
    with phone(browser) as tab:
        tab.goto(site + "/")
        shot(tab, "brand-arapora-home")
        header = tab.locator("header").inner_text()
        assert "Táxi" in header and "mototáxi" not in header.lower()
        assert "mototáxi" not in tab.title().lower()
        tab.goto(site + "/tarifas/")
        shot(tab, "brand-arapora-tariffs")
        note = tab.locator(".missing-modalities").inner_text()
        assert "Mototáxi: serviço não previsto na Lei 724/2008" in note
        assert tab.locator("#id_modality option[value='mototaxi']").count() == 0


def test_a_modality_waiting_for_its_decree_is_named_once_the_decree_is_recorded(site, page):
    # Alegre: mototáxi only by decree (Lei 3.703/2022, art. 29, parágrafo único)
    from portal import regulation
    from tests.factories import record_modality_decree

    page.goto(site + "/")
    header = page.locator("header").inner_text()
    assert "Táxi" in header and "mototáxi" not in header.lower()
    page.goto(site + "/tarifas/")
    assert "art. 29, parágrafo único" in page.locator(".missing-modalities").inner_text()
    record_modality_decree("mototaxi")
    regulation.invalidate()
    page.goto(site + "/?decreto=1")  # another URL: the browser may keep the first answer for a minute
    assert "Táxi e Mototáxi" in page.locator("header").inner_text()


def test_dates_read_dd_mm_aaaa_under_an_english_browser(site, browser):
    context = browser.new_context(locale="en-US", viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        tab = context.new_page()
        tab.goto(site + "/tarifas/")
        date = tab.locator("#id_date")
        assert date.get_attribute("type") == "text" and date.get_attribute("placeholder") == "DD/MM/AAAA"
        tab.fill("#id_km", "10")
        date.fill("02/01/2026")  # 2 January, not February 1st
        tab.locator("#fare-peek").wait_for(state="visible")
        shot(tab, "dates-calculator-en-US")
        tab.get_by_role("button", name="Calcular").click()
        tab.wait_for_load_state("load")
        assert tab.locator("#id_date").input_value() == "02/01/2026"
        assert "02/01/2026" in tab.locator("#fare-result").inner_text()
        # every date field the portal renders is the same widget (no native type=date left)
        for path in ("/tarifas/", "/conta/cadastro/"):
            tab.goto(site + path)
            assert tab.locator("input[type=date]").count() == 0, path
    finally:
        context.close()
