"""Gap-free sequential numbers per (municipality, kind, year), issued inside the caller's transaction.

Each municipality numbers its own acts, alvarás, autos and protocols (its law, its series):
the series is the one of the municipality in scope (``portal.tenancy``)."""

from __future__ import annotations

import secrets
import zlib

from django.db import connection, transaction

from portal import tenancy
from portal.models import IssuedNumber

_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def next_number(kind: str, year: int) -> int:
    """Take the next number of the (kind, year) series of the municipality in scope.

    Must run inside the transaction that stores the numbered object, so that a rollback (of it,
    or of the savepoint it ran in) gives the number back (no gaps), and concurrent issuers of one
    series wait for each other until the first one's transaction ends: on PostgreSQL a
    transaction-scoped advisory lock on the series, on SQLite the database's write lock, which
    the INSERT takes before it reads. The unique index refuses a number given twice anyway.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("next_number() precisa rodar dentro de uma transação.")
    municipality_id = tenancy.current_id()
    table = connection.ops.quote_name(IssuedNumber._meta.db_table)
    # one row per number (see IssuedNumber): the last one is found backwards on the unique index
    sql = (
        f"INSERT INTO {table} (municipality_id, kind, year, number) "  # noqa: S608
        f"SELECT %s, %s, %s, COALESCE((SELECT number FROM {table} WHERE municipality_id = %s AND kind = %s "
        "AND year = %s ORDER BY number DESC LIMIT 1), 0) + 1 RETURNING number"
    )
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # READ COMMITTED: the INSERT below takes its snapshot after the lock, so it sees the
            # number of the transaction it waited for
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [municipality_id, _series_key(kind, year)])
        cursor.execute(sql, [municipality_id, kind, year, municipality_id, kind, year])
        return cursor.fetchone()[0]


def _series_key(kind: str, year: int) -> int:
    """The series as a signed 32-bit lock key (two series sharing a key only wait for each other)."""
    return zlib.crc32(f"{kind}:{year}".encode()) - 2**31


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
