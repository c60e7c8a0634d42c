"""Fare rules: pure functions over a tariff table's components (no database).

Structures (portal/packs/SCHEMA.md, "Tariff components by structure"):
- ``base_plus_km``: VC = TB + KMP × VKM (e.g. Lei 3.703/2022, art. 15 and Anexo I);
- ``flags``: bandeirada + bandeira 1 or 2 per km by hour, weekday and special dates
  (e.g. PL 015/2025, art. 1, §2, III; art. 3, VII a IX);
- ``max_fare_bands``: maximum fare by distance band (mototáxi, e.g. PL 015/2025, art. 3, XVII);
- ``units``: tariff in Unidades Taximétricas converted to reais (e.g. Lei 724/2008, art. 19 a 21);
- ``zones``: bus fare per zone (urban / rural) with the student fare
  (e.g. Lei 3.447/2017, art. 4, parágrafo único; art. 16).
The legal basis shown to people comes from each table in the pack.

Money is Decimal, rounded half up to the cent. Each component is rounded and the total is
the sum of the components shown, so that what the passenger reads adds up.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any, Protocol, TypeVar

from portal.exceptions import RuleViolation
from portal.money import to_cents
from portal.numbers import br_number, brl

MAX_KM = Decimal("1000")
MAX_WAITING_MINUTES = 24 * 60
STRUCTURES = ("base_plus_km", "flags", "max_fare_bands", "units", "zones")
REQUIRED_COMPONENTS: dict[str, tuple[str, ...]] = {
    "base_plus_km": ("base", "per_km"),
    "flags": ("base", "flag1_per_km", "flag2_per_km", "flag2_from", "flag2_until"),
    "max_fare_bands": ("bands",),
    "units": ("unit_name", "unit_value", "base_units", "per_km_units"),
    "zones": ("urban",),
}
MONEY_COMPONENTS: dict[str, tuple[str, ...]] = {
    "base_plus_km": ("base", "per_km", "per_hour_waiting"),
    "flags": ("base", "flag1_per_km", "flag2_per_km", "per_hour_waiting"),
    "max_fare_bands": (),
    "units": ("unit_value", "base_units", "per_km_units", "per_hour_waiting_units"),
    "zones": ("urban", "rural"),
}


money = to_cents  # round half up to the cent (portal.money)


def dec(value: Any) -> Decimal:
    try:
        return Decimal(str(value))
    except (InvalidOperation, ValueError) as exc:
        raise ValueError(f"valor numérico inválido: {value!r}") from exc


def br_km(km: Decimal) -> str:
    text = br_number(km, 3).rstrip("0").rstrip(",")
    return text or "0"


# --- which table is in force ------------------------------------------------------------
class _Dated(Protocol):
    effective_from: date


T = TypeVar("T", bound=_Dated)


def table_in_force(tables: Iterable[T], on: date) -> T | None:
    """The table with the latest effective date not after ``on`` (a future table is not used)."""
    best: T | None = None
    for table in tables:
        if table.effective_from <= on and (
            best is None or table.effective_from > best.effective_from
        ):
            best = table
    return best


def effective_date_violation(
    *,
    modality: str,
    published_on: date,
    effective_from: date,
    legal_basis: str,
    min_notice_days: int | None = None,
    notice_basis: str = "",
) -> RuleViolation | None:
    """A table takes effect only after publication; bus fares only after the minimum notice.

    Bus: e.g. Lei 3.447/2017, art. 17 — a change in fares takes effect only after
    being announced at least ``min_notice_days`` days before (from the pack).
    """
    if effective_from < published_on:
        return RuleViolation(
            "tariff.effective_before_publication",
            "A data de vigência não pode ser anterior à data de publicação do decreto.",
            legal_basis,
            field="effective_from",
        )
    if modality == "bus" and min_notice_days:
        earliest = published_on + timedelta(days=int(min_notice_days))
        if effective_from < earliest:
            return RuleViolation(
                "tariff.bus_min_notice",
                f"A nova tarifa de ônibus só pode vigorar depois de anunciada com {int(min_notice_days)} dias "
                f"de antecedência: a partir de {earliest:%d/%m/%Y}.",
                notice_basis,
                field="effective_from",
            )
    return None


# --- validation of a table's components ---------------------------------------------------
def _hhmm(value: Any) -> time:
    text = str(value)
    try:
        hour, minute = text.split(":")
        return time(int(hour), int(minute))
    except (ValueError, TypeError) as exc:
        raise ValueError(f"horário inválido: {text!r} (use HH:MM)") from exc


def component_errors(structure: str, components: dict) -> list[str]:
    """Plain-language problems with a table's components (empty when it is valid)."""
    if structure not in STRUCTURES:
        return [f"Estrutura desconhecida: {structure!r}."]
    if not isinstance(components, dict):
        return ["Os componentes devem ser um objeto (chave: valor)."]
    errors = [
        f"Falta o componente {key!r}."
        for key in REQUIRED_COMPONENTS[structure]
        if key not in components
    ]
    for key in MONEY_COMPONENTS[structure]:
        if key in components:
            try:
                if dec(components[key]) < 0:
                    errors.append(f"O componente {key!r} não pode ser negativo.")
            except ValueError:
                errors.append(f'O componente {key!r} deve ser um número (ex.: "4.50").')
    if structure == "flags":
        for key in ("flag2_from", "flag2_until"):
            if key in components:
                try:
                    _hhmm(components[key])
                except ValueError:
                    errors.append(f"O componente {key!r} deve ser um horário HH:MM.")
        for day in components.get("flag2_weekdays", []) or []:
            if not isinstance(day, int) or not 0 <= day <= 6:
                errors.append("flag2_weekdays: use 0 (segunda) a 6 (domingo).")
        for md in components.get("flag2_dates", []) or []:
            try:
                month, day = str(md).split("-")
                date(2024, int(month), int(day))
            except ValueError:
                errors.append(f"flag2_dates: data inválida {md!r} (use MM-DD).")
    if structure == "max_fare_bands":
        bands = components.get("bands")
        if "bands" in components and (not isinstance(bands, list) or not bands):
            errors.append("Informe ao menos uma faixa em 'bands'.")
        elif isinstance(bands, list):
            last = Decimal("-1")
            for band in bands:
                try:
                    up_to, fare = dec(band["up_to_km"]), dec(band["max_fare"])
                except (KeyError, TypeError, ValueError):
                    errors.append("Cada faixa precisa de up_to_km e max_fare numéricos.")
                    break
                if up_to <= last or fare < 0:
                    errors.append(
                        "As faixas devem estar em ordem crescente de distância, com tarifas não negativas."
                    )
                    break
                last = up_to
    if structure == "zones" and "student_discount" in components:
        try:
            discount = dec(components["student_discount"])
            if not Decimal(0) <= discount <= Decimal(1):
                errors.append('student_discount deve estar entre 0 e 1 (ex.: "0.50").')
        except ValueError:
            errors.append("student_discount deve ser um número entre 0 e 1.")
    return errors


