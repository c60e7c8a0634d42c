"""Gap-free sequential numbers per (municipality, kind, year), issued inside the caller's transaction.

Each municipality numbers its own acts, alvarás, autos and protocols (its law, its series):
the counter is the one of the municipality in scope (``portal.tenancy``)."""

from __future__ import annotations

import secrets

from django.db import connection, transaction

from portal import tenancy
from portal.models import NumberSequence

_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def next_number(kind: str, year: int) -> int:
    """Take the next number of the (kind, year) counter.

    Must run inside the transaction that stores the numbered object, so that a rollback
    gives the number back (no gaps) and concurrent issuers wait for each other (the counter
    row stays locked by the UPDATE until the transaction ends).
    """
    return reserve_numbers(kind, year, 1)[0]


def reserve_numbers(kind: str, year: int, count: int) -> range:
    """Take ``count`` consecutive numbers of the (kind, year) counter in one statement.

    One ``INSERT … ON CONFLICT DO UPDATE … RETURNING`` (PostgreSQL, SQLite ≥ 3.35) creates the
    counter or adds ``count`` to it and returns the new last number, where the former code ran
    an INSERT, a SELECT … FOR UPDATE and an UPDATE per number. A batch that knows how many it
    will issue reserves them as one block; inside the caller's transaction, so still gap-free.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("next_number() precisa rodar dentro de uma transação.")
    if count < 1:
        raise ValueError("count deve ser ≥ 1")
    municipality_id = tenancy.current_id()
    table = connection.ops.quote_name(NumberSequence._meta.db_table)
    sql = (
        f"INSERT INTO {table} (municipality_id, kind, year, last_number) VALUES (%s, %s, %s, %s) "  # noqa: S608
        f"ON CONFLICT (municipality_id, kind, year) DO UPDATE SET last_number = {table}.last_number + EXCLUDED.last_number "
        "RETURNING last_number"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [municipality_id, kind, year, count])
        last = cursor.fetchone()[0]
    return range(last - count + 1, last + 1)


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
