"""Forms of the application pages (labels in Portuguese; the services judge the rules)."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError

from fleet.forms import CnhFieldsMixin, clean_cnh_category, clean_cnh_number, cnh_fields
from licensing.applications.entry import holder_types
from licensing.applications.models import ApplicantProfile, ApplicationKind, Schooling
from licensing.grants.models import HolderType, Modality
from portal import regulation
from portal.exceptions import RuleViolation, RuleViolations
from portal.forms import BR_DATE_FORMATS, BrDateInput, FriendlyRequiredMixin
from portal.refusals import refusal_status
from portal.validators import normalize_plate, only_digits, validate_plate, validate_renavam

DATE_FORMATS = BR_DATE_FORMATS


def date_field(label: str, required: bool = True, help_text: str = "No formato DD/MM/AAAA.") -> forms.DateField:
    return forms.DateField(label=label, required=required, input_formats=DATE_FORMATS, help_text=help_text,
                           widget=BrDateInput())


def apply_errors(form: forms.Form, exc: Exception, mapping: dict[str, str] | None = None) -> int:
    """Put a service's ValidationError / RuleViolations on the form's fields (or the form); returns
    the status to answer with (portal.refusals: 409 for a conflict with the state, 400 for input)."""
    mapping = mapping or {}

    def place(field: str, message: str) -> None:
        name = mapping.get(field, field.split(".")[-1] if field.count(".") == 1 else field)
        if name in form.fields and name not in (form.errors or {}):
            form.add_error(name, message)
        elif name in form.fields:
            form.errors[name].append(message)
        else:
            form.add_error(None, message)

    if isinstance(exc, RuleViolations):
        for v in exc.violations:
            place(v.field, str(v))
    elif isinstance(exc, RuleViolation):
        place(exc.field, str(exc))
    elif isinstance(exc, ValidationError) and hasattr(exc, "message_dict"):
        for field, messages in exc.message_dict.items():
            for m in messages:
                place("non_field_errors" if field == "__all__" else field, m)
    elif isinstance(exc, ValidationError):
        for m in exc.messages:
            form.add_error(None, m)
    else:
        form.add_error(None, str(exc))
    return refusal_status(exc)


def modality_choices() -> list[tuple[str, str]]:
    pack = regulation.current()
    return [(m.value, pack.modality_label(m.value)) for m in Modality if pack.has_modality(m.value)]


class ProfileForm(CnhFieldsMixin, forms.ModelForm):
    residence_since = date_field("Reside no município desde", required=False)
    cnh_number, cnh_category, cnh_first_issued, cnh_ear = cnh_fields(required=False, date_field=date_field).values()

    class Meta:
        model = ApplicantProfile
        fields = ["address", "district", "residence_since", "cnh_number", "cnh_category", "cnh_first_issued",
                  "cnh_ear", "cnh_points", "schooling", "dependents", "inss_number"]
        help_texts = {"dependents": "Quantas pessoas dependem da sua renda.",
                      "inss_number": "NIT ou PIS, como no cartão do INSS."}
        widgets = {"inss_number": forms.TextInput(attrs={"inputmode": "numeric"})}


class ModalityForm(FriendlyRequiredMixin, forms.Form):
    modality = forms.ChoiceField(label="Modalidade", widget=forms.RadioSelect)
    kind = forms.ChoiceField(label="Tipo de pedido", choices=ApplicationKind.choices, initial=ApplicationKind.NEW,
                             widget=forms.RadioSelect)
    bid_amount = forms.DecimalField(label="Valor da oferta (R$)", max_digits=12, decimal_places=2, min_value=0,
                                    required=False, help_text="Somente quando a seleção é por licitação.")

    holder_type = forms.ChoiceField(label="Requerer como", choices=HolderType.choices, initial=HolderType.PF,
                                    required=False, widget=forms.RadioSelect)  # not sent = pessoa física
    company_name = forms.CharField(label="Razão social", max_length=200, required=False,
                                   help_text="Somente para pessoa jurídica: como consta no contrato social.")
    cnpj = forms.CharField(label="CNPJ", max_length=18, required=False,
                           help_text="Somente para pessoa jurídica: os 14 dígitos, com ou sem pontuação.",
                           widget=forms.TextInput(attrs={"inputmode": "numeric"}))

    def __init__(self, *args, bidding: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["modality"].choices = modality_choices()
        # a modality the law leaves to a decree not yet in force: not offered; said why (with the article)
        pack = regulation.current()
        self.closed_modalities = [str(r) for r in (pack.modality_refusal(m) for m in pack.modalities) if r is not None]
        if not bidding:
            del self.fields["bid_amount"]
        # a company is offered only where the pack's law admits it (grant.holder_types, e.g. Lei 724/2008,
        # art. 2); the service still judges the chosen modality (a pf-only one refuses "pj")
        self.company_basis = next((pack.basis("grant.holder_types", m) for m in pack.in_force_modalities
                                   if HolderType.PJ in holder_types(pack, m)), None)
        if self.company_basis is None:
            for name in ("holder_type", "company_name", "cnpj"):
                del self.fields[name]

    def holder(self) -> dict | None:
        """The holder fields for the service. Where the form does not offer a company, a posted
        "pj" still goes to the service, which refuses it with the pack's article."""
        if "holder_type" not in self.fields:
            posted = self.data.get("holder_type")
            return {"holder_type": posted} if posted and posted != HolderType.PF else None
        return {k: self.cleaned_data.get(k) for k in ("holder_type", "company_name", "cnpj")}

    def add_error(self, field, error):
        # a posted modality that waits for its decree: the refusal with its article, not "escolha válida"
        if field == "modality" and self.data.get("modality") in regulation.current().modalities:
            refusal = regulation.current().modality_refusal(self.data["modality"])
            if refusal is not None:
                error = str(refusal)
        super().add_error(field, error)


