"""Reads over tariff tables: the table in force at a moment, the quote, the current tables."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from django.utils import timezone

from portal.regulation import Pack
from tariffs import rules
from tariffs.models import TariffModality, TariffSource, TariffTable

MONTHS = (
    "janeiro",
    "fevereiro",
    "março",
    "abril",
    "maio",
    "junho",
    "julho",
    "agosto",
    "setembro",
    "outubro",
    "novembro",
    "dezembro",
)


def pack_tables(pack: Pack) -> list[TariffTable]:
    """The pack's initial tables as (unsaved) model instances."""
    out = []
    for raw in pack.tariffs:
        out.append(
            TariffTable(
                municipality_id=pack.municipality_id,
                modality=raw["modality"],
                decree=raw.get("decree", ""),
                published_on=date.fromisoformat(
                    str(raw.get("published_on") or raw["effective_from"])
                ),
                effective_from=date.fromisoformat(str(raw["effective_from"])),
                structure=raw["structure"],
                components=raw.get("components", {}),
                legal_basis=raw.get("legal_basis", ""),
                is_example=bool(raw.get("example", False)),
                source=TariffSource.PACK,
            )
        )
    return out


_FINGERPRINTS: dict[int, tuple[float, str]] = {}
_FINGERPRINT_SECONDS = 5.0  # like the pack itself (portal.regulation)


def tables_fingerprint(pack: Pack) -> str:
    """Changes whenever a table is stored (tables are append-only).

    One cheap query, remembered a few seconds in the process (like the pack); publishing in
    this process forgets it at once.
    """
    import time

    from django.db.models import Count, Max

    now = time.monotonic()
    memo = _FINGERPRINTS.get(pack.municipality_id)
    if memo is not None and now - memo[0] < _FINGERPRINT_SECONDS:
        return memo[1]
    agg = TariffTable.objects.filter(municipality_id=pack.municipality_id).aggregate(
        n=Count("id"), last=Max("id")
    )
    found = f"{agg['n']}:{agg['last']}"
    _FINGERPRINTS[pack.municipality_id] = (now, found)
    return found


def forget_fingerprint(municipality_id: int) -> None:
    _FINGERPRINTS.pop(municipality_id, None)
    for key in [k for k in _TABLES if k[0] == municipality_id]:
        _TABLES.pop(key, None)


def forget_all() -> None:
    """Tests: a rolled-back test may leave a fingerprint that the next one's data repeat."""
    _FINGERPRINTS.clear()
    _TABLES.clear()


_TABLES: dict[tuple, list[TariffTable]] = {}  # one entry per municipality: its current key


def _tables_key(pack: Pack, fingerprint: str) -> tuple:
    """What the parsed tables depend on: the municipality, its pack's version (the pack's own
    tables) and the stored tables' fingerprint (a publication changes it)."""
    return (pack.municipality_id, pack.version, fingerprint)


def all_tables(pack: Pack, fingerprint: str | None = None) -> list[TariffTable]:
    """Every table of the municipality (history), newest first within each modality.

    Before the pack's tables are stored (``load_regulation`` stores them), the pack's own
    tables are used, so that the calculator answers from the first moment. The parsed list is
    kept in the process under _tables_key (no cache round trip nor unpickling per request);
    a publication changes the fingerprint, seen by every process within _FINGERPRINT_SECONDS.
    Callers only read the tables (they are append-only records).
    """
    key = _tables_key(pack, fingerprint or tables_fingerprint(pack))
    found = _TABLES.get(key)
    if found is None:
        stored = list(TariffTable.objects.filter(municipality_id=pack.municipality_id))
        stored_modalities = {t.modality for t in stored}
        tables = stored + [t for t in pack_tables(pack) if t.modality not in stored_modalities]
        found = sorted(tables, key=lambda t: (t.modality, -t.effective_from.toordinal(), -(t.pk or 0)))
        for old in [k for k in _TABLES if k[0] == key[0]]:
            _TABLES.pop(old, None)
        _TABLES[key] = found
    return list(found)


