"""The clerk's application page fetches no document until one is opened, and the access log
records a consultation only then (issue 19: 126 "consultado" after 7 views)."""

from __future__ import annotations

import re

from portal.roles import Role
from tests.e2e.helpers import login, shot

CPF_RITA = "52998224725"


def test_documents_load_and_are_logged_only_when_opened(site, page):
    from rest_framework.test import APIClient

    from licensing.models import Application
    from portal.models import AuditEntry
    from tests.conftest import make_user
    from tests.licensing.applications.helpers import create_and_submit, open_call

    open_call("taxi")
    rita = make_user(CPF_RITA, Role.APPLICANT.value, cpf=CPF_RITA, name="Rita Requerente")
    make_user("e2e-atendente", Role.CLERK.value, name="Ana Atendente")

    def api(user):
        client = APIClient()
        client.force_authenticate(user=user)
        return client

    app = Application.objects.get(pk=create_and_submit(api, rita, auxiliaries=1)["id"])
    n_docs = app.documents.count()
    fetched: list[str] = []
    file_url = re.compile(rf"/requerimentos/{app.pk}/documentos/\d+/$")
    page.on("request", lambda r: fetched.append(r.url) if file_url.search(r.url) else None)
    login(page, site, "e2e-atendente", f"/requerimentos/{app.pk}/")
    for _ in range(3):  # the clerk comes back to the page a few times
        page.reload()
        page.wait_for_load_state("networkidle")
    viewed = AuditEntry.objects.filter(action="document_viewed", object_id=str(app.pk))
    assert n_docs > 3 and fetched == [] and viewed.count() == 0
    first = page.locator("details.doc-open").first
    # Wait for the file's own response: the audit entry is written before the view answers.
    # (wait_for_load_state("networkidle") returned at once here, the page having reached that
    # state before the click, so the count was sometimes read before the request was served.)
    with page.expect_response(lambda r: bool(file_url.search(r.url))) as answer:
        first.locator("summary").click()
    assert answer.value.ok
    answer.value.finished()
    first.locator("iframe, img").wait_for()
    shot(page, "clerk-document-opened")
    assert len(set(fetched)) == 1 and viewed.count() >= 1
    assert viewed.values("actor__username").distinct().get()["actor__username"] == "e2e-atendente"
