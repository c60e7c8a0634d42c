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


WEEKDAY_NAMES = ("segunda-feira", "terça-feira", "quarta-feira", "quinta-feira", "sexta-feira", "sábado", "domingo")
NEXT_BUSINESS_DAY_BASIS = "Lei 9.784/1999, art. 66, §1º"
_HOLIDAY_CACHE: dict[tuple[str, int], dict] = {}


def national_and_state_holidays(uf: str, year: int) -> dict:
    """National and state holidays of a year (the ``holidays`` package), {date: name}."""
    key = (uf or "", year)
    if key not in _HOLIDAY_CACHE:
        import holidays as holidays_lib

        # a state code the library does not know: national days only
        known = uf in holidays_lib.country_holidays("BR").subdivisions
        table = holidays_lib.country_holidays("BR", subdiv=uf if known else None, years=year, language="pt_BR")
        _HOLIDAY_CACHE[key] = dict(table.items())
    return _HOLIDAY_CACHE[key]


def non_business_reason(day: date, *, uf: str = "", municipal: list[dict] | None = None) -> str | None:
    """Why ``day`` has no office hours (weekend, national or state holiday, municipal holiday of
    the pack — ``{"date": "MM-DD" | "YYYY-MM-DD", "name"}``), or None for a business day."""
    if day.weekday() >= 5:
        return WEEKDAY_NAMES[day.weekday()]
    name = national_and_state_holidays(uf, day.year).get(day)
    if name:
        return f"feriado: {name}"
    for item in municipal or ():
        raw = str(item.get("date", ""))
        if raw in (day.isoformat(), f"{day:%m-%d}"):
            return f"feriado municipal: {item.get('name', '')}".rstrip(": ")
    return None


def counted_deadline(start: date, days: int, *, next_business_day: bool, uf: str = "",
                     municipal: list[dict] | None = None, start_label: str = "ciência",
                     days_basis: str = "", extension_basis: str = NEXT_BUSINESS_DAY_BASIS) -> tuple[date, str]:
    """(last day, how it was counted) of a period of ``days`` calendar days from the day after
    ``start`` — "15 dias corridos contados da notificação" (PL 015/2025 art. 22; Lei 3.703/2022
    art. 18, §4) — moved to the next business day when it ends on a day without office hours
    (Lei 9.784/1999, art. 66, §1º, where the municipal law is silent; pack switch
    ``deadlines.next_business_day``), with national, state and municipal holidays."""
    last = deadline(start, days)
    note = (f"{days} dias corridos contados do dia seguinte à {start_label} ({start:%d/%m/%Y})"
            + (f" — {days_basis}" if days_basis else "") + f"; último dia {last:%d/%m/%Y}")
    if next_business_day:
        moved = []
        while (why := non_business_reason(last, uf=uf, municipal=municipal)) is not None:
            moved.append(f"{last:%d/%m/%Y} ({why})")
            last += timedelta(days=1)
        if moved:
            note += (f", sem expediente: {', '.join(moved)}; prorrogado para o primeiro dia útil seguinte, "
                     f"{last:%d/%m/%Y} ({extension_basis})")
    return last, note + "."


def judgement_blocked(today: date, *, defense_deadline: date | None, defense_filed: bool, waived: bool,
                      legal_basis: str) -> RuleViolation | None:
    """No judgement while the defense period runs (Lei 3.703/2022 art. 18 and §4; PL 015/2025
    art. 22; Constituição art. 5º, LV): refused until the day after its last day, unless a
    defense was filed or the holder waived the period in writing."""
    if defense_deadline is None or defense_filed or waived or today > defense_deadline:
        return None
    return RuleViolation(
        "defense_period_running",
        f"O prazo da defesa prévia corre até {defense_deadline:%d/%m/%Y}: o auto só pode ser julgado a partir de "
        f"{defense_deadline + timedelta(days=1):%d/%m/%Y}, salvo defesa apresentada ou renúncia escrita ao prazo "
        f"({legal_basis}).",
        legal_basis, field="upheld", conflict=True,
    )


