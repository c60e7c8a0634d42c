"""A DAM is kept as it was issued: the slip downloaded after it is paid is the same bytes."""

from __future__ import annotations

import pytest

from licensing.fees.services import fee_mark_paid, tff_issue
from portal.models import IssuedDocument
from tests.licensing.requests.helpers import grant


@pytest.mark.django_db
def test_the_dam_downloaded_before_and_after_payment_is_byte_identical(itagiba, applicant, clerk, web):
    auth, _ = grant(applicant)
    fee = tff_issue(actor=clerk, authorization=auth)
    before = web(applicant).get(f"/taxas/{fee.pk}/dam.pdf").content
    fee_mark_paid(actor=clerk, fee=fee, reference="retorno 001")
    assert web(applicant).get(f"/taxas/{fee.pk}/dam.pdf").content == before
    stored = IssuedDocument.objects.get(kind="dam", object_id=str(fee.pk))
    assert bytes(stored.pdf) == before and stored.number == fee.number


@pytest.mark.django_db
def test_the_dam_is_stored_at_issue_before_any_download(itagiba, applicant, clerk, django_capture_on_commit_callbacks):
    auth, _ = grant(applicant)
    with django_capture_on_commit_callbacks(execute=True):
        fee = tff_issue(actor=clerk, authorization=auth)
    stored = IssuedDocument.objects.get(kind="dam", object_id=str(fee.pk))
    assert bytes(stored.pdf).startswith(b"%PDF") and stored.number == fee.number
