"""Form fields shared by the apps for what the law requires of vehicles and drivers.

The CNH (carteira de habilitação) group — number, category, first issue and the EAR remark —
is asked of holders, of auxiliary drivers and in the lifecycle requests: one definition here,
the same sizes and checks everywhere. ``cnh_fields()`` makes the group (with a name prefix
and a label prefix for repeated groups); ``CnhFieldsMixin`` cleans it on a form that has it.
"""

from __future__ import annotations

from collections.abc import Callable

from django import forms

from portal.validators import CNH_NUMBER_DIGITS, normalize_cnh_number

# What may be typed: the 11 digits and the punctuation of 000.000.000-00 (3 more characters).
CNH_NUMBER_INPUT_MAX = CNH_NUMBER_DIGITS + 3
CNH_CATEGORY_MAX = 5  # "A".."E", or combined ("AB", "AD", "AE")
CNH_NUMBER_HELP = "Os 11 dígitos do registro da CNH (com ou sem pontos)."


def _date_field(label: str, *, required: bool) -> forms.DateField:
    return forms.DateField(label=label, required=required, help_text="No formato DD/MM/AAAA.",
                           input_formats=["%d/%m/%Y", "%Y-%m-%d"],
                           widget=forms.DateInput(format="%d/%m/%Y",
                                                  attrs={"inputmode": "numeric", "placeholder": "DD/MM/AAAA"}))


def cnh_fields(*, prefix: str = "", label_prefix: str = "", required: bool = True,
               first_issued_required: bool | None = None,
               ear_label: str = "A CNH tem a observação EAR (exerce atividade remunerada)",
               date_field: Callable[..., forms.DateField] | None = None) -> dict[str, forms.Field]:
    """The CNH group: ``{prefix}cnh_number``, ``cnh_category``, ``cnh_first_issued``, ``cnh_ear``.

    ``date_field(label, required=...)`` makes the date of the first licence where a form keeps
    one kind of date input for all its dates (default: DD/MM/AAAA typed)."""
    first_required = required if first_issued_required is None else first_issued_required
    lp = f"{label_prefix}: " if label_prefix else ""
    make_date = date_field or _date_field

    def label(text: str) -> str:
        return f"{lp}{text[0].lower()}{text[1:]}" if lp else text

    return {
        f"{prefix}cnh_number": forms.CharField(
            label=label("Número da CNH"), max_length=CNH_NUMBER_INPUT_MAX, required=required,
            help_text="" if lp else CNH_NUMBER_HELP,
            widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
        ),
        f"{prefix}cnh_category": forms.CharField(
            label=label("Categoria da CNH"), max_length=CNH_CATEGORY_MAX, required=required,
            help_text="" if lp else "Ex.: B, AB, D.",
        ),
        f"{prefix}cnh_first_issued": make_date(label("Data da primeira habilitação"), required=first_required),
        f"{prefix}cnh_ear": forms.BooleanField(label=label(ear_label) if lp else ear_label, required=False),
    }


def clean_cnh_number(value: str | None) -> str:
    """The registro's digits (dots and spaces dropped); empty stays empty (portal.validators)."""
    return normalize_cnh_number(value)


def clean_cnh_category(value: str | None) -> str:
    return (value or "").upper().strip()


class CnhFieldsMixin:
    """Cleans the CNH group of a form (unprefixed fields; a repeated group calls
    ``clean_cnh_number`` / ``clean_cnh_category`` for its own names)."""

    def clean_cnh_number(self):
        return clean_cnh_number(self.cleaned_data.get("cnh_number"))

    def clean_cnh_category(self):
        return clean_cnh_category(self.cleaned_data.get("cnh_category"))
