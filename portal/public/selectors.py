"""Reads behind the public pages and open data (holder names only; never a CPF or a document).

The data come from the domain apps through ``portal.registry`` (portal imports no domain app):
licensing provides the grants, quotas and their statistics, enforcement the autos.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import date

from portal import registry
from portal.numbering import normalize_verification_code
from portal.regulation import Pack
from portal.validators import normalize_plate

STATUS_LABELS = {
    "active": "ativa",
    "suspended": "suspensa",
    "cassada": "cassada",
    "expired": "expirada",
    "renounced": "renunciada",
    "cancelled": "cancelada",
    "retained": "retida",
    "superseded": "substituída",
}


def modalities(pack: Pack) -> list[str]:
    """The pack's modalities in force, táxi first (one waiting for its decree is not shown)."""
    return pack.in_force_modalities


def public_name(user) -> str:
    """The person's name, never their CPF (a requerente's username is the CPF)."""
    if user is None:
        return ""
    return user.name or user.get_full_name() or "(nome não informado)"


def public_name_of(name: str | None, first_name: str | None, last_name: str | None) -> str:
    """public_name() from the columns themselves (rows read with values(), no User instance)."""
    return name or f"{first_name or ''} {last_name or ''}".strip() or "(nome não informado)"


# --- transparency (provided by the app that grants) -----------------------------------------
def current_grants(q: str = "", modality: str = ""):
    return registry.call(registry.GRANTS_CURRENT, q, modality)


def current_grant_ids(q: str = "", modality: str = ""):
    return registry.call(registry.GRANTS_CURRENT_IDS, q, modality)


def grants_by_ids(ids: list[int]) -> list:
    return registry.call(registry.GRANTS_BY_IDS, ids)


def grants_fingerprint() -> str:
    return registry.call(registry.GRANTS_FINGERPRINT)


def open_data_row(grant) -> dict:
    return registry.call(registry.GRANTS_OPEN_DATA_ROW, grant)


def open_data_rows(ids: list[int]) -> list[dict]:
    """The open-data rows of these grants, in the order of ``ids`` (one query, no instances)."""
    return registry.call(registry.GRANTS_OPEN_DATA_ROWS, ids)


def open_data_stream(q: str = "", modality: str = ""):
    """Every current grant's open-data row, newest first, read in chunks (constant memory)."""
    return registry.call(registry.GRANTS_OPEN_DATA_STREAM, q, modality)


