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


def _every_cnh_form():
    """Every form that asks a CNH, with the data it needs besides the CNH (``{cnh}`` = the number)."""
    from licensing.applications.forms import AuxiliariesForm, DriverForm, ProfileForm
    from licensing.requests.forms import AuxiliaryAddForm

    return [
        (lambda d: DriverForm(d), "cnh_number",
         lambda n: {"cnh_number": n, "cnh_category": "b", "cnh_first_issued": "15/01/2010"}),
        (lambda d: ProfileForm(d), "cnh_number", lambda n: {"cnh_number": n, "cnh_category": "b"}),
        (lambda d: AuxiliaryAddForm(d), "cnh_number",
         lambda n: {"cpf": "529.982.247-25", "name": "Bruno", "cnh_number": n, "cnh_category": "b"}),
        (lambda d: AuxiliariesForm(d, slots=1), "aux1_cnh_number",
         lambda n: {"aux1_name": "Paulo", "aux1_cpf": "529.982.247-25", "aux1_cnh_number": n,
                    "aux1_cnh_category": "b", "aux1_cnh_first_issued": "01/02/2012"}),
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("index", range(4))
def test_every_form_asking_a_cnh_takes_punctuation_keeps_the_digits_and_wants_eleven(index, alegre):
    make, field, data = _every_cnh_form()[index]
    assert make({}).fields[field].max_length == len("000.000.000-00")
    form = make(data("026.503.064-61"))
    assert form.is_valid(), form.errors
    cleaned = form.auxiliaries[0] if field.startswith("aux") else form.cleaned_data
    assert cleaned["cnh_number"] == "02650306461" and cleaned["cnh_category"] == "B"
    for wrong in ("026503064", "0265030646", "026503064612"):  # 9, 10 and 12 digits
        refused = make(data(wrong))
        assert not refused.is_valid() and "11 dígitos" in refused.errors[field][0], wrong