def modalities_with_tables(tables: list[TariffTable]) -> list[str]:
    order = [m.value for m in TariffModality]
    return sorted({t.modality for t in tables}, key=order.index)


def table_at(tables: list[TariffTable], modality: str, on: date) -> TariffTable | None:
    return rules.table_in_force([t for t in tables if t.modality == modality], on)


def serves(pack: Pack, modality: str) -> bool:
    """Whether the pack's laws have the service at all (bus: the collective-transport law)."""
    if modality == TariffModality.BUS:
        return pack.collective_transport is not None
    return pack.has_modality(modality)


def missing_table_message(pack: Pack, tables: list[TariffTable], modality: str, on: date) -> str:
    """Why there is no table of ``modality`` in force on ``on``, in plain words."""
    label = modality_label(modality).lower()
    closed = pack.modality_refusal(modality, on) if modality in pack.modalities else None
    if closed is not None and closed.code == "modality.decree_pending":
        return closed.message
    if not serves(pack, modality) and not any(t.modality == modality for t in tables):
        return f"A legislação de {pack.display_name} não prevê o serviço de {label}: não há tarifa."
    first = min((t.effective_from for t in tables if t.modality == modality), default=None)
    if first is None:
        return f"Ainda não há tabela de tarifas de {label} publicada."
    return (
        f"Não havia tabela de tarifas de {label} em vigor em {on:%d/%m/%Y}; "
        f"a primeira vigora desde {first:%d/%m/%Y}."
    )


def next_table(tables: list[TariffTable], modality: str, on: date) -> TariffTable | None:
    future = [t for t in tables if t.modality == modality and t.effective_from > on]
    return min(future, key=lambda t: t.effective_from) if future else None


def modality_label(modality: str) -> str:
    return dict(TariffModality.choices).get(modality, modality)


def adjustment_month(pack: Pack, modality: str) -> dict | None:
    """The yearly adjustment base month, where the pack has it (`tariff.adjustment_month`)."""
    param = pack.param("tariff.adjustment_month", modality)
    if param is None:
        return None
    month = int(param.value)
    return {"month": month, "name": MONTHS[month - 1], "legal_basis": param.legal_basis}


def student_discount(pack: Pack, table: TariffTable) -> tuple[Decimal | None, str]:
    param = pack.collective_param("fare.student_discount") if table.modality == "bus" else None
    if param is not None:
        return Decimal(str(param.value)), param.legal_basis
    raw = table.components.get("student_discount")
    return (Decimal(str(raw)) if raw not in (None, "") else None), table.legal_basis


@dataclass
class Quote:
    table: TariffTable
    result: rules.FareQuote
    at: datetime
    km: Decimal
    student_basis: str = ""

    def as_api(self) -> dict:
        return {
            "total": f"{self.result.total:.2f}",
            "currency": "BRL",
            "components": [
                {"label": line.label, "amount": f"{line.amount:.2f}"} for line in self.result.lines
            ],
            "tariff": {
                "decree": self.table.decree,
                "effective_from": self.table.effective_from.isoformat(),
                "published_on": self.table.published_on.isoformat(),
                "structure": self.table.structure,
                "is_example": self.table.is_example,
            },
            "legal_basis": self.table.legal_basis,
            "modality": self.table.modality,
            "at": self.at.isoformat(),
            "km": str(self.km),
            "flag": self.result.flag,
            "is_maximum": self.result.is_maximum,
            "notes": self.result.notes,
        }


def local_moment(pack: Pack, at: datetime | None) -> datetime:
    """``at`` (aware or naive local) in the municipality's time zone; now when absent."""
    if at is None:
        return timezone.now().astimezone(pack.tz)
    if timezone.is_naive(at):
        return at.replace(tzinfo=pack.tz)
    return at.astimezone(pack.tz)


