"""Forms of the stand desk."""

from __future__ import annotations

from django import forms

from portal.forms import FriendlyRequiredMixin
from portal.validators import MAX_ID


class StandForm(FriendlyRequiredMixin, forms.Form):
    name = forms.CharField(label="Nome do ponto", max_length=120)
    location = forms.CharField(label="Localização", max_length=250)
    capacity = forms.IntegerField(label="Vagas", min_value=1, max_value=500)
    modality = forms.ChoiceField(label="Modalidade", required=False,
                                 choices=[("", "Qualquer"), ("taxi", "Táxi"), ("mototaxi", "Mototáxi")])


class CapacityForm(FriendlyRequiredMixin, forms.Form):
    capacity = forms.IntegerField(label="Novo número de vagas", min_value=0, max_value=500)


class AssignForm(FriendlyRequiredMixin, forms.Form):
    authorization = forms.CharField(label="Número da autorização", max_length=12, help_text="Ex.: 001/2026.")


class SwapForm(FriendlyRequiredMixin, forms.Form):
    assignment_a = forms.IntegerField(label="Designação A (nº)", min_value=1, max_value=MAX_ID)
    assignment_b = forms.IntegerField(label="Designação B (nº)", min_value=1, max_value=MAX_ID)
    consent_a = forms.BooleanField(label="Anuência do titular A apresentada", required=False)
    consent_b = forms.BooleanField(label="Anuência do titular B apresentada", required=False)


class EndAssignmentForm(FriendlyRequiredMixin, forms.Form):
    reason = forms.CharField(label="Motivo", max_length=250)
