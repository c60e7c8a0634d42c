"""The first journey in a real browser: anonymous home → login as each role → the role's menu."""

from __future__ import annotations

import pytest

from portal.roles import Role
from tests.e2e.conftest import run_axe

PASSWORD = "senha-forte-123"
ROLES = [Role.APPLICANT, Role.CLERK, Role.AGENT, Role.JUDGE, Role.ADMIN]


def _nav_labels(tab) -> list[str]:
    return [t.strip() for t in tab.locator("nav[aria-label='Menu principal'] a").all_inner_texts()]


@pytest.mark.parametrize("role", ROLES, ids=[r.value for r in ROLES])
def test_home_then_login_shows_the_role_menu(role, site, page):
    from portal import menu
    from tests.conftest import make_user

    user = make_user(f"e2e-{role.value}", role.value, name=f"Pessoa {role.label}",
                     is_staff=role == Role.ADMIN)

    page.goto(site + "/")
    assert page.locator("h1").first.is_visible()
    anonymous_menu = _nav_labels(page)
    assert "Início" in anonymous_menu and "Meu painel" not in anonymous_menu

    page.locator("header").get_by_role("link", name="Entrar").click()
    page.wait_for_url("**/conta/entrar/**")
    page.get_by_label("Usuário ou CPF").fill(user.username)
    page.get_by_label("Senha").fill(PASSWORD)
    page.locator("main").get_by_role("button", name="Entrar").click()
    page.wait_for_url("**/painel/")

    assert page.locator("h1").inner_text().startswith("Olá")
    assert f"({role.label})" in page.locator("header .user-box").inner_text()
    expected = [item["label"] for g in menu.grouped(menu.items_for(user, public=False)) for item in g["items"]]
    assert "Meu painel" in expected
    assert _nav_labels(page) == expected
    # the dashboard lists what the role can do, nothing the role may not reach
    for item in menu.items_for(user, public=False):
        if item["url_name"] not in ("home", "dashboard"):
            assert page.locator("main ul.action-list").get_by_role("link", name=item["label"], exact=True).count() == 1

    page.get_by_role("button", name="Sair").click()
    page.wait_for_url(site + "/")
    assert "Meu painel" not in _nav_labels(page)


def test_wrong_password_shows_the_error_next_to_the_form(site, page):
    from tests.conftest import make_user

    make_user("e2e-wrong", Role.CLERK.value)
    page.goto(site + "/conta/entrar/")
    page.get_by_label("Usuário ou CPF").fill("e2e-wrong")
    page.get_by_label("Senha").fill("senha-errada-000")
    page.locator("main").get_by_role("button", name="Entrar").click()
    assert "Usuário ou senha incorretos" in page.locator("main").inner_text()
    assert "/conta/entrar/" in page.url


@pytest.mark.parametrize("path", ["/", "/conta/entrar/", "/transparencia/estatisticas/"],
                         ids=["home", "login", "statistics"])
def test_no_serious_accessibility_violations(path, site, axe_page):
    axe_page.goto(site + path)
    violations = run_axe(axe_page)
    assert violations == [], violations


@pytest.mark.parametrize("path", ["/", "/conta/entrar/", "/transparencia/estatisticas/"],
                         ids=["home", "login", "statistics"])  # the charts scroll in their own box
def test_phone_width_has_no_horizontal_scroll(path, site, browser):
    context = browser.new_context(locale="pt-BR", viewport={"width": 390, "height": 844}, is_mobile=True)
    tab = context.new_page()
    try:
        tab.goto(site + path)
        overflow = tab.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{path}: {overflow}px de rolagem horizontal em 390px"
    finally:
        context.close()


def test_clerk_job_pages_are_accessible(site, axe_page):
    from portal.jobs import run_job
    from tests.conftest import make_user

    make_user("e2e-clerk-jobs", Role.CLERK.value)
    run_job("licensing.expire_grants", lambda: 3)
    axe_page.goto(site + "/conta/entrar/?next=/tarefas/")
    axe_page.get_by_label("Usuário ou CPF").fill("e2e-clerk-jobs")
    axe_page.get_by_label("Senha").fill(PASSWORD)
    axe_page.locator("main").get_by_role("button", name="Entrar").click()
    axe_page.wait_for_url("**/tarefas/")
    assert "Expiração de autorizações e alvarás" in axe_page.locator("main").inner_text()
    assert run_axe(axe_page) == []
    nav = axe_page.locator("nav[aria-label='Menu principal']")
    nav.get_by_role("button", name="Operação").click()  # a clerk's long menu is grouped under headings
    nav.get_by_role("link", name="Veículos na idade máxima").click()
    axe_page.wait_for_url("**/tarefas/veiculos-idade-maxima/")
    assert run_axe(axe_page) == []


def test_phone_sees_the_fare_change_beside_the_km_field(site, browser):
    context = browser.new_context(locale="pt-BR", viewport={"width": 390, "height": 844}, is_mobile=True)
    tab = context.new_page()
    try:
        tab.goto(site + "/tarifas/")
        peek = tab.locator("#fare-peek")
        assert not peek.is_visible()
        tab.fill("#id_km", "10")
        peek.wait_for(state="visible")
        assert "R$" in peek.inner_text()
        box, km = peek.bounding_box(), tab.locator("#id_km").bounding_box()
        assert 0 <= box["y"] - (km["y"] + km["height"]) < 150 and box["y"] + box["height"] <= 844  # right below, in view
        assert tab.locator("#fare-result").get_attribute("aria-live") == "polite"
    finally:
        context.close()