def tariff_api(pack: Pack, table: TariffTable) -> dict:
    return {
        "modality": table.modality,
        "decree": table.decree,
        "published_on": table.published_on.isoformat(),
        "effective_from": table.effective_from.isoformat(),
        "structure": table.structure,
        "components": table.components,
        "legal_basis": table.legal_basis,
        "is_example": table.is_example,
        "adjustment_month": adjustment_month(pack, table.modality),
    }


def compute_quote(pack: Pack, tables: list[TariffTable], data: dict) -> Quote:
    """A quote from a QuoteForm's cleaned data. Raises RuleViolation naming the field."""
    from portal.exceptions import RuleViolation

    modality = data["modality"]
    moment = local_moment(pack, data.get("at"))
    if data.get("time_only") is not None:
        moment = moment.replace(
            hour=data["time_only"].hour, minute=data["time_only"].minute, second=0, microsecond=0
        )
    if not any(t.modality == modality for t in tables):
        raise RuleViolation(
            "fare.no_table",
            missing_table_message(pack, tables, modality, moment.date()),
            "",
            field="modality",
        )
    table = table_at(tables, modality, moment.date())
    if table is None:
        first = min((t for t in tables if t.modality == modality), key=lambda t: t.effective_from)
        raise RuleViolation(
            "fare.no_table_at",
            missing_table_message(pack, tables, modality, moment.date()),
            first.legal_basis,
            field="at",
        )
    discount, basis = student_discount(pack, table)
    result = rules.quote_fare(
        table.structure,
        table.components,
        km=data.get("km") or Decimal(0),
        local_dt=moment,
        legal_basis=table.legal_basis,
        waiting_minutes=data.get("waiting_minutes") or 0,
        student=bool(data.get("student")),
        zone=data.get("zone") or "urban",
        student_discount=discount,
    )
    return Quote(
        table=table,
        result=result,
        at=moment,
        km=data.get("km") or Decimal(0),
        student_basis=basis if data.get("student") and table.modality == "bus" else "",
    )


@dataclass
class LineQuote:
    """A bus fare of one line (portal.registry.BUS_FARES: line_fare_quote) shown like a table quote."""

    quote: object  # the FareQuote of the bus fares source
    at: datetime

    @property
    def line(self):
        return self.quote.line

    @property
    def result(self) -> rules.FareQuote:
        zone_label = bus_fares().zone_label(self.quote.zone)
        return rules.FareQuote(
            total=self.quote.amount,
            lines=[rules.FareLine(label, amount) for label, amount in self.quote.components()],
            notes=[f"Linha {self.quote.line.code} — {self.quote.line.name}, trecho {zone_label}."],
        )

    @property
    def table(self) -> dict:
        fare = self.quote.fare
        return {"decree": fare.decree, "effective_from": fare.effective_from,
                "legal_basis": self.quote.legal_basis, "is_example": False}

    student_basis = ""

    def as_api(self) -> dict:
        return self.quote.as_quote_api()


def line_quote(pack: Pack, data: dict) -> LineQuote:
    """The quote of a QuoteForm with a bus line: the line's fare by decree (art. 16–17)."""
    moment = local_moment(pack, data.get("at"))
    if data.get("time_only") is not None:
        moment = moment.replace(hour=data["time_only"].hour, minute=data["time_only"].minute,
                                second=0, microsecond=0)
    quote = bus_fares().line_fare_quote(
        data["line"], zone=data.get("zone") or None, student=bool(data.get("student")), at=moment.date()
    )
    return LineQuote(quote=quote, at=moment)


def bus_fares():
    """The bus fares of collective transport (registered by the app that has the concessions
    in portal.registry), or None when no app provides them."""
    from portal import registry

    return registry.call(registry.BUS_FARES) if registry.has(registry.BUS_FARES) else None


def bus_enabled() -> bool:
    source = bus_fares()
    return source is not None and source.transit_enabled()
