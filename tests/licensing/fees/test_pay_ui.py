"""Pix a person can use: copia e cola in a read-only field with a copy button and the QR, on the
DAM page, the holder's panel, the TFF box and the notice (inbox and e-mail)."""

import re
from pathlib import Path

import pytest
from django.core import mail

from licensing.fees.documents import fee_barcode, fee_pix
from licensing.fees.services import fee_issue, tff_issue
from portal.models import Notification
from portal.notifications import send_email_now
from tests.licensing.requests.helpers import grant

pytestmark = pytest.mark.django_db


def _field(html: str, field_id: str) -> str:
    m = re.search(rf'<input[^>]*id="{field_id}"[^>]*>', html)
    assert m, field_id
    return m.group(0)


def test_dam_page_has_the_copy_field_the_button_and_the_qr(itagiba, applicant, outsider, clerk, web):
    auth, _ = grant(applicant)
    fee = tff_issue(actor=clerk, authorization=auth)
    r = web(applicant).get(f"/taxas/{fee.pk}/")
    html = r.content.decode()
    assert r.status_code == 200
    pix = _field(html, f"pix-{fee.pk}")
    assert "readonly" in pix and f'value="{fee_pix(fee)["payload"]}"' in pix
    assert f'data-copy-target="pix-{fee.pk}"' in html and f'data-copy-target="line-{fee.pk}"' in html
    assert f'value="{fee_barcode(fee)["digitable_line"]}"' in _field(html, f"line-{fee.pk}")
    assert 'src="data:image/png;base64,' in html and "QR Code Pix do DAM" in html
    assert "<script>" not in html and "js/copy.js" in html  # no inline script: the CSP allows 'self' only
    assert web(outsider).get(f"/taxas/{fee.pk}/").status_code == 404
    assert web(clerk).get(f"/taxas/{fee.pk}/").status_code == 200


def test_holder_panel_shows_the_pix_of_open_dams(itagiba, applicant, clerk, web):
    from django.urls import reverse

    auth, _ = grant(applicant)
    fee = tff_issue(actor=clerk, authorization=auth)
    html = web(applicant).get(reverse("lifecycle-mine")).content.decode()
    assert "readonly" in _field(html, f"pix-{fee.pk}") and f'href="/taxas/{fee.pk}/"' in html


def test_copy_script_is_static_and_vanilla():
    js = (Path(__file__).resolve().parents[3] / "static" / "js" / "copy.js").read_text()
    assert "navigator.clipboard" in js and "execCommand" in js and "data-copy-target" in js


def test_notice_email_carries_the_copia_e_cola_and_the_qr(itagiba, applicant, clerk):
    auth, _ = grant(applicant)
    fee = fee_issue(actor=clerk, kind="fine", holder=applicant, authorization=auth, description="Multa de teste",
                    legal_basis="PL 015/2025 (Itagibá/BA), art. 33", amount="1234.56")
    note = Notification.objects.get(dedup_key=f"fee-issued:{fee.pk}")
    payload = fee_pix(fee)["payload"]
    assert note.pix_payload == payload and "R$ 1.234,56" in note.body and note.link == f"/taxas/{fee.pk}/"
    mail.outbox.clear()
    assert send_email_now(note.pk)
    [msg] = mail.outbox
    assert payload in msg.body
    html = msg.alternatives[0][0]
    assert payload in html and 'src="cid:pix-qr"' in html
    [image] = [a for a in msg.attachments if not isinstance(a, tuple)]
    assert image["Content-ID"] == "<pix-qr>" and image.get_content_type() == "image/png"