# --- flags --------------------------------------------------------------------------------
def flag_at(components: dict, local_dt: datetime) -> tuple[int, str]:
    """Bandeira 1 or 2 at a local date and time, with the reason in plain words."""
    if local_dt.strftime("%m-%d") in {str(d) for d in components.get("flag2_dates", []) or []}:
        return 2, "data especial"
    if local_dt.weekday() in set(components.get("flag2_weekdays", []) or []):
        return 2, "dia da semana com bandeira 2"
    start, end = _hhmm(components["flag2_from"]), _hhmm(components["flag2_until"])
    now = local_dt.time().replace(tzinfo=None)
    if start > end:  # crosses midnight: 21:00 → 06:00
        night = now >= start or now < end
    else:
        night = start <= now < end
    if night:
        return 2, f"horário das {start:%H:%M} às {end:%H:%M}"
    return 1, f"horário das {end:%H:%M} às {start:%H:%M}"


# --- the quote ----------------------------------------------------------------------------
@dataclass(frozen=True)
class FareLine:
    label: str
    amount: Decimal


@dataclass
class FareQuote:
    total: Decimal
    lines: list[FareLine]
    notes: list[str] = field(default_factory=list)
    flag: int | None = None
    is_maximum: bool = False


def _waiting(per_hour: Decimal, minutes: int) -> Decimal:
    return per_hour * Decimal(minutes) / Decimal(60)


