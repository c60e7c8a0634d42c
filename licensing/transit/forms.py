"""Forms of the collective transport pages (labels and hints in pt-BR)."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from django import forms

from licensing.transit.citations import CitesTheLaw
from licensing.transit.models import Concessionaire, FareZone, km_text
from licensing.transit.rules import Segment
from portal.validators import only_digits, validate_cnpj, validate_cpf

DATE_FORMATS = ["%d/%m/%Y", "%Y-%m-%d"]
SCHEDULE_HINT = "Horários de partida separados por espaço ou vírgula, no formato HH:MM (ex.: 05:30 06:15 07:00)."
SEGMENTS_HINT = ("Um trecho por linha, na ordem do percurso: parada de origem; parada de destino; extensão em km; "
                 "urbano ou rural. Ex.: Rodoviária; Praça Central; 2,4; urbano")


def date_field(label: str, required: bool = True, help_text: str = "No formato DD/MM/AAAA.") -> forms.DateField:
    return forms.DateField(label=label, required=required, input_formats=DATE_FORMATS, help_text=help_text,
                           widget=forms.DateInput(attrs={"inputmode": "numeric", "placeholder": "DD/MM/AAAA"}))


def text_area(rows: int = 3) -> forms.Textarea:
    return forms.Textarea(attrs={"rows": rows})


def yes_no(label: str) -> forms.TypedChoiceField:
    return forms.TypedChoiceField(label=label, choices=[("1", "Sim"), ("0", "Não")], coerce=lambda v: v == "1",
                                  widget=forms.RadioSelect)


def parse_segments(raw: str) -> list[Segment]:
    zones = {"urbano": FareZone.URBAN, "urban": FareZone.URBAN, "rural": FareZone.RURAL}
    out = []
    for n, line in enumerate((raw or "").splitlines(), start=1):
        if not line.strip():
            continue
        parts = [p.strip() for p in line.split(";")]
        if len(parts) not in (3, 4):
            raise forms.ValidationError(f"Linha {n}: use origem; destino; km; zona (separados por ponto e vírgula).")
        try:
            km = Decimal(parts[2].replace(",", "."))
        except InvalidOperation as exc:
            raise forms.ValidationError(f"Linha {n}: a extensão deve ser um número em km (ex.: 2,4).") from exc
        if km <= 0 or km > 1000:
            raise forms.ValidationError(f"Linha {n}: a extensão deve ser maior que zero e até 1000 km.")
        zone = zones.get((parts[3] if len(parts) == 4 else "urbano").casefold())
        if zone is None:
            raise forms.ValidationError(f"Linha {n}: a zona deve ser urbano ou rural.")
        if not parts[0] or not parts[1]:
            raise forms.ValidationError(f"Linha {n}: informe a parada de origem e a de destino.")
        out.append(Segment(parts[0], parts[1], km, zone))
    if not out:
        raise forms.ValidationError("Informe ao menos um trecho do itinerário.")
    return out


def segments_text(segments) -> str:
    label = {FareZone.URBAN: "urbano", FareZone.RURAL: "rural"}
    return "\n".join(
        f"{s.origin}; {s.destination}; {km_text(s.length_km)}; {label.get(s.zone, s.zone)}" for s in segments
    )


def parse_times(raw: str) -> list[str]:
    items = [t for t in re.split(r"[\s,;]+", raw or "") if t]
    for t in items:
        if not re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d", t):
            raise forms.ValidationError(f"Horário inválido: {t}. Use HH:MM (ex.: 06:15).")
    return sorted(set(items))


class ScheduleMixin(forms.Form):
    weekday = forms.CharField(label="Partidas em dias úteis", required=False, help_text=SCHEDULE_HINT,
                              widget=text_area(2))
    saturday = forms.CharField(label="Partidas aos sábados", required=False, widget=text_area(2))
    sunday = forms.CharField(label="Partidas aos domingos e feriados", required=False, widget=text_area(2))

    def clean_weekday(self):
        return parse_times(self.cleaned_data.get("weekday", ""))

    def clean_saturday(self):
        return parse_times(self.cleaned_data.get("saturday", ""))

    def clean_sunday(self):
        return parse_times(self.cleaned_data.get("sunday", ""))

    def schedule(self) -> dict:
        return {k: self.cleaned_data[k] for k in ("weekday", "saturday", "sunday") if self.cleaned_data.get(k)}


class ConcessionaireForm(forms.Form):
    legal_name = forms.CharField(label="Razão social", max_length=200)
    trade_name = forms.CharField(label="Nome fantasia", max_length=200, required=False)
    cnpj = forms.CharField(label="CNPJ", max_length=18, help_text="14 dígitos, com ou sem pontuação.",
                           widget=forms.TextInput(attrs={"inputmode": "numeric"}))
    registry_number = forms.CharField(label="Registro na Junta Comercial (NIRE)", max_length=30)
    municipal_registration = forms.CharField(label="Inscrição municipal", max_length=30, required=False)
    address = forms.CharField(label="Endereço da sede", max_length=300)
    email = forms.EmailField(label="E-mail", required=False)
    phone = forms.CharField(label="Telefone", max_length=20, required=False,
                            widget=forms.TextInput(attrs={"inputmode": "tel"}))
    representative_name = forms.CharField(label="Representante legal", max_length=200)
    representative_cpf = forms.CharField(label="CPF do representante legal", max_length=14,
                                         widget=forms.TextInput(attrs={"inputmode": "numeric"}))
    representative_role = forms.CharField(label="Cargo do representante", max_length=100, required=False)

    def clean_cnpj(self):
        value = self.cleaned_data["cnpj"]
        validate_cnpj(value)
        if Concessionaire.objects.filter(cnpj=only_digits(value)).exists():
            raise forms.ValidationError("Já existe uma empresa com este CNPJ.")
        return only_digits(value)

    def clean_representative_cpf(self):
        value = self.cleaned_data["representative_cpf"]
        validate_cpf(value)
        return only_digits(value)


class ConcessionForm(CitesTheLaw, forms.Form):
    object = forms.CharField(label="Objeto da concessão", widget=text_area(3),
                             help_text="Descrição do serviço concedido ({concession_object}).")
    category = forms.ChoiceField(label="Categoria do veículo", choices=())
    justification_act = forms.CharField(label="Ato de justificação da outorga", max_length=200, required=False,
                                        help_text="Publicado na imprensa oficial ({concession_object}).")
    bidding_reference = forms.CharField(label="Licitação (concorrência)", max_length=100,
                                        help_text="Ex.: Concorrência Pública nº 1/2026.")
    bidding_closed_on = date_field("Encerramento da licitação")
    first = forms.ModelChoiceField(label="1ª classificada (vencedora)", queryset=Concessionaire.objects.none())
    second = forms.ModelChoiceField(label="2ª classificada", queryset=Concessionaire.objects.none(), required=False)
    third = forms.ModelChoiceField(label="3ª classificada", queryset=Concessionaire.objects.none(), required=False)
    fourth = forms.ModelChoiceField(label="4ª classificada", queryset=Concessionaire.objects.none(), required=False)

    def __init__(self, *args, categories: list[dict], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["category"].choices = [(c["code"], c["label"]) for c in categories]
        for name in ("first", "second", "third", "fourth"):
            self.fields[name].queryset = Concessionaire.objects.order_by("legal_name")

    def classified(self) -> list[Concessionaire]:
        return [self.cleaned_data[n] for n in ("first", "second", "third", "fourth") if self.cleaned_data.get(n)]


class ContractForm(forms.Form):
    signed_on = date_field("Data da assinatura do contrato")
    contract_number = forms.CharField(label="Número do contrato", max_length=40)


class StartForm(forms.Form):
    started_on = date_field("Data de início do serviço")


class ConfirmForm(CitesTheLaw, forms.Form):
    confirm = forms.BooleanField(label="Confirmo a renovação por igual período ({renewal})")


class ReasonForm(forms.Form):
    reason = forms.CharField(label="Motivo", widget=text_area(3))


class ClausesForm(forms.Form):
    clauses = forms.MultipleChoiceField(label="Cláusulas essenciais presentes no contrato", required=False,
                                        widget=forms.CheckboxSelectMultiple, choices=())

    def __init__(self, *args, clauses: list[dict], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["clauses"].choices = [(c["code"], f"{c['code']} — {c['label']}") for c in clauses]


class ExtinguishForm(CitesTheLaw, forms.Form):
    cause = forms.ChoiceField(label="Causa da extinção", choices=())
    act = forms.CharField(label="Ato que declara a extinção", max_length=200,
                          help_text="Decreto, lei ou decisão, com número e data.")
    extinct_on = date_field("Data da extinção")
    authorizing_law = forms.CharField(label="Lei autorizativa (encampação)", max_length=200, required=False)
    indemnity_paid = forms.BooleanField(label="Indenização prévia paga (encampação, {expropriation})", required=False)
    judicial_decision = forms.CharField(label="Decisão judicial transitada em julgado ({judicial_rescission})", max_length=200,
                                        required=False)
    notes = forms.CharField(label="Observações", required=False, widget=text_area(3))

    def __init__(self, *args, causes: list[dict], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["cause"].choices = [(c["code"], f"{c['label']} ({c['legal_basis']})") for c in causes]


class LineForm(ScheduleMixin):
    code = forms.CharField(label="Código da linha", max_length=20, help_text="Ex.: L01.")
    name = forms.CharField(label="Nome da linha", max_length=200, help_text="Ex.: Centro — Rive.")
    segments = forms.CharField(label="Itinerário (trechos)", help_text=SEGMENTS_HINT, widget=text_area(6))

    field_order = ["code", "name", "segments", "weekday", "saturday", "sunday"]

    def clean_segments(self):
        return parse_segments(self.cleaned_data["segments"])


class ItineraryChangeForm(ScheduleMixin):
    segments = forms.CharField(label="Novo itinerário (trechos)", help_text=SEGMENTS_HINT, widget=text_area(8))
    reason = forms.CharField(label="Justificativa", widget=text_area(3))

    field_order = ["segments", "weekday", "saturday", "sunday", "reason"]

    def clean_segments(self):
        return parse_segments(self.cleaned_data["segments"])


class ApproveForm(CitesTheLaw, forms.Form):
    amendment_reference = forms.CharField(label="Termo aditivo", max_length=100,
                                          help_text="Número do aditivo contratual que formaliza a alteração ({itinerary_change}).")
    announced_on = date_field("Anunciada ao público em")
    effective_from = date_field("Vigora a partir de")


class FareForm(CitesTheLaw, forms.Form):
    zone = forms.ChoiceField(label="Trecho", choices=FareZone.choices, help_text="Urbano ou rural ({zones}).")
    amount = forms.DecimalField(label="Valor da passagem (R$)", max_digits=8, decimal_places=2, min_value=Decimal("0.01"),
                                localize=True, widget=forms.TextInput(attrs={"inputmode": "decimal"}))
    decree = forms.CharField(label="Decreto", max_length=100, help_text="A alteração das passagens é objeto de decreto ({fares}).")
    announced_on = date_field("Anunciada em")
    effective_from = date_field("Vigora a partir de")


class BusForm(forms.Form):
    plate = forms.CharField(label="Placa", max_length=8, help_text="Placa no formato ABC1D23 ou ABC-1234.")
    category = forms.ChoiceField(label="Categoria", choices=())
    seated = forms.IntegerField(label="Lugares sentados", min_value=0, max_value=200)
    standing = forms.IntegerField(label="Lugares em pé", min_value=0, max_value=200, initial=0)
    make = forms.CharField(label="Marca", max_length=60, required=False)
    model = forms.CharField(label="Modelo", max_length=80, required=False)
    manufacture_year = forms.IntegerField(label="Ano de fabricação", min_value=1950, max_value=2100, required=False)

    def __init__(self, *args, categories: list[dict], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["category"].choices = [(c["code"], c["label"]) for c in categories]


class InterventionForm(CitesTheLaw, forms.Form):
    decree = forms.CharField(label="Decreto de intervenção", max_length=100)
    declared_on = date_field("Data do decreto")
    interventor = forms.CharField(label="Interventor designado", max_length=200)
    term_days = forms.IntegerField(label="Prazo da intervenção (dias)", min_value=1, max_value=3650)
    objectives = forms.CharField(label="Objetivos e limites da medida", widget=text_area(3))
    grounds = forms.MultipleChoiceField(label="Motivos ({intervention_grounds})", required=False,
                                        widget=forms.CheckboxSelectMultiple, choices=())

    def __init__(self, *args, grounds: list[dict], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["grounds"].choices = [(g["code"], f"{g['code']}) {g['label']}") for g in grounds]


class ProcedureForm(forms.Form):
    opened_on = date_field("Instaurado em")
    reference = forms.CharField(label="Número do processo administrativo", max_length=100)


class InterventionConcludeForm(forms.Form):
    concluded_on = date_field("Concluído em")
    upheld = yes_no("As causas da intervenção foram comprovadas?")
    conclusion = forms.CharField(label="Conclusão", widget=text_area(4))


class DefaultForm(CitesTheLaw, forms.Form):
    grounds = forms.MultipleChoiceField(label="Fundamentos ({default_grounds})", widget=forms.CheckboxSelectMultiple,
                                        choices=())
    details = forms.CharField(label="Descumprimentos comunicados, em detalhe", widget=text_area(5))
    notified_on = date_field("Comunicada à delegatária em")
    cure_days = forms.IntegerField(label="Prazo para corrigir as falhas (dias)", min_value=1, max_value=365,
                                   help_text="Prazo razoável, observado o contrato ({default_notice}).")

    def __init__(self, *args, grounds: list[dict], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["grounds"].choices = [(g["code"], f"{g['code']} — {g['label']}") for g in grounds]


class DefaultConcludeForm(forms.Form):
    proven = yes_no("A inadimplência foi comprovada?")
    decision = forms.CharField(label="Decisão fundamentada", widget=text_area(4))
    concluded_on = date_field("Decidido em")


class ComplaintForm(forms.Form):
    text = forms.CharField(label="Sua reclamação", max_length=5000, widget=text_area(6),
                           help_text="Conte o que aconteceu: horário, ponto, veículo (placa), atendimento.")
    occurred_on = date_field("Data do ocorrido", required=False)
    name = forms.CharField(label="Seu nome", max_length=200, required=False, help_text="Opcional.")
    contact = forms.CharField(label="E-mail ou telefone para resposta", max_length=200, required=False,
                              help_text="Opcional. Só a Prefeitura vê este dado.")


class AnswerForm(forms.Form):
    answer = forms.CharField(label="Resposta ao usuário", max_length=5000, widget=text_area(5))


class FareQuoteForm(forms.Form):
    zone = forms.ChoiceField(label="Trecho", choices=FareZone.choices, required=False)
    student = forms.BooleanField(label="Estudante (passagem com desconto)", required=False)
    at = date_field("Data da viagem", required=False, help_text="DD/MM/AAAA. Vazio: hoje.")


class ComplaintLookupForm(forms.Form):
    protocolo = forms.CharField(label="Protocolo", max_length=20, help_text="No formato AAAA/NNNNNN.")
    codigo = forms.CharField(label="Código de consulta", max_length=20,
                             help_text="O código mostrado quando a reclamação foi registrada (XXXX-XXXX-XXXX).")