class VehicleForm(FriendlyRequiredMixin, forms.Form):
    plate = forms.CharField(label="Placa", max_length=8, help_text="Placa no formato ABC1D23 ou ABC-1234.")
    renavam = forms.CharField(label="RENAVAM", max_length=11, help_text="Os 11 dígitos do documento do veículo (CRLV).",
                              widget=forms.TextInput(attrs={"inputmode": "numeric"}))
    make = forms.CharField(label="Marca", max_length=60)
    model = forms.CharField(label="Modelo", max_length=80)
    color = forms.CharField(label="Cor", max_length=40, help_text="Como consta no CRLV.")
    manufacture_year = forms.IntegerField(label="Ano de fabricação", min_value=1950, max_value=2100,
                                          widget=forms.NumberInput(attrs={"inputmode": "numeric"}))
    first_registration_date = date_field("Data do primeiro licenciamento (CRLV)", required=False)
    doors = forms.IntegerField(label="Número de portas", min_value=0, max_value=10, required=False)
    seats = forms.IntegerField(label="Lugares, incluindo o motorista", min_value=1, max_value=60, required=False)
    engine_cc = forms.IntegerField(label="Cilindrada (cc)", min_value=0, max_value=20000, required=False)

    def clean_plate(self):
        value = self.cleaned_data["plate"]
        validate_plate(value)
        return normalize_plate(value)

    def clean_renavam(self):
        value = self.cleaned_data["renavam"]
        validate_renavam(value)
        return only_digits(value)


class DriverForm(CnhFieldsMixin, FriendlyRequiredMixin, forms.Form):
    cnh_number, cnh_category, cnh_first_issued, cnh_ear = cnh_fields(
        ear_label="Minha CNH tem a observação EAR (exerce atividade remunerada)", date_field=date_field).values()
    cnh_points = forms.IntegerField(label="Pontos na CNH (últimos 12 meses)", min_value=0, max_value=100, required=False)
    schooling = forms.TypedChoiceField(label="Escolaridade", choices=[("", "—")] + list(Schooling.choices),
                                       coerce=int, empty_value=None, required=False)
    dependents = forms.IntegerField(label="Dependentes", min_value=0, max_value=30, required=False)