def quote_fare(
    structure: str,
    components: dict,
    *,
    km: Decimal,
    local_dt: datetime,
    legal_basis: str = "",
    waiting_minutes: int = 0,
    student: bool = False,
    zone: str = "urban",
    student_discount: Decimal | None = None,
) -> FareQuote:
    """The fare of a trip under one table. ``local_dt`` is in the municipality's time zone."""
    km = Decimal(km)
    lines: list[FareLine] = []
    notes: list[str] = []
    flag: int | None = None
    is_maximum = False
    waiting_minutes = int(waiting_minutes or 0)

    def add(label: str, amount: Decimal) -> None:
        lines.append(FareLine(label, money(amount)))

    def no_waiting() -> None:
        if waiting_minutes:
            notes.append("Esta tabela não fixa valor para o tempo de espera; ele não foi somado.")

    if structure == "base_plus_km":
        per_km = dec(components["per_km"])
        add("Tarifa básica (TB)", dec(components["base"]))
        add(f"Quilômetros rodados: {br_km(km)} km × {brl(per_km)}", km * per_km)
        if components.get("per_hour_waiting") not in (None, ""):
            per_hour = dec(components["per_hour_waiting"])
            if waiting_minutes:
                add(
                    f"Tempo de espera: {waiting_minutes} min ({brl(per_hour)} por hora)",
                    _waiting(per_hour, waiting_minutes),
                )
        else:
            no_waiting()
    elif structure == "flags":
        flag, reason = flag_at(components, local_dt)
        per_km = dec(components["flag1_per_km" if flag == 1 else "flag2_per_km"])
        add("Bandeirada", dec(components["base"]))
        add(f"Bandeira {flag} ({reason}): {br_km(km)} km × {brl(per_km)}", km * per_km)
        if components.get("per_hour_waiting") not in (None, ""):
            per_hour = dec(components["per_hour_waiting"])
            if waiting_minutes:
                add(
                    f"Tempo de espera: {waiting_minutes} min ({brl(per_hour)} por hora)",
                    _waiting(per_hour, waiting_minutes),
                )
        else:
            no_waiting()
    elif structure == "max_fare_bands":
        bands = sorted(components["bands"], key=lambda b: dec(b["up_to_km"]))
        band = next((b for b in bands if km <= dec(b["up_to_km"])), None)
        if band is None:
            last = dec(bands[-1]["up_to_km"])
            raise RuleViolation(
                "fare.beyond_max_band",
                f"A tabela de tarifas máximas vai até {br_km(last)} km; para distâncias maiores não há valor fixado.",
                legal_basis,
                field="km",
            )
        add(
            f"Tarifa máxima para corridas de até {br_km(dec(band['up_to_km']))} km",
            dec(band["max_fare"]),
        )
        is_maximum = True
        notes.append("Este é o valor máximo que pode ser cobrado; o mototaxista pode cobrar menos.")
        no_waiting()
    elif structure == "units":
        unit = str(components.get("unit_name") or "UT")
        unit_value = dec(components["unit_value"])
        base_units = dec(components["base_units"])
        per_km_units = dec(components["per_km_units"])
        add(f"Bandeirada: {br_km(base_units)} {unit} × {brl(unit_value)}", base_units * unit_value)
        km_units = km * per_km_units
        add(
            f"Quilômetros rodados: {br_km(km)} km × {br_km(per_km_units)} {unit} = {br_km(km_units)} {unit}",
            km_units * unit_value,
        )
        if components.get("per_hour_waiting_units") not in (None, ""):
            per_hour_units = dec(components["per_hour_waiting_units"])
            if waiting_minutes:
                wait_units = _waiting(per_hour_units, waiting_minutes)
                add(
                    f"Tempo de espera: {waiting_minutes} min ({br_km(per_hour_units)} {unit} por hora)",
                    wait_units * unit_value,
                )
        else:
            no_waiting()
        notes.append(f"Valor da unidade ({unit}): {brl(unit_value)}.")
    elif structure == "zones":
        zone = zone if zone in ("urban", "rural") else "urban"
        if zone == "rural" and components.get("rural") in (None, ""):
            zone = "urban"
        fare = dec(components[zone])
        add("Passagem — linha urbana" if zone == "urban" else "Passagem — linha rural", fare)
        if student:
            discount = (
                student_discount
                if student_discount is not None
                else dec(components.get("student_discount", "0"))
            )
            if discount:
                # The student's fare is the share of the fare (e.g. 50 %, Lei 3.447/2017, art. 4,
                # parágrafo único), rounded half up; the discount shown is what it takes off.
                share = int((discount * 100).to_integral_value())
                paid = money(fare * (Decimal(1) - discount))
                add(f"Desconto de estudante ({share} %)", paid - money(fare))
        no_waiting()
    else:
        raise ValueError(f"estrutura de tarifa desconhecida: {structure}")
    total = sum((line.amount for line in lines), Decimal("0.00"))
    return FareQuote(total=money(total), lines=lines, notes=notes, flag=flag, is_maximum=is_maximum)


