"""Small steps shared by the journeys: log in through the form, open a phone-sized tab, keep a screenshot."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

PASSWORD = "senha-forte-123"
PHONE = {"width": 390, "height": 844}
# E2E_SHOTS=/some/dir keeps a screenshot of each page a journey looks at (to look at them by eye).
SHOTS = os.environ.get("E2E_SHOTS")


def login(tab, site: str, username: str, next_path: str = "/painel/") -> None:
    tab.goto(f"{site}/conta/entrar/?next={next_path}")
    tab.get_by_label("Usuário ou CPF").fill(username)
    tab.get_by_label("Senha").fill(PASSWORD)
    tab.locator("main").get_by_role("button", name="Entrar").click()
    tab.wait_for_url(f"**{next_path}")


@contextmanager
def phone(browser):
    context = browser.new_context(locale="pt-BR", viewport=PHONE, is_mobile=True, has_touch=True)
    context.set_default_timeout(15_000)
    try:
        yield context.new_page()
    finally:
        context.close()


def shot(tab, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)


def no_sideways_scroll(tab) -> int:
    return tab.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
