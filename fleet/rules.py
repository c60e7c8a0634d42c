"""Vehicle rules of the pack (age, doors, seats, engine, colour): pure functions, no database.

Each returns the RuleViolations it finds, citing the article carried by the pack parameter; a
missing parameter means the law has no such rule.

``vehicle_violations`` is the one set of vehicle rules: the entry of an application, the
renewal, the substitute vehicle, the yearly proof of requirements and the vehicle-age job all
call it (or, for the job, ``over_max_age`` — the same age test), so that a vehicle one door
accepts is never refused or ordered replaced by another the same day.

Reading of the maximum age (e.g. "idade máxima de 8 anos", with "atingir a idade máxima" as
the ground for substitution and "não substituição tempestiva de veículo cuja idade máxima tenha
sido atingida" as a cause of cassation): the age is counted in completed years, as a person's
age is; a vehicle whose age *equals* the maximum is still admissible (it has *reached* the
maximum: the holder may substitute it on that ground), and from the day its age exceeds the
maximum it is refused at every door and the job orders its replacement — the substitution was
"tempestiva" if made by ``admissible_until``.
"""

from __future__ import annotations

import calendar
import unicodedata
from collections.abc import Mapping
from datetime import date, timedelta
from datetime import date as _date

from portal.exceptions import RuleViolation


def full_years_between(start: date, end: date) -> int:
    """Completed years from ``start`` to ``end`` (age on a birthday counts the new year)."""
    years = end.year - start.year
    if (end.month, end.day) < (start.month, start.day):
        years -= 1
    return years


def vehicle_age_years(basis: str | None, manufacture_year: int, first_registration: _date | None, on: _date) -> int:
    """Age of a vehicle as the pack counts it (``vehicle.age_basis``): full years since the
    first CRLV for "first_registration" (the manufacture year when that date is unknown),
    calendar years since the manufacture year otherwise."""
    if basis == "first_registration" and first_registration is not None:
        return full_years_between(first_registration, on)
    return on.year - int(manufacture_year)


def admissible_until(basis: str | None, manufacture_year: int | None, first_registration: _date | None,
                     max_age: int) -> _date | None:
    """Last day on which the vehicle is within the maximum age (``vehicle_age_years`` ≤ max):
    the day before the (max+1)-th anniversary of the first CRLV, or the 31st of December of
    manufacture year + max. ``None`` when the date the pack counts from is unknown."""
    if basis == "first_registration" and first_registration is not None:
        target = first_registration.year + max_age + 1
        last = calendar.monthrange(target, first_registration.month)[1]
        return first_registration.replace(year=target, day=min(first_registration.day, last)) - timedelta(days=1)
    if manufacture_year is None:
        return None
    return _date(int(manufacture_year) + max_age, 12, 31)


def reached_max_age(age: int, max_age: int) -> bool:
    """"Atingir a idade máxima": the age equals the maximum or more — the ground on which the
    holder may substitute the vehicle (still admissible while equal)."""
    return age >= max_age


def over_max_age(age: int, max_age: int) -> bool:
    """Past the maximum age: refused at every door and ordered replaced by the job."""
    return age > max_age


def vehicle_age(manufacture_year: int | None, first_registration: _date | None, today: _date, basis, max_age,
                ) -> list[RuleViolation]:
    """vehicle.max_age_years counted by vehicle.age_basis; an age equal to the maximum is allowed."""
    if max_age is None:
        return []
    how = basis.value if basis is not None else "manufacture_year"
    limit = int(max_age.value)
    if how == "first_registration":
        if first_registration is None:
            return [RuleViolation("vehicle.max_age_years", "Informe a data do primeiro licenciamento (CRLV): a idade "
                                  "do veículo é contada a partir dela.", max_age.legal_basis,
                                  field="vehicle.first_registration_date")]
        age = vehicle_age_years(how, manufacture_year or 0, first_registration, today)
        counted = f"licenciado pela primeira vez em {first_registration:%d/%m/%Y}"
        field = "vehicle.first_registration_date"
    else:
        if manufacture_year is None:
            return [RuleViolation("vehicle.max_age_years", "Informe o ano de fabricação do veículo.",
                                  max_age.legal_basis, field="vehicle.manufacture_year")]
        age = vehicle_age_years(how, manufacture_year, None, today)
        counted = f"fabricado em {manufacture_year}"
        field = "vehicle.manufacture_year"
    if over_max_age(age, limit):
        return [RuleViolation("vehicle.max_age_years", f"O veículo tem {age} anos ({counted}); o máximo permitido é "
                              f"{limit} anos.", max_age.legal_basis, field=field)]
    return []


def vehicle_doors(doors: int | None, min_doors) -> list[RuleViolation]:
    if min_doors is None:
        return []
    if doors is None or doors < int(min_doors.value):
        return [RuleViolation("vehicle.min_doors", f"O veículo precisa ter ao menos {min_doors.value} portas "
                              f"(informado: {doors if doors is not None else 'nada'}).", min_doors.legal_basis,
                              field="vehicle.doors")]
    return []


