"""Forms of the fee desk."""

from __future__ import annotations

from django import forms

from licensing.fees.models import FeeKind, FeeStatus
from licensing.requests.forms import _date
from portal.forms import FriendlyRequiredMixin


class FeeFilterForm(FriendlyRequiredMixin, forms.Form):
    status = forms.ChoiceField(label="Situação", required=False, choices=[("", "Todas")] + list(FeeStatus.choices))
    kind = forms.ChoiceField(label="Tipo", required=False, choices=[("", "Todos")] + list(FeeKind.choices))
    q = forms.CharField(label="Busca", required=False, max_length=80, help_text="Nº do DAM, nome ou autorização.")


class PayForm(FriendlyRequiredMixin, forms.Form):
    paid_on = _date("Data do pagamento")
    reference = forms.CharField(label="Referência (autenticação bancária)", required=False, max_length=80)


class BankReturnForm(FriendlyRequiredMixin, forms.Form):
    file = forms.FileField(
        label="Arquivo do banco",
        help_text="Retorno de arrecadação FEBRABAN (registros A, G e Z de 150 posições) ou extrato Pix em CSV "
                  "(colunas txid, valor, data) ou JSON. Até 2 MB. O mesmo arquivo importado de novo não muda nada.")
