"""The shared CNH field group: one size and one check wherever a CNH is asked."""

import pytest
from django import forms
from django.core.exceptions import ValidationError

from fleet.forms import CnhFieldsMixin, clean_cnh_number, cnh_fields


class DriverForm(CnhFieldsMixin, forms.Form):
    locals().update(cnh_fields())


def test_the_group_has_the_four_fields_with_a_prefix_for_repeated_groups():
    assert list(cnh_fields()) == ["cnh_number", "cnh_category", "cnh_first_issued", "cnh_ear"]
    aux = cnh_fields(prefix="aux1_", label_prefix="Auxiliar 1", required=False)
    assert list(aux) == ["aux1_cnh_number", "aux1_cnh_category", "aux1_cnh_first_issued", "aux1_cnh_ear"]
    assert aux["aux1_cnh_number"].label == "Auxiliar 1: número da CNH" and not aux["aux1_cnh_number"].required


def test_the_number_is_eleven_digits_and_the_category_upper_case():
    form = DriverForm({"cnh_number": "123.456.789-01", "cnh_category": " ab ", "cnh_first_issued": "01/02/2015"})
    assert form.is_valid(), form.errors
    assert form.cleaned_data["cnh_number"] == "12345678901" and form.cleaned_data["cnh_category"] == "AB"
    short = DriverForm({"cnh_number": "1234", "cnh_category": "B", "cnh_first_issued": "01/02/2015"})
    assert not short.is_valid() and "11 dígitos" in short.errors["cnh_number"][0]
    with pytest.raises(ValidationError):
        clean_cnh_number("123456789012")
    assert clean_cnh_number("") == ""
