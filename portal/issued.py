"""Issued documents kept byte for byte: rendered once, signed, stored with their SHA-256.

``frozen_pdf`` is the one door to an issued document's PDF: the first call renders it (at
issue, right after the issuing transaction commits), signs it and stores it; every later call
serves exactly the stored bytes, whatever has changed in the records since. Changes to a grant
are new acts with their own documents, never a new rendering of an old one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from django.db import IntegrityError, models, transaction

from portal.audit import audit_log, object_label
from portal.models import IssuedDocument
from portal.signing import sign_pdf


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def stored_document(obj: models.Model, kind: str) -> IssuedDocument | None:
    object_type, object_id, _ = object_label(obj)
    return IssuedDocument.objects.filter(object_type=object_type, object_id=object_id, kind=kind).first()


def stored_document_meta(obj: models.Model, kind: str) -> IssuedDocument | None:
    """stored_document() without the PDF's bytes (the verification shows its hash and signer)."""
    object_type, object_id, _ = object_label(obj)
    found = IssuedDocument.objects.filter(object_type=object_type, object_id=object_id, kind=kind).defer("pdf")
    return next(iter(found.order_by()[:1]), None)  # unique per object and kind: no ORDER BY


def frozen_pdf(
    obj: models.Model, *, kind: str, render: Callable[[], bytes], number: str = "",
    verification_code: str = "", reason: str = "", location: str = "",
) -> IssuedDocument:
    """The stored PDF of ``obj``'s document ``kind``; rendered, signed and stored on first use."""
    existing = stored_document(obj, kind)
    if existing is not None:
        existing.pdf = bytes(existing.pdf)  # PostgreSQL reads binary columns as memoryview
        return existing
    pdf, identity = sign_pdf(render(), reason=reason or f"Emissão de {kind} nº {number}", location=location)
    object_type, object_id, _ = object_label(obj)
    try:
        with transaction.atomic():
            doc = IssuedDocument.objects.create(
                object_type=object_type, object_id=object_id, kind=kind, number=number,
                verification_code=verification_code, pdf=pdf, sha256=sha256_hex(pdf), size=len(pdf),
                signed=identity is not None, signer=identity.subject if identity else "",
                demo_certificate=bool(identity and identity.demo),
            )
            audit_log(actor=None, obj=obj, action="document_frozen", reason=f"PDF de {kind} guardado",
                      data={"kind": kind, "sha256": doc.sha256, "signed": doc.signed})
    except IntegrityError:
        # Two first requests at once: the other one stored it first; serve that one, never two.
        doc = stored_document(obj, kind)
        if doc is None:
            raise
    return doc


def identical_to_issued(data: bytes) -> IssuedDocument | None:
    """The issued document whose bytes are exactly ``data``, if any (uploaded-PDF check)."""
    return IssuedDocument.objects.filter(sha256=sha256_hex(data), size=len(data)).first()
