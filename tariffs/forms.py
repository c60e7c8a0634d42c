"""Forms of the fare calculator (shared by the page and the API) and of a new tariff table."""

from __future__ import annotations

import json
import re
from datetime import datetime, time
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from django import forms

from portal.forms import BrDateInput
from tariffs import rules
from tariffs.models import TariffModality, TariffStructure

ZONE_CHOICES = [("urban", "Urbana"), ("rural", "Rural")]


class QuoteForm(forms.Form):
    """Inputs of a fare quote. ``at`` (ISO 8601) or ``date`` + ``time``; defaults to now."""

    modality = forms.ChoiceField(label="Serviço", choices=TariffModality.choices, required=False)
    km = forms.CharField(
        label="Distância (km)",
        max_length=20,
        required=False,
        help_text="Quilômetros da corrida, por exemplo 10 ou 7,5.",
        widget=forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"}),
    )
    date = forms.DateField(
        label="Data da corrida",
        required=False,
        input_formats=["%Y-%m-%d", "%d/%m/%Y"],
        help_text="Deixe em branco para hoje.",
        widget=BrDateInput(),
    )
    time = forms.TimeField(
        label="Horário de início",
        required=False,
        input_formats=["%H:%M", "%H:%M:%S"],
        help_text="Deixe em branco para agora.",
        widget=forms.TimeInput(attrs={"type": "time"}),
    )
    waiting_minutes = forms.CharField(
        label="Tempo de espera (minutos)",
        max_length=6,
        required=False,
        help_text="Minutos parados a pedido do passageiro.",
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )
    line = forms.ChoiceField(
        label="Linha de ônibus",
        choices=[("", "Tabela geral do ônibus")],
        required=False,
        help_text="A passagem da linha é a fixada por decreto para ela.",
    )
    zone = forms.ChoiceField(label="Trecho (ônibus)", choices=ZONE_CHOICES, required=False)
    student = forms.BooleanField(label="Estudante (ônibus: paga meia passagem)", required=False)
    at = forms.CharField(required=False, widget=forms.HiddenInput, max_length=40)

    def __init__(
        self,
        *args,
        modalities: list[str] | None = None,
        km_optional_for: tuple[str, ...] = (),
        lines: list | None = None,
        line_required: bool = False,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self.line_required = line_required
        if lines:
            blank = "Escolha a linha" if line_required else "Tabela geral do ônibus"
            self.fields["line"].choices = [("", blank)] + [
                (str(ln.pk), f"{ln.code} — {ln.name}") for ln in lines
            ]
        else:
            del self.fields["line"]
        if modalities:
            self.fields["modality"].choices = [
                (m, dict(TariffModality.choices)[m]) for m in modalities
            ]
        self.km_optional_for = km_optional_for

    def clean_km(self) -> Decimal | None:
        raw = (self.cleaned_data.get("km") or "").strip().replace(" ", "")
        if not raw:
            return None
        if "," in raw:
            raw = raw.replace(".", "").replace(",", ".")
        try:
            km = Decimal(raw)
        except InvalidOperation:
            raise forms.ValidationError(
                "Informe a distância em quilômetros, só com números (ex.: 7,5)."
            ) from None
        if not km.is_finite():
            raise forms.ValidationError(
                "Informe a distância em quilômetros, só com números (ex.: 7,5)."
            )
        if km < 0:
            raise forms.ValidationError("A distância não pode ser negativa.")
        if km > rules.MAX_KM:
            raise forms.ValidationError("Distância acima de 1.000 km: confira o valor informado.")
        return km.quantize(Decimal("0.001"), rounding=ROUND_HALF_UP)

    def clean_waiting_minutes(self) -> int:
        raw = (self.cleaned_data.get("waiting_minutes") or "").strip()
        if not raw:
            return 0
        if not raw.isdigit():
            raise forms.ValidationError("Informe o tempo de espera em minutos inteiros (ex.: 15).")
        minutes = int(raw)
        if minutes > rules.MAX_WAITING_MINUTES:
            raise forms.ValidationError(
                "Tempo de espera acima de 24 horas: confira o valor informado."
            )
        return minutes

    def clean_at(self) -> datetime | None:
        raw = (self.cleaned_data.get("at") or "").strip()
        if not raw:
            return None
        # an unencoded "+03:00" in a query string arrives as " 03:00"
        raw = re.sub(r"(\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?) (\d{2}(?::?\d{2})?)$", r"\1+\2", raw)
        try:
            return datetime.fromisoformat(raw)
        except ValueError:
            raise forms.ValidationError(
                "Data e hora inválidas: use o formato AAAA-MM-DDTHH:MM:SS-03:00."
            ) from None

    def clean(self):
        data = super().clean()
        modality = data.get("modality") or (
            self.fields["modality"].choices[0][0] if self.fields["modality"].choices else ""
        )
        data["modality"] = modality
        if modality != "bus":
            data["line"] = ""
        elif "line" in self.fields and not data.get("line") and self.line_required:
            self.add_error("line", "Escolha a linha de ônibus: a passagem é a fixada para cada linha.")
        if "km" in data and data.get("km") is None and modality not in self.km_optional_for:
            self.add_error("km", "Informe a distância da corrida em quilômetros.")
        if data.get("at") is None and data.get("date"):
            data["at"] = datetime.combine(data["date"], data.get("time") or time(12, 0))
        elif data.get("at") is None and data.get("time"):
            data["time_only"] = data["time"]
        return data


class TariffPublishForm(forms.Form):
    modality = forms.ChoiceField(label="Serviço", choices=TariffModality.choices)
    decree = forms.CharField(
        label="Decreto",
        max_length=200,
        help_text="Número e ano, por exemplo: Decreto nº 1.234/2026.",
    )
    published_on = forms.DateField(
        label="Data de publicação",
        input_formats=["%Y-%m-%d", "%d/%m/%Y"],
        widget=BrDateInput(),
    )
    effective_from = forms.DateField(
        label="Em vigor a partir de",
        input_formats=["%Y-%m-%d", "%d/%m/%Y"],
        help_text="Não pode ser anterior à publicação; ônibus: ao menos o prazo de antecedência da lei.",
        widget=BrDateInput(),
    )
    structure = forms.ChoiceField(label="Estrutura da tarifa", choices=TariffStructure.choices)
    components = forms.CharField(
        label="Valores da tabela (JSON)",
        widget=forms.Textarea(attrs={"rows": 8, "spellcheck": "false"}),
        help_text='Valores em reais entre aspas, com ponto decimal. Ex.: {"base": "14.99", "per_km": "1.60"}.',
    )
    legal_basis = forms.CharField(
        label="Base legal", max_length=300, help_text="Artigo da lei que autoriza a tarifa."
    )
    is_example = forms.BooleanField(
        label="Valores de exemplo (ainda não confirmados)", required=False
    )

    def __init__(self, *args, modalities: list[str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        if modalities:
            self.fields["modality"].choices = [
                (m, dict(TariffModality.choices)[m]) for m in modalities
            ]

    def clean_components(self) -> dict:
        raw = self.cleaned_data.get("components") or ""
        try:
            value = json.loads(raw)
        except ValueError:
            raise forms.ValidationError(
                "Os valores não estão em JSON válido: confira aspas, vírgulas e chaves."
            ) from None
        if not isinstance(value, dict):
            raise forms.ValidationError(
                'Informe um objeto JSON, por exemplo {"base": "14.99", "per_km": "1.60"}.'
            )
        return value

    def clean(self):
        data = super().clean()
        if data.get("structure") and isinstance(data.get("components"), dict):
            for error in rules.component_errors(data["structure"], data["components"]):
                self.add_error("components", error)
        return data