def vehicle_seats(seats: int | None, min_seats, max_seats) -> list[RuleViolation]:
    out = []
    if min_seats is not None and (seats is None or seats < int(min_seats.value)):
        out.append(RuleViolation("vehicle.min_seats", f"O veículo precisa ter ao menos {min_seats.value} lugares, "
                                 "incluindo o motorista.", min_seats.legal_basis, field="vehicle.seats"))
    if max_seats is not None and seats is not None and seats > int(max_seats.value):
        out.append(RuleViolation("vehicle.max_seats", f"O veículo pode ter no máximo {max_seats.value} lugares, "
                                 "incluindo o motorista.", max_seats.legal_basis, field="vehicle.seats"))
    return out


def vehicle_engine(engine_cc: int | None, min_cc) -> list[RuleViolation]:
    if min_cc is None:
        return []
    if engine_cc is None or engine_cc < int(min_cc.value):
        return [RuleViolation("vehicle.min_engine_cc", f"A cilindrada mínima é {min_cc.value} cc (informado: "
                              f"{engine_cc if engine_cc is not None else 'nada'}).", min_cc.legal_basis,
                              field="vehicle.engine_cc")]
    return []


def normalize_color(color: str) -> str:
    text = unicodedata.normalize("NFKD", (color or "").strip().lower())
    return "".join(ch for ch in text if not unicodedata.combining(ch))


def _same_color(given: str, allowed: str) -> bool:
    g, a = normalize_color(given), normalize_color(allowed)
    if g == a:
        return True
    # gender agreement: "branco" / "branca", "amarelo" / "amarela"
    return len(g) > 3 and g[-1] in "ao" and a[-1:] in ("a", "o") and g[:-1] == a[:-1]


def vehicle_color(color: str, colors) -> list[RuleViolation]:
    if colors is None:
        return []
    allowed = [str(c) for c in colors.value]
    if not any(_same_color(color, a) for a in allowed):
        return [RuleViolation("vehicle.colors", f"A cor do veículo ({color or 'não informada'}) não é permitida: "
                              f"use {', '.join(allowed)}.", colors.legal_basis, field="vehicle.color")]
    return []


# --- the one set -------------------------------------------------------------------------------
VEHICLE_PARAM_KEYS = ("vehicle.age_basis", "vehicle.max_age_years", "vehicle.min_doors", "vehicle.min_seats",
                      "vehicle.max_seats", "vehicle.min_engine_cc", "vehicle.colors")


def vehicle_params(pack, modality: str) -> dict:
    """The pack's vehicle parameters for a modality (``None`` where the law has no such rule)."""
    return {key: pack.param(key, modality) for key in VEHICLE_PARAM_KEYS}


def vehicle_violations(vehicle: Mapping, on: _date, params: Mapping, *, field_prefix: str = "vehicle.",
                       ) -> list[RuleViolation]:
    """Every vehicle rule of the pack on ``on`` (age by the pack's basis, doors, seats, engine,
    colour), each citing its article. ``vehicle`` holds ``manufacture_year``,
    ``first_registration_date`` (date or ISO string), ``doors``, ``seats``, ``engine_cc`` and
    ``color``; ``field_prefix`` names the fields as the caller's form does."""
    first = vehicle.get("first_registration_date")
    if isinstance(first, str):
        first = _date.fromisoformat(first) if first else None
    year = vehicle.get("manufacture_year")
    out = vehicle_age(int(year) if year not in (None, "") else None, first, on, params.get("vehicle.age_basis"),
                      params.get("vehicle.max_age_years"))
    out += vehicle_doors(vehicle.get("doors"), params.get("vehicle.min_doors"))
    out += vehicle_seats(vehicle.get("seats"), params.get("vehicle.min_seats"), params.get("vehicle.max_seats"))
    out += vehicle_engine(vehicle.get("engine_cc"), params.get("vehicle.min_engine_cc"))
    out += vehicle_color(vehicle.get("color") or "", params.get("vehicle.colors"))
    if field_prefix != "vehicle.":
        for violation in out:
            if violation.field.startswith("vehicle."):
                violation.field = field_prefix + violation.field[len("vehicle."):]
    return out


def plate_in_service(display_plate: str, held_by_another_person: bool, legal_basis: str) -> list[RuleViolation]:
    """A plate serves one grant at a time: no grant is issued on it while another person holds a
    grant in force on that plate. The law binds each grant to one vehicle owned by its holder (the
    article the pack cites for ``grant.max_per_holder``, or the grant act's own): a second
    person's declaration of the same plate is a conflict for the clerk to settle against the
    CRLV, never a second grant. A conflict with the state of things (409), not bad input."""
    if not held_by_another_person:
        return []
    return [RuleViolation(
        "vehicle.plate_in_service",
        f"A placa {display_plate} está vinculada à outorga vigente de outra pessoa: confira o CRLV do veículo "
        "antes de deferir.",
        legal_basis, field="vehicle.plate", conflict=True)]