class CountedIds:
    """The ids of current grants (newest first: ``current_grant_ids`` orders by -id) for a
    Paginator or DRF's pagination, without a COUNT nor an OFFSET per request.

    The unfiltered list (every page of the transparency list, the deep ones included) is read
    once per data stamp into its **page index** — every ``STRIDE``-th id and the total — kept
    in the process and, for the other processes, in the shared cache; a page is then a keyset
    slice (``id <= the page's first id``, LIMIT), which costs the same on page 1 and page 800. A search (``q``) is small: its count is kept in the
    cache and its pages use OFFSET. The stamp (grants_fingerprint) changes with every grant or
    audit entry, so a new, suspended or cancelled grant is in the list within its memo (2 s)."""

    ordered = True
    STRIDE = 50
    # One index per municipality and filter, replaced when its stamp moves: with a hundred
    # municipalities on one installation each keeps its own (a shared bound that was cleared
    # when full read every small municipality's list again on most requests).
    MAX_INDEXES = 4096

    _indexes: OrderedDict[tuple, tuple[str, int, list[int]]] = OrderedDict()

    def __init__(self, q: str = "", modality: str = ""):
        self.q, self.modality = q, modality
        self._index: tuple[int, list[int]] | None = None

    @functools.cached_property
    def ids(self):
        """The ids' queryset, built when used: a keyset page of rows (CountedRows) needs none."""
        return current_grant_ids(self.q, self.modality)

    def _slot(self) -> tuple:
        """Which list this is: the municipality (the index is kept in the process, outside the
        cache's per-municipality keys) and the filters."""
        from portal import tenancy

        return (tenancy.current_id_or_none(), self.q, self.modality)

    def _key(self, prefix: str) -> str:
        """The cache key of this list at its data stamp (what it depends on)."""
        import hashlib

        raw = "|".join(map(str, (*self._slot(), grants_fingerprint())))
        return prefix + hashlib.sha256(raw.encode()).hexdigest()

    def page_index(self) -> tuple[int, list[int], int]:
        """(total, every STRIDE-th id from the newest, the oldest id or 0): one pass over the ids
        per data stamp."""
        if self._index is None:
            slot, stamp = self._slot(), grants_fingerprint()
            found = self._indexes.get(slot)
            if found is None or found[0] != stamp:
                found = (stamp, *self._shared_index())
                self._indexes[slot] = found
                while len(self._indexes) > self.MAX_INDEXES:
                    self._indexes.popitem(last=False)
            try:
                self._indexes.move_to_end(slot)
            except KeyError:  # another thread of a threaded server let it go meanwhile
                pass
            self._index = found[1:]
        return self._index

    def _shared_index(self) -> tuple[int, list[int], int]:
        """The index at this data stamp from the shared cache, or read from the ids and left
        there: one process makes the pass, the others (every worker after a change of the
        data) read some hundred ids instead of every grant's."""
        from django.core.cache import cache

        key = self._key("open-data-pages:")
        shared = cache.get(key)
        if shared is not None:
            return shared
        total, firsts, pk = 0, [], 0
        for total, pk in enumerate(self.ids.iterator(chunk_size=10000), start=1):
            if (total - 1) % self.STRIDE == 0:
                firsts.append(pk)
        cache.set(key, (total, firsts, pk), 300)
        return total, firsts, pk

    def count(self) -> int:
        if not self.q:
            return self.page_index()[0]
        from django.core.cache import cache

        key = self._key("open-data-count:")
        found = cache.get(key)
        if found is None:
            found = self.ids.count()
            cache.set(key, found, 300)
        return found

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, item):
        if self.q or not isinstance(item, slice) or item.step or item.start is None or item.stop is None:
            return self.ids[item]
        total, firsts = self.page_index()[:2]
        start, stop = max(item.start, 0), min(item.stop, total)
        if start >= stop:
            return []
        first = firsts[start // self.STRIDE]
        skip = start % self.STRIDE  # within one stride: a short OFFSET from the keyset
        return list(self.ids.filter(pk__lte=first)[skip:skip + stop - start])


class CountedRows(CountedIds):
    """CountedIds whose pages are the open-data rows themselves: a page of the unfiltered or
    modality list at a stride's start (every page of OPEN_DATA_PAGE rows) is one keyset query
    for its rows (GRANTS_OPEN_DATA_PAGE); a search, another page size or a page between strides
    takes the ids and then their rows."""

    def __getitem__(self, item):
        if (not self.q and isinstance(item, slice) and not item.step and item.start is not None
                and item.stop is not None and self.STRIDE == registry.OPEN_DATA_PAGE):
            total, firsts, oldest = self.page_index()
            start, stop = max(item.start, 0), min(item.stop, total)
            if start >= stop:
                return []
            if start % self.STRIDE == 0 and stop - start <= self.STRIDE:
                page = start // self.STRIDE
                # how far the page's ids reach: to the next page's first, or to the oldest
                after = firsts[page + 1] if page + 1 < len(firsts) else oldest - 1
                rows = registry.call(registry.GRANTS_OPEN_DATA_PAGE, firsts[page], self.modality, after)
                return rows[: stop - start]
        ids = super().__getitem__(item)
        return open_data_rows(list(ids))


# --- verification -------------------------------------------------------------------------
@dataclass
class Verification:
    kind: str  # "authorization" | "alvara" | "amendment" | "infraction"
    document: str
    number: str
    status: str
    valid: bool
    valid_until: date | None
    modality: str
    modality_label: str
    plate: str
    holder: str
    driver: str
    code: str
    suspended_until: date | None = None
    act_basis: str = ""
    label: str = ""  # the status in words when the document's app names it
    vehicle: dict | None = None  # {"make", "model", "color"} of the vehicle the document names
    drivers: list[str] = field(default_factory=list)  # names of the drivers authorized on it
    superseded_by: dict | None = None  # {"document", "number", "code"} of the document in force
    sha256: str | None = None  # of the PDF as issued (portal.issued), when stored
    signer: str = ""  # who signed the PDF as issued (PAdES), when signed
    amends: dict | None = None  # an act of amendment: {"document", "number", "code"} of the act it amends
    changes: list[dict] = field(default_factory=list)  # what an act of amendment changed [{label, before, after}]
    issued_on: date | None = None
    amended_by: list[dict] = field(default_factory=list)  # acts of amendment: {"document", "number", "code", "what"}

    @property
    def status_label(self) -> str:
        return self.label or STATUS_LABELS.get(self.status, self.status)

    def as_api(self) -> dict:
        out = {
            "valid": self.valid,
            "status": self.status,
            "status_label": self.status_label,
            "document": self.document,
            "kind": self.kind,
            "number": self.number,
            "plate": self.plate,
            "modality": self.modality,
            "valid_until": self.valid_until.isoformat() if self.valid_until else None,
            "holder": self.holder,
        }
        if self.kind == "alvara":
            out["driver"] = self.driver
        if self.suspended_until:
            out["suspended_until"] = self.suspended_until.isoformat()
        if self.kind != "infraction":
            out.update({"vehicle": self.vehicle, "drivers": self.drivers, "superseded_by": self.superseded_by,
                        "sha256": self.sha256})
        if self.kind == "authorization":
            out["amended_by"] = self.amended_by
        if self.kind == "amendment":
            out.update({"amends": self.amends, "changes": self.changes,
                        "issued_on": self.issued_on.isoformat() if self.issued_on else None})
        return out


def effective_status(status: str, valid_until: date, today: date) -> str:
    """A current document past its validity is shown as expired even before the nightly job runs."""
    if status in ("active", "suspended", "retained") and valid_until < today:
        return "expired"
    return status


def verification_of(doc, pack: Pack) -> Verification:
    for lookup in registry.verification_lookups():
        found = lookup.verification(doc, pack)
        if found is not None:
            return found
    raise LookupError(f"nenhum app verifica {type(doc).__name__}")


def document_by_code(code: str):
    code = normalize_verification_code(code or "")
    if not code or len(code) > 20:
        return None
    for lookup in registry.verification_lookups():
        found = lookup.by_code(code)
        if found is not None:
            return found
    return None


def verify_by_code(code: str, pack: Pack) -> Verification | None:
    """verification_of(document_by_code(code)): the public answer to a QR code. A lookup that
    can build it straight from the code (``verification_by_code``: one query, no model
    instances — the cold path under load) does; the others find the document and verify it."""
    code = normalize_verification_code(code or "")
    if not code or len(code) > 20:
        return None
    for lookup in registry.verification_lookups():
        direct = getattr(lookup, "verification_by_code", None)
        if direct is not None:
            found = direct(code, pack)
        else:
            doc = lookup.by_code(code)
            found = lookup.verification(doc, pack) if doc is not None else None
        if found is not None:
            return found
    return None


def search_documents(q: str) -> list:
    """Documents matching a verification code, an authorization/alvará number or a plate."""
    q = (q or "").strip()
    if not q or len(q) > 20:
        return []
    found = document_by_code(q)
    if found is not None:
        return [found]
    docs: list = [doc for lookup in registry.verification_lookups() for doc in lookup.by_number(q)]
    if docs:
        return docs
    plate = normalize_plate(q)
    if len(plate) == 7:
        for lookup in registry.verification_lookups():
            docs = lookup.by_plate(plate)
            if docs:
                return docs
    return []


# --- quotas -------------------------------------------------------------------------------
def quotas(pack: Pack) -> list[dict]:
    return registry.call(registry.QUOTAS, pack)


# --- statistics ---------------------------------------------------------------------------
def last_months(pack: Pack, months: int = 12) -> list[date]:
    """First days of the last ``months`` months, oldest first, in the municipality's calendar."""
    today = pack.today()
    first = date(today.year, today.month, 1)
    for _ in range(months - 1):
        first = date(first.year - 1, 12, 1) if first.month == 1 else date(first.year, first.month - 1, 1)
    month_list = [first]
    while len(month_list) < months:
        m = month_list[-1]
        month_list.append(date(m.year + 1, 1, 1) if m.month == 12 else date(m.year, m.month + 1, 1))
    return month_list


def grants_by_modality_and_month(pack: Pack, months: int = 12) -> tuple[list[date], dict[str, list[int]]]:
    return registry.call(registry.STATS_GRANTS_BY_MONTH, pack, months)


def grants_by_status(pack: Pack) -> dict[str, dict[str, int]]:
    return registry.call(registry.STATS_GRANTS_BY_STATUS, pack)


def average_days_since_issue(pack: Pack) -> dict[str, float | None]:
    return registry.call(registry.STATS_DAYS_SINCE_ISSUE, pack)


def autos_by_article_and_month(pack: Pack, months: int = 12) -> tuple[list[date], dict[str, list[int]]]:
    if not registry.has(registry.STATS_AUTOS_BY_MONTH):
        return last_months(pack, months), {}
    return registry.call(registry.STATS_AUTOS_BY_MONTH, pack, months)


def average_days_protocol_to_grant(pack: Pack) -> dict[str, float | None]:
    return registry.call(registry.STATS_DAYS_TO_GRANT, pack)
