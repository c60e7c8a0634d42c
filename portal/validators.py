"""Validators for Brazilian identifiers, backed by validate-docbr."""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError
from validate_docbr import CNH, CNPJ, CPF, RENAVAM

_cpf = CPF()
_cnpj = CNPJ()
_renavam = RENAVAM()
_cnh = CNH()

PLATE_RE = re.compile(r"^[A-Z]{3}[0-9][A-Z0-9][0-9]{2}$")


def only_digits(value: str) -> str:
    return re.sub(r"\D", "", value or "")


def normalize_cpf(value: str) -> str:
    return only_digits(value)


def validate_cpf(value: str) -> None:
    digits = only_digits(value)
    if len(digits) != 11 or not _cpf.validate(digits):
        raise ValidationError(
            "CPF inválido: confira os 11 dígitos e os dígitos verificadores.", code="cpf"
        )


def validate_cnpj(value: str) -> None:
    digits = only_digits(value)
    if len(digits) != 14 or not _cnpj.validate(digits):
        raise ValidationError(
            "CNPJ inválido: confira os 14 dígitos e os dígitos verificadores.", code="cnpj"
        )


def validate_renavam(value: str) -> None:
    digits = only_digits(value)
    if len(digits) not in (9, 11) or not _renavam.validate(digits.zfill(11)):
        raise ValidationError(
            "RENAVAM inválido: informe os 11 dígitos do documento do veículo.", code="renavam"
        )


def validate_cnh_number(value: str) -> None:
    digits = only_digits(value)
    if len(digits) != 11 or not _cnh.validate(digits):
        raise ValidationError("Número da CNH inválido: informe os 11 dígitos.", code="cnh")


# The registro of the CNH has 11 digits (Registro Nacional de Condutores Habilitados); it is
# typed with or without dots and dashes. ``validate_cnh_number`` also checks its check digits.
CNH_NUMBER_DIGITS = 11
CNH_NUMBER_MESSAGE = "Informe os 11 dígitos do registro da CNH."


def normalize_cnh_number(value: str | None) -> str:
    """The registro's 11 digits (punctuation dropped); empty stays empty; any other count of
    digits is refused."""
    digits = only_digits(value or "")
    if digits and len(digits) != CNH_NUMBER_DIGITS:
        raise ValidationError(CNH_NUMBER_MESSAGE, code="cnh_length")
    return digits


def normalize_plate(value: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "", value or "").upper()


def validate_plate(value: str) -> None:
    if not PLATE_RE.match(normalize_plate(value)):
        raise ValidationError(
            "Placa inválida: use o formato ABC1D23 (Mercosul) ou ABC-1234.", code="plate"
        )


def mask_cpf(value: str) -> str:
    """Mask a CPF for display to people other than its holder: ***.456.789-**."""
    digits = only_digits(value)
    if len(digits) != 11:
        return ""
    return f"***.{digits[3:6]}.{digits[6:9]}-**"


def format_cpf(value: str) -> str:
    digits = only_digits(value)
    if len(digits) != 11:
        return value or ""
    return f"{digits[:3]}.{digits[3:6]}.{digits[6:9]}-{digits[9:]}"


def format_cnpj(value: str) -> str:
    digits = only_digits(value)
    if len(digits) != 14:
        return value or ""
    return f"{digits[:2]}.{digits[2:5]}.{digits[5:8]}/{digits[8:12]}-{digits[12:]}"


# Row ids are PostgreSQL bigint: a larger number in a lookup is a database error, not "not found".
MAX_ID = 2**63 - 1
# Counts and quantities stored in an IntegerField (PostgreSQL integer).
MAX_INT = 2**31 - 1


# --- plausibility of a driver's dates ------------------------------------------------------------
# Every pack's drivers hold a CNH, and the CTB gives one only to whoever is 18 ("penalmente
# imputável"): a birth date under 18 for a driver, or a first CNH before the 18th birthday, is a
# typing error or a false statement whatever the municipal law says about age.
CNH_MIN_AGE = 18
CNH_MIN_AGE_BASIS = "Lei 9.503/1997 (CTB), art. 140, I"


def _completed_years(start, end) -> int:
    years = end.year - start.year
    return years - 1 if (end.month, end.day) < (start.month, start.day) else years


def _birthday(birth, years: int):
    try:
        return birth.replace(year=birth.year + years)
    except ValueError:  # 29 February → 28 February
        return birth.replace(year=birth.year + years, day=28)


def driver_dates_errors(*, birth_date, cnh_first_issued, today, birth_field: str = "birth_date",
                        cnh_field: str = "cnh_first_issued", person: str = "") -> dict[str, list[str]]:
    """Errors (field → messages) of a driver's dates that cannot be: in the future, a driver
    under 18 or a first CNH issued before the 18th birthday (CTB, art. 140, I)."""
    who = f" ({person})" if person else ""
    errors: dict[str, list[str]] = {}
    if birth_date is not None:
        if birth_date > today:
            errors[birth_field] = [f"A data de nascimento{who} ({birth_date:%d/%m/%Y}) não pode ser futura."]
        elif _completed_years(birth_date, today) < CNH_MIN_AGE:
            errors[birth_field] = [f"Pela data de nascimento{who} ({birth_date:%d/%m/%Y}), o condutor tem menos de "
                                   f"{CNH_MIN_AGE} anos e não pode ser habilitado ({CNH_MIN_AGE_BASIS})."]
    if cnh_first_issued is not None:
        if cnh_first_issued > today:
            errors[cnh_field] = [f"A data da primeira habilitação{who} ({cnh_first_issued:%d/%m/%Y}) não pode ser "
                                 "futura."]
        elif birth_date is not None and birth_date <= today and cnh_first_issued < _birthday(birth_date, CNH_MIN_AGE):
            errors[cnh_field] = [f"A primeira habilitação{who} ({cnh_first_issued:%d/%m/%Y}) seria anterior aos "
                                 f"{CNH_MIN_AGE} anos do condutor (nascido em {birth_date:%d/%m/%Y}): confira as "
                                 f"datas ({CNH_MIN_AGE_BASIS})."]
    return errors
