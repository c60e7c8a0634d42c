"""One way to answer a service's refusal: 400 invalid input, 409 conflict with the state."""

from django import forms
from django.core.exceptions import ValidationError

from portal.exceptions import InvalidTransition, RuleViolation, RuleViolations
from portal.refusals import apply_refusal, refusal_body, refusal_message, refusal_status


class _Form(forms.Form):
    km = forms.CharField(required=False)


def _bound():
    form = _Form({"km": "3"})
    assert form.is_valid()
    return form


def test_invalid_input_is_400_and_a_conflict_409():
    assert refusal_status(RuleViolation("x", "Fora da regra", "art. 1")) == 400
    assert refusal_status(RuleViolation("x", "Prazo encerrado", "art. 2", conflict=True)) == 409
    assert refusal_status(InvalidTransition("Situação não permite")) == 409
    assert refusal_status(ValidationError({"km": ["inválido"]})) == 400
    both = RuleViolations([RuleViolation("a", "A", conflict=True), RuleViolation("b", "B")])
    assert refusal_status(both) == 400
    assert refusal_status(RuleViolations([RuleViolation("a", "A", conflict=True)])) == 409


def test_the_api_body_names_the_field_and_the_rule():
    body = refusal_body(RuleViolation("vehicle_age", "Veículo velho", "art. 9", field="km"))
    assert body == {"errors": {"km": ["Veículo velho (art. 9)"]}, "rule": {"code": "vehicle_age", "legal_basis": "art. 9"}}
    assert refusal_body(ValidationError("Sem dados")) == {"errors": {"non_field_errors": ["Sem dados"]}}


def test_the_form_gets_the_refusal_beside_its_field_or_at_the_top():
    form = _bound()
    assert apply_refusal(form, RuleViolation("x", "Distância", field="km")) == 400
    assert form.errors["km"] == ["Distância"]
    form = _bound()
    assert apply_refusal(form, RuleViolation("x", "Cota cheia", field="quota", conflict=True)) == 409
    assert form.non_field_errors() == ["Cota cheia"]
    form = _bound()
    assert apply_refusal(form, InvalidTransition("Já decidido", field="km")) == 409
    assert form.non_field_errors() == ["Já decidido"]
    assert refusal_message(RuleViolations([RuleViolation("a", "A"), RuleViolation("b", "B")])) == "A; B"
