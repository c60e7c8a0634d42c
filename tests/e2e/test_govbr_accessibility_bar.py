"""The gov.br accessibility bar (issue 19): eMAG access keys Alt+1…4 reach the content, the menu,
the search and the footer; "Alto contraste" switches a real high-contrast theme, kept across
pages and visits; the pages stay free of serious axe violations in both themes."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import run_axe
from tests.e2e.helpers import no_sideways_scroll, phone, shot

ACCESS_KEYS = [("1", "conteudo"), ("2", "menu"), ("3", "busca"), ("4", "rodape")]


@pytest.mark.parametrize(("key", "target"), ACCESS_KEYS, ids=[t for _, t in ACCESS_KEYS])
def test_access_keys_move_the_focus_to_each_region(site, page, key, target):
    page.goto(site + "/tarifas/")
    page.keyboard.press(f"Alt+{key}")
    page.wait_for_function("id => document.activeElement && document.activeElement.id === id", arg=target)
    assert page.url.endswith(f"#{target}")


def test_the_search_in_the_header_verifies_a_document(site, page):
    page.goto(site + "/")
    page.keyboard.press("Alt+3")
    page.keyboard.type("ZZZ9Z99")
    page.keyboard.press("Enter")
    page.wait_for_url("**/verificar/?q=ZZZ9Z99")
    assert page.locator("h1").inner_text().startswith("Verificar")


def test_the_accessibility_page_lists_the_access_keys(site, page):
    page.goto(site + "/acessibilidade/")
    table = page.locator("#atalhos + p + table").inner_text()
    for key, region in (("1", "conteúdo"), ("2", "menu"), ("3", "busca"), ("4", "rodapé")):
        assert f"Alt + {key}" in table and region in table


def _background(tab) -> str:
    return tab.evaluate("() => getComputedStyle(document.body).backgroundColor")


def test_high_contrast_is_switched_and_kept_across_pages_and_visits(site, page):
    page.goto(site + "/")
    toggle = page.get_by_role("button", name="Alto contraste")
    assert toggle.get_attribute("aria-pressed") == "false" and _background(page) == "rgb(255, 255, 255)"
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true"
    assert page.evaluate("document.documentElement.classList.contains('alto-contraste')")
    assert _background(page) == "rgb(0, 0, 0)"
    # links turn yellow (read once the buttons' colour transition has ended)
    page.wait_for_function("() => [...document.querySelectorAll('main a')].every("
                           "a => getComputedStyle(a).color === 'rgb(255, 255, 0)')")
    shot(page, "high-contrast-home")
    page.goto(site + "/verificar/")  # another page: the choice holds
    assert _background(page) == "rgb(0, 0, 0)"
    assert page.get_by_role("button", name="Alto contraste").get_attribute("aria-pressed") == "true"
    page.get_by_role("button", name="Alto contraste").click()  # and it is switched off again
    page.reload()
    assert _background(page) == "rgb(255, 255, 255)"
    assert page.get_by_role("button", name="Alto contraste").get_attribute("aria-pressed") == "false"


@pytest.mark.parametrize("path", ["/", "/acessibilidade/", "/verificar/?q=ABC1D23"], ids=["home", "a11y", "verify"])
def test_no_serious_axe_violation_in_high_contrast(site, axe_page, path):
    axe_page.goto(site + "/")
    axe_page.evaluate("() => localStorage.setItem('portal-alto-contraste', '1')")
    axe_page.goto(site + path)
    assert axe_page.evaluate("document.documentElement.classList.contains('alto-contraste')")
    violations = run_axe(axe_page)
    assert violations == [], violations


def test_phone_shows_the_bar_without_sideways_scroll(site, browser):
    with phone(browser) as tab:
        tab.goto(site + "/")
        assert no_sideways_scroll(tab) <= 0
        assert tab.get_by_role("button", name="Alto contraste").is_visible()
        assert tab.get_by_role("searchbox", name="Verificar autorização", exact=True).is_visible()
        shot(tab, "govbr-home-phone")