AUX_FIELDS = ("cpf", "name", "birth_date", "cnh_number", "cnh_category", "cnh_first_issued", "cnh_ear")


class AuxiliariesForm(forms.Form):
    """One group of fields per auxiliary driver, up to the pack's limit; empty groups are ignored."""

    def __init__(self, *args, slots: int = 2, **kwargs):
        super().__init__(*args, **kwargs)
        self.slots = slots
        for i in range(1, slots + 1):
            self.fields[f"aux{i}_name"] = forms.CharField(label=f"Auxiliar {i}: nome completo", max_length=200,
                                                          required=False)
            self.fields[f"aux{i}_cpf"] = forms.CharField(label=f"Auxiliar {i}: CPF", max_length=14, required=False,
                                                         widget=forms.TextInput(attrs={"inputmode": "numeric"}))
            # the auxiliary meets the holder's requirements, the minimum age among them
            self.fields[f"aux{i}_birth_date"] = date_field(f"Auxiliar {i}: data de nascimento", required=False)
            self.fields.update(cnh_fields(prefix=f"aux{i}_", label_prefix=f"Auxiliar {i}", required=False,
                                          ear_label="CNH com EAR", date_field=date_field))

    def groups(self):
        return [[self[f"aux{i}_{f}"] for f in ("name", "cpf", "birth_date", "cnh_number", "cnh_category",
                                                "cnh_first_issued", "cnh_ear")] for i in range(1, self.slots + 1)]

    def clean(self):
        data = super().clean()
        self.auxiliaries = []
        for i in range(1, self.slots + 1):
            values = {f: data.get(f"aux{i}_{f}") for f in AUX_FIELDS}
            if not any(values[f] for f in ("cpf", "name", "cnh_number")):
                continue
            for f in ("cpf", "name", "cnh_category", "cnh_first_issued"):
                if not values[f]:
                    self.add_error(f"aux{i}_{f}", "Preencha este campo para o auxiliar (ou deixe o grupo todo vazio).")
            try:
                values["cnh_number"] = clean_cnh_number(values["cnh_number"])
            except ValidationError as exc:
                self.add_error(f"aux{i}_cnh_number", exc)
            values["cnh_category"] = clean_cnh_category(values["cnh_category"])
            self.auxiliaries.append(values)
        return data


class UploadForm(forms.Form):
    type = forms.CharField(widget=forms.HiddenInput)
    file = forms.FileField(label="Arquivo (PDF, JPEG ou PNG)")


class ReviewForm(FriendlyRequiredMixin, forms.Form):
    accepted = forms.TypedChoiceField(label="Decisão", choices=[("1", "Aceitar"), ("0", "Recusar")],
                                      coerce=lambda v: v == "1", widget=forms.RadioSelect)
    reason = forms.CharField(label="Motivo (obrigatório para recusar)", required=False,
                             widget=forms.Textarea(attrs={"rows": 2}))
    valid_until = forms.DateField(label="Válido até (se o documento tem validade)", required=False,
                                  input_formats=["%d/%m/%Y", "%Y-%m-%d"])


