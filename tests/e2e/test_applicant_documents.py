"""Documents in one go, on a phone: several files in one send, the page stays at the item,
and a file chosen but not sent is never dropped silently (issue 19)."""

from __future__ import annotations

from portal.roles import Role
from tests.e2e.helpers import PHONE, login, phone, shot

CPF_RITA = "52998224725"


def _draft(tmp_path):
    from rest_framework.test import APIClient

    from licensing.applications.selectors import required_documents
    from licensing.models import Application
    from tests.conftest import make_user
    from tests.licensing.applications.helpers import PDF_BYTES, open_call, payload

    open_call("taxi")
    rita = make_user(CPF_RITA, Role.APPLICANT.value, cpf=CPF_RITA, name="Rita Requerente")
    client = APIClient()
    client.force_authenticate(user=rita)
    r = client.post("/api/v1/applications/", payload("taxi"), format="json")
    assert r.status_code == 201, r.json()
    app = Application.objects.get(pk=r.json()["id"])
    pdf = tmp_path / "documento.pdf"
    pdf.write_bytes(PDF_BYTES)
    return app, required_documents(app), str(pdf)


def _in_view(tab, selector) -> bool:
    box = tab.locator(selector).bounding_box()
    return box is not None and 0 <= box["y"] < PHONE["height"]


# The page scrolls to the item smoothly (Bootstrap's `scroll-behavior: smooth` where the person
# has not asked for reduced motion): the scroll lasts several hundred milliseconds after "load".
# Reading the position before it ends sees the page half-way (why this journey was flaky).
# Wait until the page has stopped moving: the same scrollY over ten animation frames (false
# if it still moves after 600 frames, about ten seconds).
_SCROLL_SETTLED = """() => new Promise(done => {
  let last = -1, still = 0, frames = 0;
  const tick = () => {
    still = (scrollY === last) ? still + 1 : 0;
    last = scrollY;
    frames += 1;
    if (still >= 10) { done(true); } else if (frames > 600) { done(false); } else { requestAnimationFrame(tick); }
  };
  requestAnimationFrame(tick);
})"""


def test_several_files_in_one_send_and_the_page_stays_at_the_item(site, browser, tmp_path):
    app, items, pdf = _draft(tmp_path)
    last = items[-1]
    with phone(browser) as tab:
        login(tab, site, CPF_RITA, f"/requerimentos/{app.pk}/etapa/documents/")
        tab.set_input_files(f"input[name='file-{items[0].code}']", pdf)
        tab.set_input_files(f"input[name='file-{last.code}']", pdf)
        tab.locator(f"[id='doc-{last.code}']").get_by_role("button", name="Enviar").click()
        # the new page (a redirect to the item's anchor) is loaded, then it has stopped scrolling
        tab.wait_for_url(f"**#doc-{last.code}", wait_until="load")
        assert tab.evaluate(_SCROLL_SETTLED), "the page kept scrolling"
        assert tab.evaluate("window.scrollY") > 0 and _in_view(tab, f"[id='doc-{last.code}']")
        shot(tab, "documents-after-send")
        assert app.documents.count() == 2
        assert tab.url.endswith(f"#doc-{last.code}")
        assert "Arquivo recebido" in tab.locator(f"[id='doc-{last.code}']").inner_text()


def test_a_file_chosen_and_not_sent_is_not_dropped_silently(site, browser, tmp_path):
    app, items, pdf = _draft(tmp_path)
    with phone(browser) as tab:
        login(tab, site, CPF_RITA, f"/requerimentos/{app.pk}/etapa/documents/")
        tab.set_input_files(f"input[name='file-{items[1].code}']", pdf)
        tab.locator("main").get_by_role("link", name="Continuar", exact=True).click()
        warning = tab.locator(".unsent-warning")
        warning.wait_for(state="visible")
        assert items[1].label in warning.inner_text() and "/etapa/documents/" in tab.url
        assert _in_view(tab, ".unsent-warning")
        shot(tab, "documents-unsent-warning")
        tab.get_by_role("button", name="Enviar os arquivos escolhidos").click()
        tab.wait_for_url(f"**#doc-{items[1].code}")
        assert app.documents.filter(type=items[1].code).count() == 1
