"""Form fields shared by the apps for what the law requires of vehicles and drivers.

The CNH (carteira de habilitação) group — number, category, first issue and the EAR remark —
is asked of holders, of auxiliary drivers and in the lifecycle requests: one definition here,
the same sizes and checks everywhere. ``cnh_fields()`` makes the group (with a name prefix
and a label prefix for repeated groups); ``CnhFieldsMixin`` cleans it on a form that has it.
"""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError

from portal.validators import only_digits

CNH_NUMBER_DIGITS = 11  # the registro of the CNH
CNH_CATEGORY_MAX = 5  # "A".."E", or combined ("AB", "AD", "AE")
CNH_NUMBER_MESSAGE = "Informe os 11 dígitos do registro da CNH."


def _date_field(label: str, *, required: bool) -> forms.DateField:
    return forms.DateField(label=label, required=required, help_text="No formato DD/MM/AAAA.",
                           input_formats=["%d/%m/%Y", "%Y-%m-%d"],
                           widget=forms.DateInput(attrs={"inputmode": "numeric", "placeholder": "DD/MM/AAAA"}))


def cnh_fields(*, prefix: str = "", label_prefix: str = "", required: bool = True,
               first_issued_required: bool | None = None,
               ear_label: str = "A CNH tem a observação EAR (exerce atividade remunerada)") -> dict[str, forms.Field]:
    """The CNH group: ``{prefix}cnh_number``, ``cnh_category``, ``cnh_first_issued``, ``cnh_ear``."""
    first_required = required if first_issued_required is None else first_issued_required
    lp = f"{label_prefix}: " if label_prefix else ""

    def label(text: str) -> str:
        return f"{lp}{text[0].lower()}{text[1:]}" if lp else text

    return {
        f"{prefix}cnh_number": forms.CharField(
            label=label("Número da CNH"), max_length=CNH_NUMBER_DIGITS + 3, required=required,
            widget=forms.TextInput(attrs={"inputmode": "numeric"}),
        ),
        f"{prefix}cnh_category": forms.CharField(
            label=label("Categoria da CNH"), max_length=CNH_CATEGORY_MAX, required=required,
            help_text="" if lp else "Ex.: B, AB, D.",
        ),
        f"{prefix}cnh_first_issued": _date_field(label("Data da primeira habilitação"), required=first_required),
        f"{prefix}cnh_ear": forms.BooleanField(label=label(ear_label) if lp else ear_label, required=False),
    }


def clean_cnh_number(value: str | None) -> str:
    """The registro's digits (dots and spaces dropped); empty stays empty."""
    digits = only_digits(value or "")
    if digits and len(digits) != CNH_NUMBER_DIGITS:
        raise ValidationError(CNH_NUMBER_MESSAGE)
    return digits


def clean_cnh_category(value: str | None) -> str:
    return (value or "").upper().strip()


class CnhFieldsMixin:
    """Cleans the CNH group of a form (unprefixed fields)."""

    def clean_cnh_number(self):
        return clean_cnh_number(self.cleaned_data.get("cnh_number"))

    def clean_cnh_category(self):
        return clean_cnh_category(self.cleaned_data.get("cnh_category"))
