"""Pure functions applying the enforcement rules of the pack. No database.

Each function works on plain values (dates, Decimals, dicts of the pack's catalogue) and
cites the articles it applies. The pack keys used are documented in portal/packs/SCHEMA.md:
``defense.days``, ``appeal.days``, ``appeal.second_instance_days``,
``appeal.second_instance_codes``, ``deadlines.weekend_extends``, ``recidivism.window_days``,
``recidivism.mode``, ``cassation.bar_months``, ``[[penalty_codes]]`` and ``[[infractions]]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal, localcontext

from portal.exceptions import RuleViolation
from portal.money import to_cents

# Penalty kinds, in the order they are shown.
KIND_LABELS = {
    "warning": "advertência por escrito",
    "fine": "multa",
    "suspension": "suspensão",
    "suspension_until_regularised": "suspensão até a regularização",
    "new_inspection": "nova vistoria",
    "seizure": "apreensão do veículo",
    "impediment": "impedimento para a prestação do serviço",
    "cassation": "cassação da autorização",
    "cancellation": "cancelamento da permissão",
    "revocation_process": "abertura de processo de revogação",
}
KIND_ORDER = list(KIND_LABELS)
# Kinds that end the grant (cassação; Código E of a coded pack).
ENDING_KINDS = {"cassation", "cancellation"}


money = to_cents  # Decimal rounded half up to the cent (portal.money)


# --- catalogue ----------------------------------------------------------------------
def catalogue_entry(item: dict, penalty_codes: dict[str, dict]) -> dict:
    """One infraction of the pack as the catalogue shows it: code, description, basis and
    the list of penalties it carries.

    Coded packs (Lei 724/2008 art. 22–23) list ``penalty_codes``; each code of the infraction
    applies cumulatively ("Penalidade: B-1, C-2 e D"). Uncoded packs describe the
    penalties in a table (Lei 3.703/2022 art. 19–22; PL 015/2025 art. 19 and art. 4, §1). A fine left
    to decree without a value in the pack is listed with ``value_set = False``.
    """
    penalties: list[dict] = []
    basis = item.get("legal_basis", "")
    if item.get("penalty_codes"):
        for code in item["penalty_codes"]:
            spec = penalty_codes.get(code)
            if spec is None:
                continue
            entry = {"kind": spec["kind"], "code": code, "legal_basis": spec.get("legal_basis", basis)}
            if spec["kind"] == "fine":
                entry["fine_units"] = spec.get("fine_units")
                entry["value_set"] = spec.get("fine_units") is not None
            if spec["kind"] == "suspension":
                entry["suspension_days"] = int(spec.get("suspension_days") or 0)
            penalties.append(entry)
    else:
        raw = item.get("penalties") or {}
        if raw.get("warning"):
            penalties.append({"kind": "warning", "legal_basis": basis})
        has_fine = any(k in raw for k in ("fine_units", "fine_amount", "fine_example"))
        if has_fine:
            entry = {"kind": "fine", "legal_basis": basis, "example": bool(raw.get("fine_example"))}
            if raw.get("fine_units") is not None:
                entry["fine_units"] = raw["fine_units"]
            if raw.get("fine_amount") is not None:
                entry["fine_amount"] = str(money(raw["fine_amount"]))
            entry["value_set"] = "fine_units" in entry or "fine_amount" in entry
            penalties.append(entry)
        if int(raw.get("suspension_days") or 0) > 0:
            penalties.append({"kind": "suspension", "suspension_days": int(raw["suspension_days"]),
                              "legal_basis": basis})
        for flag, kind in (("until_regularised", "suspension_until_regularised"),
                           ("new_inspection", "new_inspection"), ("seizure", "seizure"),
                           ("cassation", "cassation"), ("revocation_process", "revocation_process")):
            if raw.get(flag):
                penalties.append({"kind": kind, "legal_basis": basis})
    for p in penalties:
        p["label"] = KIND_LABELS.get(p["kind"], p["kind"])
    return {
        "code": item["code"],
        "description": item.get("description", ""),
        "legal_basis": basis,
        "modalities": item.get("modalities") or [],
        "penalties": penalties,
    }


# --- deadlines ----------------------------------------------------------------------
def deadline(start: date, days: int, *, weekend_extends: bool = False) -> date:
    """Last day of a period of ``days`` calendar days counted from the day after ``start``.

    "15 dias corridos contados da notificação" (PL 015/2025 art. 22; Lei 3.703/2022 art. 18, §4):
    notified on 02/03 → the 15th day is 17/03. With ``deadlines.weekend_extends`` a last
    day on Saturday or Sunday moves to the next Monday; without it the period still ends
    on that day (PRODUCT.md, interpretations).
    """
    if days < 0:
        raise ValueError("days must be >= 0")
    last = start + timedelta(days=days)
    if weekend_extends:
        while last.weekday() >= 5:
            last += timedelta(days=1)
    return last


def check_within_deadline(on: date, last_day: date | None, *, what: str, legal_basis: str, code: str) -> None:
    """Refuse (409) an act filed after its last day; the last day itself is accepted."""
    if last_day is None:
        return
    if on > last_day:
        raise RuleViolation(
            code,
            f"O prazo para {what} terminou em {last_day:%d/%m/%Y}; o pedido de {on:%d/%m/%Y} é intempestivo.",
            legal_basis,
            field="text",
            conflict=True,
        )


# --- recidivism ---------------------------------------------------------------------
@dataclass(frozen=True)
class PriorFine:
    """An earlier auto of the same holder, judged upheld with a fine."""

    ref: str  # number of the auto
    occurred_on: date
    multiplier: int
    amount: Decimal | None = None


def recidivism(
    occurred_on: date, priors: list[PriorFine], *, window_days: int | None, mode: str | None
) -> tuple[int, list[PriorFine]]:
    """(multiplier, the earlier autos that make it a recidivism).

    An earlier infraction of the same holder, upheld with a fine, that occurred within
    ``window_days`` before this one (inclusive: day 30 counts, day 31 does not) makes this
    one a recidivism (PRODUCT.md, interpretations).
    - ``double_once`` (Lei 3.703/2022 art. 23): the fine is doubled once, ×2.
    - ``progressive`` (Lei 724/2008 art. 26 and parágrafo único): each recidivism doubles the
      last fine applied: ×2, then ×4, …
    The caller passes only upheld autos with a fine of the same holder (dismissed or
    cancelled autos and other holders' autos never reach this function).
    """
    if not window_days or not mode:
        return 1, []
    within = sorted(
        (p for p in priors if 0 <= (occurred_on - p.occurred_on).days <= int(window_days)),
        key=lambda p: (p.occurred_on, p.ref),
    )
    if not within:
        return 1, []
    if mode == "double_once":
        return 2, within
    if mode == "progressive":
        last = within[-1]
        return 2 * max(1, int(last.multiplier)), within
    raise ValueError(f"recidivism.mode desconhecido: {mode!r}")


# --- penalty ------------------------------------------------------------------------
def fine_base_amount(entry: dict, fine: dict, unit_value: Decimal | None, override: Decimal | None = None) -> tuple[Decimal | None, Decimal | None]:
    """(fine_units, base amount in reais) of one fine of the catalogue; None when unset."""
    if override is not None:
        return None, money(override)
    if fine.get("fine_amount") is not None:
        return None, money(fine["fine_amount"])
    units = fine.get("fine_units")
    if units is not None and unit_value is not None:
        return Decimal(str(units)), money(Decimal(str(units)) * unit_value)
    return (Decimal(str(units)) if units is not None else None), None


def compute_penalty(
    entries: list[dict],
    *,
    unit_value: Decimal | None,
    unit_name: str = "",
    multiplier: int = 1,
    recidivism_refs: list[str] | None = None,
    recidivism_basis: str = "",
    fine_overrides: dict[str, Decimal] | None = None,
) -> dict:
    """The penalty of an upheld auto: the catalogue penalties of each infraction in it,
    applied cumulatively (Lei 724/2008 art. 25, §4: simultaneous infractions add up), with the
    recidivism multiplier on the fine (Lei 3.703/2022 art. 23; Lei 724/2008 art. 26).

    Raises RuleViolation naming the article when a fine carried by the law has no value
    set (the law leaves it to a decree and the pack has none): the julgador cannot impose it.
    """
    kinds: set[str] = set()
    fine_units = Decimal(0)
    any_units = False
    base = Decimal(0)
    any_fine = False
    suspension_days = 0
    codes: list[str] = []
    bases: list[str] = []
    for entry in entries:
        bases.append(entry["legal_basis"])
        for p in entry["penalties"]:
            kinds.add(p["kind"])
            if p.get("code"):
                codes.append(p["code"])
            if p["kind"] == "fine":
                override = (fine_overrides or {}).get(entry["code"])
                units, amount = fine_base_amount(entry, p, unit_value, override)
                if amount is None:
                    raise RuleViolation(
                        "fine_value_not_set",
                        f"A multa da infração {entry['code']} não tem valor definido (a lei remete a "
                        f"regulamento e o valor ainda não foi fixado): não pode ser aplicada — {p['legal_basis']}.",
                        p["legal_basis"],
                        field="upheld",
                        conflict=True,
                    )
                any_fine = True
                base += amount
                if units is not None:
                    fine_units += units
                    any_units = True
            elif p["kind"] == "suspension":
                suspension_days += int(p.get("suspension_days") or 0)
    multiplier = multiplier if any_fine else 1
    with localcontext() as ctx:
        ctx.prec = 80
        amount = money(base * multiplier) if any_fine else None
    return {
        "kinds": [k for k in KIND_ORDER if k in kinds],
        "labels": [KIND_LABELS[k] for k in KIND_ORDER if k in kinds],
        "codes": codes,
        "fine_units": (_number(fine_units) if any_units else None),
        "fiscal_unit": unit_name if any_units else None,
        "unit_value": (str(money(unit_value)) if any_units and unit_value is not None else None),
        "base_amount": str(money(base)) if any_fine else None,
        "amount": str(amount) if amount is not None else None,
        "recidivism": bool(recidivism_refs) and any_fine,
        "recidivism_refs": list(recidivism_refs or []) if any_fine else [],
        "recidivism_basis": recidivism_basis if recidivism_refs and any_fine else "",
        "multiplier": multiplier,
        "suspension_days": suspension_days,
        "legal_basis": bases,
    }


def _number(value: Decimal) -> int | float:
    """Units as a JSON number: 2, not "2" (fractional units stay fractional)."""
    return int(value) if value == value.to_integral_value() else float(value)


def suspension_last_day(start: date, days: int) -> date:
    """Last day of a suspension of ``days`` days starting on ``start`` (Lei 724/2008 art. 22, III)."""
    return start + timedelta(days=max(days, 1) - 1)


def next_suspension_start(today: date, serving_until: date | None) -> date:
    """First day of a suspension that becomes final on ``today``: at once, or the day after a
    suspension still being served ends — penalties add up (Lei 724/2008 art. 25, §4)."""
    if serving_until is not None and serving_until >= today:
        return serving_until + timedelta(days=1)
    return today


def second_instance_allowed(penalty_codes: list[str], allowed_codes: list[str] | None) -> bool:
    """A further appeal to the Prefeito for penalties of groups D and E (Lei 724/2008 art. 25, §2)."""
    return bool(allowed_codes) and any(code in allowed_codes for code in penalty_codes)



def appeal_deadline(*, decided_on: date, notice_on: date | None, days: int, counted_from, weekend_extends: bool) -> date:
    """Last day to appeal: ``days`` counted from the decision, or — where the law counts the
    appeal period from the ciência of the notice of the autuação (``appeal.counted_from =
    "notice"``) — from that ciência, even when the decision comes later (then the period may
    already be over on the day of the decision)."""
    start = notice_on if (counted_from is not None and counted_from.value == "notice" and notice_on) else decided_on
    return deadline(start, days, weekend_extends=weekend_extends)
