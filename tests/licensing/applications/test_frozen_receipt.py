"""The protocol receipt is kept as issued: later changes to the records do not rewrite it."""

from __future__ import annotations

import pytest
from django.urls import reverse

from portal.models import IssuedDocument
from tests.licensing.applications.helpers import create_and_submit, open_call


@pytest.mark.django_db
def test_the_receipt_downloaded_before_and_after_a_change_is_byte_identical(itagiba, api, applicant, web):
    open_call("taxi")
    app = create_and_submit(api, applicant)
    url = reverse("licensing-receipt-pdf", kwargs={"pk": app["id"]})
    before = web(applicant).get(url).content
    assert before.startswith(b"%PDF")
    applicant.name = "Nome Alterado Depois"
    applicant.save(update_fields=["name"])
    assert web(applicant).get(url).content == before
    assert IssuedDocument.objects.filter(kind="receipt", object_id=str(app["id"])).count() == 1


@pytest.mark.django_db
def test_the_receipt_is_stored_when_protocolled_before_any_download(itagiba, api, applicant,
                                                                   django_capture_on_commit_callbacks):
    open_call("taxi")
    with django_capture_on_commit_callbacks(execute=True):
        app = create_and_submit(api, applicant)
    stored = IssuedDocument.objects.get(kind="receipt", object_id=str(app["id"]))
    assert bytes(stored.pdf).startswith(b"%PDF") and stored.number
