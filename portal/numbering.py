"""Gap-free sequential numbers per (kind, year), issued inside the caller's transaction."""

from __future__ import annotations

import secrets

from django.db import transaction

from portal.models import NumberSequence

_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def next_number(kind: str, year: int) -> int:
    """Lock the (kind, year) counter row and take the next number.

    Must run inside the transaction that stores the numbered object, so that a rollback
    gives the number back (no gaps) and concurrent issuers wait for each other.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("next_number() precisa rodar dentro de uma transação.")
    NumberSequence.objects.bulk_create(
        [NumberSequence(kind=kind, year=year, last_number=0)], ignore_conflicts=True
    )
    seq = NumberSequence.objects.select_for_update().get(kind=kind, year=year)
    seq.last_number += 1
    seq.save(update_fields=["last_number"])
    return seq.last_number


def document_number(kind: str, year: int) -> str:
    """NNN/AAAA, as on issued acts, alvarás and autos."""
    return f"{next_number(kind, year):03d}/{year}"


def protocol_number(year: int) -> str:
    """AAAA/NNNNNN, the protocol of an application."""
    return f"{year}/{next_number('protocol', year):06d}"


def verification_code() -> str:
    """A code that cannot be guessed (60 bits), grouped for reading: XXXX-XXXX-XXXX."""
    raw = "".join(secrets.choice(_ALPHABET) for _ in range(12))
    return f"{raw[:4]}-{raw[4:8]}-{raw[8:]}"


def normalize_verification_code(code: str) -> str:
    raw = "".join(ch for ch in (code or "").upper() if ch.isalnum())
    if len(raw) != 12:
        return (code or "").strip().upper()
    return f"{raw[:4]}-{raw[4:8]}-{raw[8:]}"
