"""Forms of a grant's requests: one per kind (named by its ``Kind`` in
``licensing.requests.kinds``), the clerk's decision, the vistoria and the queue filter.
Labels in Portuguese; the rules are applied by the services."""

from __future__ import annotations

from django import forms

from fleet.forms import CnhFieldsMixin, cnh_fields
from licensing.requests.models import LeaveReason, RequestKind, RequestStatus
from licensing.requests.rules import (
    CERTIFICATE_ISSUERS,
    HEIR_RELATIONSHIPS,
    SUBSTITUTION_GROUNDS,
    TRANSFER_GROUNDS,
)
from portal.forms import FriendlyRequiredMixin

DATE_HINT = "DD/MM/AAAA"


class DateInput(forms.DateInput):
    input_type = "date"

    def __init__(self, **kwargs):
        super().__init__(format="%Y-%m-%d", **kwargs)


def _date(label: str, required: bool = True, help_text: str = "") -> forms.DateField:
    return forms.DateField(label=label, required=required, widget=DateInput(), help_text=help_text,
                           input_formats=["%Y-%m-%d", "%d/%m/%Y"])


def _cpf(label: str) -> forms.CharField:
    return forms.CharField(label=label, max_length=14, help_text="Somente os 11 números ou no formato 000.000.000-00.",
                           widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off"}))


class AuxiliaryAddForm(CnhFieldsMixin, FriendlyRequiredMixin, forms.Form):
    cpf = _cpf("CPF do condutor auxiliar")
    name = forms.CharField(label="Nome completo", max_length=200)
    birth_date = _date("Data de nascimento", required=False)
    cnh_number, cnh_category, cnh_first_issued, cnh_ear = cnh_fields(first_issued_required=False,
                                                                     date_field=_date).values()

    def __init__(self, *args, documents=(), **kwargs):
        """The pack's documents for an auxiliary driver, as in the application."""
        super().__init__(*args, **kwargs)
        self.fields["documents"] = _documents_field(list(documents))


class AuxiliaryRemoveForm(FriendlyRequiredMixin, forms.Form):
    auxiliary = forms.ChoiceField(label="Condutor auxiliar")
    left_on = _date("Data do desligamento", help_text="O dia em que o condutor deixou de trabalhar no veículo.")
    reason = forms.CharField(label="Motivo", required=False, max_length=500, widget=forms.Textarea(attrs={"rows": 2}))

    def __init__(self, *args, auxiliaries=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["auxiliary"].choices = [("", "Escolha…")] + [(str(a.pk), a.person.display_name) for a in auxiliaries]


class SubstitutionForm(FriendlyRequiredMixin, forms.Form):
    ground = forms.ChoiceField(label="Motivo da substituição", required=False, choices=[("", "Escolha…")])
    vehicle_plate = forms.CharField(label="Placa do veículo substituto", max_length=8, help_text="Formato ABC1D23 ou ABC-1234.")
    vehicle_renavam = forms.CharField(label="RENAVAM", max_length=11, widget=forms.TextInput(attrs={"inputmode": "numeric"}))
    vehicle_make = forms.CharField(label="Marca", max_length=60)
    vehicle_model = forms.CharField(label="Modelo", max_length=80)
    vehicle_color = forms.CharField(label="Cor", max_length=40)
    vehicle_manufacture_year = forms.IntegerField(label="Ano de fabricação", min_value=1950, max_value=2100)
    vehicle_first_registration_date = _date("Data do primeiro licenciamento (CRLV)", required=False)
    vehicle_doors = forms.IntegerField(label="Portas", required=False, min_value=0, max_value=10)
    vehicle_seats = forms.IntegerField(label="Lugares (com o motorista)", required=False, min_value=1, max_value=60)
    vehicle_engine_cc = forms.IntegerField(label="Cilindrada (cc)", required=False, min_value=50, max_value=10000)
    certificate_issuer = forms.ChoiceField(label="Certidão (perda total)", required=False,
                                           choices=[("", "Não se aplica")] + list(CERTIFICATE_ISSUERS.items()))
    certificate_number = forms.CharField(label="Número da certidão", required=False, max_length=60)

    def __init__(self, *args, grounds: dict | None = None, **kwargs):
        """Only the grounds the pack's law lists (ground → article); none listed, no field."""
        super().__init__(*args, **kwargs)
        if grounds:
            self.fields["ground"].required = True
            self.fields["ground"].choices = [("", "Escolha…")] + [
                (code, f"{SUBSTITUTION_GROUNDS[code]} ({article})") for code, article in grounds.items()]
        else:
            del self.fields["ground"]


class LeaveForm(FriendlyRequiredMixin, forms.Form):
    reason = forms.ChoiceField(label="Motivo do afastamento", choices=[("", "Escolha…")] + list(LeaveReason.choices))
    starts_on = _date("Início do afastamento")
    days = forms.IntegerField(label="Dias de afastamento", min_value=1, max_value=3650)


class TransferForm(FriendlyRequiredMixin, forms.Form):
    ground = forms.ChoiceField(label="Fundamento", choices=[("", "Escolha…")] + list(TRANSFER_GROUNDS.items()))
    new_holder_cpf = _cpf("CPF do novo titular")
    relationship = forms.ChoiceField(label="Parentesco (falecimento, aposentadoria ou invalidez)", required=False,
                                     choices=[("", "Não se aplica")] + list(HEIR_RELATIONSHIPS.items()))
    event_on = _date("Data do fato (falecimento, aposentadoria ou invalidez)", required=False)
    proof = forms.CharField(label="Documento comprobatório", required=False, max_length=500,
                            help_text="Certidão de óbito, ato de aposentadoria, laudo médico…")
    vehicle_plate = forms.CharField(label="Placa do veículo do novo titular", required=False, max_length=8,
                                    help_text="Deixe em branco para manter o veículo atual.")


class RenunciationForm(FriendlyRequiredMixin, forms.Form):
    reason = forms.CharField(label="Motivo (opcional)", required=False, max_length=1000,
                             widget=forms.Textarea(attrs={"rows": 3}))
    confirm = forms.BooleanField(label="Confirmo que desejo renunciar à autorização", required=True)


class PrepostoForm(FriendlyRequiredMixin, forms.Form):
    preposto_cpf = _cpf("CPF do preposto")
    permanent = forms.BooleanField(label="A invalidez do titular é permanente", required=False)
    invalidity_on = _date("Data da invalidez")
    medical_report = forms.CharField(label="Laudo médico", max_length=500, help_text="Número e emissor do laudo.")


def _documents_field(documents: list[dict]) -> forms.MultipleChoiceField:
    return forms.MultipleChoiceField(
        label="Documentos apresentados", required=False, widget=forms.CheckboxSelectMultiple,
        choices=[(d["code"], f"{d['label']} ({d.get('legal_basis', '')})") for d in documents],
        help_text="Marque cada documento que você apresenta; todos são exigidos pela lei.",
    )


class AuxiliaryReregistrationForm(FriendlyRequiredMixin, forms.Form):
    """Yearly re-registration of an auxiliary driver, with the pack's documents for auxiliaries."""

    auxiliary = forms.ChoiceField(label="Condutor auxiliar")

    def __init__(self, *args, auxiliaries=(), documents=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["auxiliary"].choices = [("", "Escolha…")] + [(str(a.pk), a.person.display_name) for a in auxiliaries]
        self.fields["documents"] = _documents_field(list(documents))


class ComplianceProofForm(FriendlyRequiredMixin, forms.Form):
    """Yearly proof of the requirements during the permission, with the holder's documents."""

    def __init__(self, *args, documents=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["documents"] = _documents_field(list(documents))


def form_to_data(form: forms.Form) -> dict:
    out = {}
    for key, value in form.cleaned_data.items():
        out[key] = value.isoformat() if hasattr(value, "isoformat") else value
    return out


class DecideForm(FriendlyRequiredMixin, forms.Form):
    approved = forms.TypedChoiceField(label="Decisão", choices=[("1", "Deferir"), ("0", "Indeferir")],
                                      coerce=lambda v: v == "1", widget=forms.RadioSelect)
    reason = forms.CharField(label="Fundamentação", required=False, max_length=4000,
                             widget=forms.Textarea(attrs={"rows": 3}),
                             help_text="Obrigatória para indeferir.")


class InspectionForm(FriendlyRequiredMixin, forms.Form):
    notes = forms.CharField(label="Observações", required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 2}))
    approved = forms.BooleanField(label="Vistoria aprovada", required=False)

    def __init__(self, *args, items=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.item_codes = []
        for item in items:
            name = f"item_{item['code']}"
            self.fields[name] = forms.BooleanField(label=item["label"], required=False, help_text=item.get("legal_basis", ""))
            self.item_codes.append((name, item["code"]))


class QueueFilterForm(FriendlyRequiredMixin, forms.Form):
    status = forms.ChoiceField(label="Situação", required=False, choices=[("", "Todas")] + list(RequestStatus.choices))
    kind = forms.ChoiceField(label="Tipo", required=False, choices=[("", "Todos")] + list(RequestKind.choices))
    q = forms.CharField(label="Busca", required=False, max_length=80, help_text="Protocolo, autorização, nome ou placa.")


class ReturnForm(FriendlyRequiredMixin, forms.Form):
    returned_on = _date("Data do retorno")