class RequirementForm(FriendlyRequiredMixin, forms.Form):
    text = forms.CharField(label="Exigência", widget=forms.Textarea(attrs={"rows": 3}),
                           help_text="Diga o que o requerente precisa enviar ou corrigir.")
    document_type = forms.ChoiceField(label="Documento relacionado", required=False)
    due_date = date_field("Prazo", required=False)

    def __init__(self, *args, document_choices=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["document_type"].choices = [("", "Nenhum em especial")] + list(document_choices)


class ScheduleForm(FriendlyRequiredMixin, forms.Form):
    agent = forms.ModelChoiceField(label="Agente", queryset=None)
    date = date_field("Data da vistoria")
    time = forms.TimeField(label="Horário", input_formats=["%H:%M"], help_text="No formato HH:MM.",
                           widget=forms.TimeInput(format="%H:%M", attrs={"inputmode": "numeric", "placeholder": "HH:MM"}))
    location = forms.CharField(label="Local", max_length=200,
                               help_text="Onde o veículo deve ser apresentado; o requerente vê no painel.")

    def __init__(self, *args, **kwargs):
        from portal.roles import Role, staff_users

        super().__init__(*args, **kwargs)
        self.fields["agent"].queryset = staff_users(Role.AGENT).order_by("name")  # this municipality's
        office = regulation.current().municipality.get("office", "")
        self.fields["location"].initial = office

    def clean_date(self):
        value = self.cleaned_data["date"]
        if value < regulation.current().today():
            raise ValidationError("A vistoria deve ser marcada para hoje ou uma data futura.")
        return value


class RejectForm(FriendlyRequiredMixin, forms.Form):
    reason = forms.CharField(label="Motivo do indeferimento", widget=forms.Textarea(attrs={"rows": 3}),
                             help_text="Cite o artigo da lei quando for o caso.")


class CallForm(FriendlyRequiredMixin, forms.Form):
    modality = forms.ChoiceField(label="Modalidade")
    start = date_field("Início")
    end = date_field("Fim")
    slots = forms.IntegerField(label="Vagas", min_value=1, max_value=100_000, required=False,
                               help_text="Deixe em branco para usar as vagas livres da cota.")
    min_bid = forms.DecimalField(label="Oferta mínima (R$)", min_value=0, max_digits=12, decimal_places=2,
                                 required=False, help_text="Somente quando a seleção é por licitação.")
    title = forms.CharField(label="Título", max_length=200, required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["modality"].choices = modality_choices()


class InspectionResultForm(FriendlyRequiredMixin, forms.Form):
    approved = forms.TypedChoiceField(label="Resultado", choices=[("1", "Aprovada"), ("0", "Reprovada")],
                                      coerce=lambda v: v == "1", widget=forms.RadioSelect)
    notes = forms.CharField(label="Observações", required=False, widget=forms.Textarea(attrs={"rows": 3}))

    def __init__(self, *args, items=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.items = list(items)
        for item in self.items:
            self.fields[f"item_{item['code']}"] = forms.BooleanField(label=item["label"], required=False,
                                                                      help_text=item["legal_basis"])

    def checklist(self) -> dict:
        return {i["code"]: bool(self.cleaned_data.get(f"item_{i['code']}")) for i in self.items}


class QueueFilterForm(forms.Form):
    fila = forms.ChoiceField(label="Fila", required=False)
    status = forms.ChoiceField(label="Situação", required=False)
    modality = forms.ChoiceField(label="Modalidade", required=False)
    protocol = forms.CharField(label="Protocolo", required=False, max_length=12)
    cpf = forms.CharField(label="CPF", required=False, max_length=14, widget=forms.TextInput(attrs={"inputmode": "numeric"}))
    plate = forms.CharField(label="Placa", required=False, max_length=8)
    date_from = date_field("Protocolado desde", required=False, help_text="")
    date_to = date_field("Protocolado até", required=False, help_text="")
    order = forms.ChoiceField(label="Ordenar por", required=False, choices=[
        ("submitted_at", "Mais antigos primeiro"), ("-submitted_at", "Mais recentes primeiro"),
        ("protocol", "Protocolo"), ("status", "Situação")])

    def __init__(self, *args, **kwargs):
        from licensing.applications.models import ApplicationStatus

        super().__init__(*args, **kwargs)
        from licensing.applications.desk_queues import QUEUE_CHOICES

        self.fields["fila"].choices = [("", "Todas")] + QUEUE_CHOICES
        self.fields["status"].choices = [("", "Todas (exceto rascunhos)")] + list(ApplicationStatus.choices)
        self.fields["modality"].choices = [("", "Todas")] + modality_choices()
