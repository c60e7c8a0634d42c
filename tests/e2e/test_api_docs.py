"""The API's browsable documentation (/api/v1/docs/) works offline and under the portal's CSP."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e


def test_api_docs_render_from_vendored_assets_without_csp_errors(page, site):
    console, outside = [], []
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: console.append(f"pageerror: {e}"))
    page.on("request", lambda r: outside.append(r.url) if not r.url.startswith(site) and
            not r.url.startswith("data:") else None)
    response = page.goto(f"{site}/api/v1/docs/", wait_until="networkidle")
    csp = response.headers["content-security-policy"]
    assert "'unsafe-inline'" not in csp and "script-src 'self'" in csp
    page.wait_for_selector(".opblock")
    title = page.locator(".info .title").inner_text()
    assert "Alegre/ES" in title and "0.1.0" in title  # the municipality and the portal's version
    assert page.locator(".opblock").count() > 90
    page.locator(".opblock-summary", has_text="/api/v1/infractions/").first.click()  # React draws it open
    page.wait_for_selector(".responses-table")
    assert "401" in page.locator(".opblock-body").first.inner_text()  # the error responses are documented
    assert not outside, outside  # no CDN: every asset is the portal's own
    assert not console, console