def same_judge_violation(actor_id: int, earlier_judges: list[int], legal_basis: str) -> RuleViolation | None:
    """Two instances, two people: whoever decided an earlier instance of the auto does not decide
    the appeal (Lei 3.703/2022 art. 18, §6; PL 015/2025 art. 25; Lei 724/2008 art. 25, §§1º–2º;
    Lei 9.784/1999 art. 18, I)."""
    if actor_id in earlier_judges:
        return RuleViolation(
            "same_judge_both_instances",
            "Quem decidiu uma instância deste auto não pode julgar o recurso contra a decisão: o recurso é "
            f"decidido por outra autoridade ({legal_basis}).",
            legal_basis, field="granted", conflict=True,
        )
    return None


def appeal_authority_key(instance: int) -> str:
    """The pack key that says whether a designated authority decides the appeal of ``instance``
    (the first appeal and the ex officio review: 1; a further appeal, e.g. to the Prefeito under
    Lei 724/2008 art. 25, §2: 2)."""
    return "appeal.designated_authority" if instance <= 1 else "appeal.second_instance_designated_authority"


def appeal_decider_violation(*, designated: bool, holds_authority: bool, is_judge: bool,
                             legal_basis: str) -> RuleViolation | None:
    """Who decides an appeal. Where the municipality designates the appeal authority (the pack's
    ``appeal.designated_authority``; the law or the municipality's act is ``legal_basis``), only the
    holders of the "Autoridade recursal" profile in that municipality — a julgador without it is
    refused; elsewhere a julgador (Lei 3.703/2022 art. 18, §6; PL 015/2025 art. 25; Lei 724/2008
    art. 25, §§1º–2º). The two-people rule is checked apart (``same_judge_violation``)."""
    if designated and not holds_authority:
        return RuleViolation(
            "not_appeal_authority",
            "O recurso é decidido pela autoridade recursal designada pelo município (perfil “Autoridade "
            f"recursal” neste município) — {legal_basis}.",
            legal_basis, field="granted", conflict=True,
        )
    if not designated and not is_judge:
        return RuleViolation(
            "not_appeal_authority",
            "Este município não designou autoridade recursal: o recurso é decidido por um julgador (perfil "
            f"“Julgador” neste município) — {legal_basis}.",
            legal_basis, field="granted", conflict=True,
        )
    return None


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
    """An earlier auto of the same holder, judged upheld (with a fine, or any penalty)."""

    ref: str  # number of the auto
    occurred_on: date
    multiplier: int
    amount: Decimal | None = None
    has_fine: bool = True