def table_rows(structure: str, components: dict) -> list[tuple[str, str]]:
    """(item, value) rows of a table for display and the printed table inside the vehicle."""
    c = components
    if structure == "base_plus_km":
        rows = [
            ("Tarifa básica (TB)", brl(dec(c["base"]))),
            ("Valor do quilômetro rodado (VKM)", brl(dec(c["per_km"]))),
        ]
        if c.get("per_hour_waiting"):
            rows.append(("Hora de espera", brl(dec(c["per_hour_waiting"]))))
        return rows
    if structure == "flags":
        rows = [
            ("Bandeirada", brl(dec(c["base"]))),
            (
                f"Bandeira 1 — quilômetro ({c['flag2_until']} às {c['flag2_from']})",
                brl(dec(c["flag1_per_km"])),
            ),
            (
                f"Bandeira 2 — quilômetro ({c['flag2_from']} às {c['flag2_until']}{_flag2_extra(c)})",
                brl(dec(c["flag2_per_km"])),
            ),
        ]
        if c.get("per_hour_waiting"):
            rows.append(("Hora de espera", brl(dec(c["per_hour_waiting"]))))
        return rows
    if structure == "max_fare_bands":
        rows, previous = [], Decimal(0)
        for band in sorted(c["bands"], key=lambda b: dec(b["up_to_km"])):
            up_to = dec(band["up_to_km"])
            label = (
                f"Até {br_km(up_to)} km"
                if previous == 0
                else f"Mais de {br_km(previous)} até {br_km(up_to)} km"
            )
            rows.append((f"{label} (tarifa máxima)", brl(dec(band["max_fare"]))))
            previous = up_to
        return rows
    if structure == "units":
        unit, value = c.get("unit_name", "UT"), dec(c["unit_value"])
        rows = [
            (f"Valor da unidade ({unit})", brl(value)),
            (
                f"Bandeirada ({br_km(dec(c['base_units']))} {unit})",
                brl(dec(c["base_units"]) * value),
            ),
            (
                f"Quilômetro rodado ({br_km(dec(c['per_km_units']))} {unit})",
                brl(dec(c["per_km_units"]) * value),
            ),
        ]
        if c.get("per_hour_waiting_units"):
            units = dec(c["per_hour_waiting_units"])
            rows.append((f"Hora de espera ({br_km(units)} {unit})", brl(units * value)))
        return rows
    if structure == "zones":
        rows = [("Passagem — linha urbana", brl(dec(c["urban"])))]
        if c.get("rural"):
            rows.append(("Passagem — linha rural", brl(dec(c["rural"]))))
        if c.get("student_discount"):
            share = int((dec(c["student_discount"]) * 100).to_integral_value())
            rows.append((f"Estudante (desconto de {share} %)", f"paga {100 - share} % da passagem"))
        return rows
    return []


_WEEKDAYS_PLURAL = (
    "segundas-feiras",
    "terças-feiras",
    "quartas-feiras",
    "quintas-feiras",
    "sextas-feiras",
    "sábados",
    "domingos",
)


def _flag2_extra(c: dict) -> str:
    parts = []
    days: Sequence[int] = c.get("flag2_weekdays") or []
    if days:
        parts.append("o dia todo aos " + ", ".join(_WEEKDAYS_PLURAL[d] for d in days))
    dates = c.get("flag2_dates") or []
    if dates:
        parts.append("e em " + ", ".join(f"{str(d)[3:5]}/{str(d)[0:2]}" for d in dates))
    return ("; " + " ".join(parts)) if parts else ""
