"""Request data shown in words: coded grounds and relationships, formatted CPFs (issue 19)."""

import pytest

from licensing.requests.views import display_rows


def test_coded_values_are_shown_in_words():
    rows = dict(display_rows({"ground": "newer", "relationship": "spouse", "certificate_issuer": "detran"}))
    assert rows == {"fundamento": "veículo mais novo", "parentesco": "cônjuge",
                    "emissor da certidão": "DETRAN (certidão de baixa)"}


def test_cpfs_are_formatted_and_unknown_codes_kept():
    rows = dict(display_rows({"new_holder_cpf": "52998224725", "ground": "holder_years"}))
    assert rows["CPF do novo titular"] == "529.982.247-25"
    assert rows["fundamento"] == "titular há pelo menos o tempo mínimo"


@pytest.mark.django_db
def test_a_person_without_a_name_is_never_named_by_the_cpf():
    from tests.conftest import make_user

    user = make_user("52998224725", "applicant", cpf="52998224725", name="")
    user.name = user.first_name = user.last_name = ""
    assert user.display_name == "(nome não informado)"
    other = make_user("fulano", None)
    other.name = ""
    assert other.display_name == "fulano"