def recidivism(
    occurred_on: date, priors: list[PriorFine], *, window_days: int | None, mode: str | None,
    counted_from: str | None = None, counts: str | None = None,
) -> tuple[int, list[PriorFine]]:
    """(multiplier, the earlier autos that make it a recidivism).

    - ``recidivism.counted_from = "first_fine"`` (Lei 3.703/2022 art. 23: "o período de 30 dias a
      contar da data da primeira multa"): the window is anchored at a first fine — an earlier fine
      that was not itself a recidivism — and does not slide from one doubled fine to the next; its
      date is the date of the infraction that fine punished (PRODUCT.md, interpretations). Otherwise
      (Lei 724/2008 art. 26, parágrafo único: "a prática de mais de uma infração no período de 90
      dias") any earlier infraction within the window counts.
    - ``recidivism.counts = "any_penalty"`` (Lei 724/2008 art. 26): earlier autos count with or
      without fine; otherwise only autos punished with a fine (Lei 3.703/2022 art. 23: "as multas").
    - ``double_once`` (art. 23): the fine is doubled once, ×2. ``progressive`` (art. 26: "sempre em
      dobro daquela anteriormente aplicada"): twice the multiplier of the last penalty, ×2, ×4, …
    Window inclusive: day 30 counts, day 31 does not. The caller passes only upheld autos of the
    same holder (annulled or cancelled autos never reach this function).
    """
    if not window_days or not mode:
        return 1, []
    eligible = [p for p in priors if p.has_fine or counts == "any_penalty"]
    if counted_from == "first_fine":
        eligible = [p for p in eligible if int(p.multiplier) <= 1]
    within = sorted(
        (p for p in eligible if 0 <= (occurred_on - p.occurred_on).days <= int(window_days)),
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
def fine_base_amount(entry: dict, fine: dict, unit_value: Decimal | None, override: Decimal | None = None,
                     *, unit_is_example: bool = False) -> tuple[Decimal | None, Decimal | None]:
    """(fine_units, base amount in reais) of one fine of the catalogue; amount None when the
    value is unset or rests on an example value (no legal effect until a regulation fixes it)."""
    if override is not None:
        return None, money(override)
    if fine.get("example"):
        units = fine.get("fine_units")
        return (Decimal(str(units)) if units is not None else None), None
    if fine.get("fine_amount") is not None:
        return None, money(fine["fine_amount"])
    units = fine.get("fine_units")
    if units is not None and unit_value is not None and not unit_is_example:
        return Decimal(str(units)), money(Decimal(str(units)) * unit_value)
    return (Decimal(str(units)) if units is not None else None), None


def missing_fine_regulation(entry: dict, fine: dict, *, unit_name: str, unit_basis: str,
                            unit_value: Decimal | None, unit_is_example: bool) -> str:
    """Which regulation is missing for this fine to be charged (the law leaves its value to a
    regulation — Lei 3.703/2022 arts. 19–22 "multa em valor a ser estabelecido em regulamento" —
    or the fiscal unit's value in the pack is only an example)."""
    if fine.get("example") or (fine.get("fine_units") is None and fine.get("fine_amount") is None):
        return (f"regulamento que fixe o valor da multa da infração {entry['code']} "
                f"({fine.get('legal_basis') or entry.get('legal_basis', '')})")
    name = unit_name or "unidade fiscal"
    return f"decreto que fixe o valor da {name} ({unit_basis})" if unit_basis else f"decreto que fixe o valor da {name}"


def compute_penalty(
    entries: list[dict],
    *,
    unit_value: Decimal | None,
    unit_name: str = "",
    multiplier: int = 1,
    recidivism_refs: list[str] | None = None,
    recidivism_basis: str = "",
    fine_overrides: dict[str, Decimal] | None = None,
    unit_is_example: bool = False,
    unit_basis: str = "",
) -> dict:
    """The penalty of an upheld auto: the catalogue penalties of each infraction in it,
    applied cumulatively (Lei 724/2008 art. 25, §4: simultaneous infractions add up), with the
    recidivism multiplier on the fine (Lei 3.703/2022 art. 23; Lei 724/2008 art. 26).

    A fine whose value rests on an example value (the law leaves it to a regulation, or the
    fiscal unit's value is an example) produces no legal effect: the penalty keeps the
    infraction and the other penalties, ``amount`` is None and ``missing_regulation`` says
    which regulation is missing (the fine cannot be charged until it is recorded).
    """
    kinds: set[str] = set()
    fine_units = Decimal(0)
    any_units = False
    base = Decimal(0)
    any_fine = False
    suspension_days = 0
    codes: list[str] = []
    bases: list[str] = []
    missing: list[str] = []
    lines: list[dict] = []
    for entry in entries:
        bases.append(entry["legal_basis"])
        lines.append(line := {"code": entry["code"], "description": entry.get("description", ""),
                              "legal_basis": entry["legal_basis"], "penalties": [], "fine": None})
        for p in entry["penalties"]:
            line["penalties"].append(p.get("label") or KIND_LABELS.get(p["kind"], p["kind"]))
            kinds.add(p["kind"])
            if p.get("code"):
                codes.append(p["code"])
            if p["kind"] == "fine":
                override = (fine_overrides or {}).get(entry["code"])
                units, amount = fine_base_amount(entry, p, unit_value, override, unit_is_example=unit_is_example)
                any_fine = True
                line["fine"] = fine_line(p, units, amount, override is not None, unit_value=unit_value,
                                         unit_name=unit_name, unit_is_example=unit_is_example)
                if amount is None:
                    line["fine"]["missing_regulation"] = missing_fine_regulation(
                        entry, p, unit_name=unit_name, unit_basis=unit_basis, unit_value=unit_value,
                        unit_is_example=unit_is_example)
                    missing.append(line["fine"]["missing_regulation"])
                else:
                    base += amount
                if units is not None:
                    fine_units += units
                    any_units = True
            elif p["kind"] == "suspension":
                suspension_days += int(p.get("suspension_days") or 0)
    multiplier = multiplier if any_fine else 1
    with localcontext() as ctx:
        ctx.prec = 80
        amount = money(base * multiplier) if any_fine and not missing else None
    missing = list(dict.fromkeys(missing))
    return {
        "kinds": [k for k in KIND_ORDER if k in kinds],
        "labels": [KIND_LABELS[k] for k in KIND_ORDER if k in kinds],
        "codes": codes,
        "fine_units": (_number(fine_units) if any_units else None),
        "fiscal_unit": unit_name if any_units else None,
        "unit_value": (str(money(unit_value)) if any_units and unit_value is not None else None),
        "base_amount": str(money(base)) if any_fine and not missing else None,
        "amount": str(amount) if amount is not None else None,
        "recidivism": bool(recidivism_refs) and any_fine,
        "recidivism_refs": list(recidivism_refs or []) if any_fine else [],
        "recidivism_basis": recidivism_basis if recidivism_refs and any_fine else "",
        "multiplier": multiplier,
        "suspension_days": suspension_days,
        "legal_basis": bases,
        "missing_regulation": "; ".join(missing) if missing else None,
        "fine_pending_regulation": bool(missing),
        "lines": lines,
    }


def fine_line(fine: dict, units: Decimal | None, amount: Decimal | None, recorded: bool, *,
              unit_value: Decimal | None, unit_name: str, unit_is_example: bool) -> dict:
    """One infraction's fine as the judgement screen breaks it down: units of the fiscal unit (or a
    value in reais), the unit's value, the base amount before recidivism, and — when the amount
    rests on an example value of the pack that no regulation has fixed yet (Lei 3.703/2022 arts.
    19–22 "valor a ser estabelecido em regulamento") — that example value, marked as such."""
    example = amount is None
    example_amount = None
    if example:
        if fine.get("fine_amount") is not None:
            example_amount = money(fine["fine_amount"])
        elif units is not None and unit_value is not None:
            example_amount = money(units * unit_value)
    return {
        "fine_units": _number(units) if units is not None and not recorded else None,
        "fiscal_unit": unit_name if units is not None and not recorded else "",
        "unit_value": str(money(unit_value)) if units is not None and unit_value is not None and not recorded else None,
        "unit_is_example": bool(unit_is_example and units is not None),
        "base_amount": str(amount) if amount is not None else None,
        "example": example,
        "example_amount": str(example_amount) if example_amount is not None else None,
        "recorded": recorded,
        "missing_regulation": None,
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



def appeal_period_start(*, counted_from: str | None, decided_on: date, decision_notice_on: date | None) -> date | None:
    """First day of the count of the appeal period, or None while it cannot start yet.

    ``appeal.counted_from = "decision_notice"``: from the ciência of the notice of the decision
    (Lei 3.703/2022 art. 18, §5 — "esgotado o procedimento de defesa, será expedida nova notificação
    para o oferecimento de recurso" — read with §7; PL 015/2025 art. 25 with Lei 9.784/1999 art. 59;
    Lei 724/2008 art. 25, caput and §1: "da data de notificação caberá recurso"). A decision is
    never final before its own appeal period has run after the holder knew of it, so the legacy
    value ``"notice"`` is read the same way. Absent: from the decision itself.
    """
    if counted_from in ("decision_notice", "notice"):
        return decision_notice_on
    return decided_on


# --- road check -------------------------------------------------------------------------
def photo_document_items(documents: list[dict]) -> list[dict]:
    """The checklist items whose accepted file is the person's photograph (``photo = true`` in
    the pack's ``[[documents]]``, each citing the article that asks for it): the road check shows
    that file beside the driver's name, so the agent compares the face with whoever is driving.

    No item marked = the law asks for no photograph and the road check shows none (none of the
    three laws read here lists one: Lei 3.703/2022 art. 7, PL 015/2025 arts. 9, 10, 13 and 17,
    Lei 724/2008 arts. 4 and 9 ask for the CNH, certificates and vehicle papers, not a photograph)."""
    return [d for d in documents if d.get("photo") is True]


PHOTO_MIMES = ("image/jpeg", "image/png")  # a photograph sent as a PDF is not shown as a face
