"""End-to-end harness: Playwright (Python) driving Debian's Chromium against ``live_server``.

Skipped, with the reason shown in the summary, when Chromium or Playwright is missing.
Screenshots of failed journeys go to ``var/screenshots/``.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from tests.ops.transactional import ensure_roles, restore_roles  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "var" / "screenshots"
AXE_JS = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-quic",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
]
_skip_reason: list[str] = []


def chromium_executable() -> str | None:
    """CHROMIUM_PATH when set (only that one), else Debian's /usr/bin/chromium or one on PATH."""
    if os.environ.get("CHROMIUM_PATH"):
        candidates: tuple = (os.environ["CHROMIUM_PATH"],)
    else:
        candidates = ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser"))
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "tests/e2e/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.e2e)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


def pytest_terminal_summary(terminalreporter):
    if _skip_reason:
        terminalreporter.write_line(f"AVISO e2e: {_skip_reason[0]}", yellow=True, bold=True)


@pytest.fixture(scope="module", autouse=True)
def _sync_orm_beside_playwright():
    """Playwright's sync API keeps an event loop running in this thread while the browser is
    open; the ORM calls of these tests (users, pack, flush) are synchronous and safe here.
    Allowed only for the e2e modules, whose browser closes with the module."""
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    yield
    if previous is None:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    else:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture(scope="module")
def browser():
    executable = chromium_executable()
    if executable is None:
        reason = "Chromium não encontrado (/usr/bin/chromium; instale o pacote Debian 'chromium'): testes e2e pulados."
        _skip_reason.append(reason)
        pytest.skip(reason)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover - the dev extra installs it
        reason = "Playwright não instalado (pip install -e '.[dev]'): testes e2e pulados."
        _skip_reason.append(reason)
        pytest.skip(reason)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def site(restore_roles, live_server, transactional_db):  # noqa: F811
    """The live portal with the default pack loaded; returns its base URL."""
    from portal import regulation

    ensure_roles()
    regulation.load_pack("alegre")
    regulation.invalidate()
    return live_server.url


def _screenshot_name(nodeid: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid)[-150:] + ".png"


@pytest.fixture
def page(browser, request):
    """A fresh browser context (desktop size) per test; screenshot kept when the test fails."""
    context = browser.new_context(locale="pt-BR", viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    tab = context.new_page()
    yield tab
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=str(SCREENSHOTS / _screenshot_name(request.node.nodeid)), full_page=True)
    context.close()


@pytest.fixture
def axe_page(browser, request):
    """A page whose context bypasses the CSP so that the vendored axe-core can be injected."""
    context = browser.new_context(locale="pt-BR", bypass_csp=True, viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    yield tab
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=str(SCREENSHOTS / _screenshot_name(request.node.nodeid)), full_page=True)
    context.close()


def run_axe(tab) -> list[dict]:
    """Violations of impact serious or critical found by axe-core on the current page."""
    tab.add_script_tag(path=str(AXE_JS))
    result = tab.evaluate(
        "async () => await axe.run(document, {resultTypes: ['violations']})"
    )
    return [
        {"id": v["id"], "impact": v["impact"], "help": v["help"],
         "nodes": [n["target"] for n in v["nodes"]][:5]}
        for v in result["violations"]
        if v.get("impact") in ("serious", "critical")
    ]
