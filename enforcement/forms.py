"""Forms of enforcement: labels in Portuguese, hints under labels, phone-friendly widgets."""

from __future__ import annotations

import uuid

from django import forms
from django.utils import timezone

from portal import regulation
from portal.forms import BrDateInput, FriendlyRequiredMixin
from portal.validators import validate_plate


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    widget = MultipleFileInput

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("required", False)
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        if not data:
            return []
        items = data if isinstance(data, list | tuple) else [data]
        return [super(MultipleFileField, self).clean(item, initial) for item in items]


def _catalogue_choices(modality: str | None = None) -> list[tuple[str, str]]:
    pack = regulation.current()
    return [(i["code"], f"{i['code']} — {i['description'][:90]}") for i in pack.infractions(modality)]


class InfractionForm(FriendlyRequiredMixin, forms.Form):
    plate = forms.CharField(label="Placa", max_length=10, help_text="Formato ABC1D23 ou ABC-1234.",
                            widget=forms.TextInput(attrs={"data-mask": "plate", "autocapitalize": "characters",
                                                          "autocomplete": "off"}))
    infraction_code = forms.ChoiceField(label="Infração (código do catálogo)")
    extra_codes = forms.MultipleChoiceField(
        label="Outras infrações cometidas ao mesmo tempo", required=False,
        help_text="Opcional. As penalidades de infrações simultâneas são aplicadas cumulativamente.",
        widget=forms.SelectMultiple(attrs={"size": 4}))
    occurred_at = forms.DateTimeField(
        label="Data e hora", input_formats=["%Y-%m-%dT%H:%M", "%d/%m/%Y %H:%M", "%Y-%m-%d %H:%M"],
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"))
    location = forms.CharField(label="Local", max_length=300, help_text="Rua, número ou referência.")
    description = forms.CharField(label="Descrição da circunstância", widget=forms.Textarea(attrs={"rows": 3}))
    driver_cpf = forms.CharField(label="CPF do condutor", max_length=14, required=False,
                                 help_text="Condutor no momento da infração (autorizatário ou auxiliar).",
                                 widget=forms.TextInput(attrs={"inputmode": "numeric", "data-mask": "cpf"}))
    driver_name = forms.CharField(label="Nome do condutor", max_length=200, required=False)
    alvara_retained = forms.BooleanField(label="Alvará retido na autuação", required=False)
    signature_refused = forms.BooleanField(label="O autuado recusou-se a assinar", required=False)
    photos = MultipleFileField(label="Fotos", help_text="JPEG ou PNG; pode enviar mais de uma.",
                               widget=MultipleFileInput(attrs={"accept": "image/jpeg,image/png", "capture": "environment"}))
    idempotency_key = forms.CharField(widget=forms.HiddenInput, max_length=64)

    field_order = ["plate", "infraction_code", "occurred_at", "location", "description", "driver_cpf", "driver_name",
                   "alvara_retained", "signature_refused", "photos", "extra_codes", "idempotency_key"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        choices = _catalogue_choices()
        self.fields["infraction_code"].choices = [("", "Escolha a infração")] + choices
        self.fields["extra_codes"].choices = choices
        if not self.is_bound:
            pack = regulation.current()
            self.initial.setdefault("occurred_at", timezone.now().astimezone(pack.tz).strftime("%Y-%m-%dT%H:%M"))
            self.initial.setdefault("idempotency_key", uuid.uuid4().hex)
            retains = pack.param("infraction.retains_alvara")
            if retains is not None and retains.value:
                self.initial.setdefault("alvara_retained", True)
                self.fields["alvara_retained"].help_text = f"O agente retém o alvará na autuação ({retains.legal_basis})."

    def clean_occurred_at(self):
        value = self.cleaned_data["occurred_at"]
        pack = regulation.current()
        naive = timezone.make_naive(value) if timezone.is_aware(value) else value
        return timezone.make_aware(naive, pack.tz)


class NoticeForm(FriendlyRequiredMixin, forms.Form):
    acknowledged_on = forms.DateField(label="Data da ciência (ou da recusa)",
                                      widget=BrDateInput(),
                                      help_text="O prazo da defesa conta a partir do dia seguinte.")
    refused = forms.BooleanField(label="O autuado recusou-se a receber a notificação", required=False)
    published = forms.BooleanField(label="Autuado não localizado: notificado por publicação (data da publicação)",
                                   required=False)


class DecisionNoticeForm(NoticeForm):
    acknowledged_on = forms.DateField(label="Data da ciência da decisão (ou da recusa, ou da publicação)",
                                      widget=BrDateInput(),
                                      help_text="O prazo do recurso conta a partir do dia seguinte.")


class HearingForm(FriendlyRequiredMixin, forms.Form):
    acknowledged_on = forms.DateField(label="Data da ciência da intimação",
                                      widget=BrDateInput(),
                                      help_text="O prazo das alegações conta a partir do dia seguinte.")


class WaiverForm(FriendlyRequiredMixin, forms.Form):
    text = forms.CharField(label="Termo de renúncia", widget=forms.Textarea(attrs={"rows": 4}),
                           initial="Declaro que renuncio ao restante do prazo para apresentar defesa prévia.",
                           help_text="Com a renúncia, o auto pode ser julgado antes do fim do prazo.")


class PaperForm(FriendlyRequiredMixin, forms.Form):
    """A piece delivered on paper, recorded by the clerk."""

    channel = forms.ChoiceField(label="Entregue", choices=[("counter", "no balcão (protocolo)"),
                                                           ("post", "pelo correio")])
    received_on = forms.DateField(label="Data do recebimento",
                                  widget=BrDateInput(),
                                  help_text="A tempestividade é julgada por esta data.")
    text = forms.CharField(label="Resumo ou transcrição da peça", widget=forms.Textarea(attrs={"rows": 6}))
    attachments = MultipleFileField(label="Páginas digitalizadas", help_text="PDF, JPEG ou PNG.")


class RegulationForm(FriendlyRequiredMixin, forms.Form):
    key = forms.ChoiceField(label="Valor que o regulamento fixa")
    act_number = forms.CharField(label="Número do regulamento (decreto)", max_length=60,
                                 help_text="Ex.: Decreto nº 1.234/2026.")
    act_date = forms.DateField(label="Data do regulamento",
                               widget=BrDateInput())
    effective_from = forms.DateField(label="Vigente desde (se diferente da data)", required=False,
                                     widget=BrDateInput())
    value = forms.DecimalField(label="Valor (R$)", max_digits=12, decimal_places=2, min_value=0,
                               help_text="Em reais: valor da multa, ou de uma unidade fiscal.")

    def __init__(self, *args, choices=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["key"].choices = [("", "—")] + list(choices)


class PieceForm(FriendlyRequiredMixin, forms.Form):
    text = forms.CharField(label="Razões", widget=forms.Textarea(attrs={"rows": 8}),
                           help_text="Exponha os fatos e os fundamentos do seu pedido.")
    attachments = MultipleFileField(label="Anexos", help_text="PDF, JPEG ou PNG (opcional).")


class JudgeForm(FriendlyRequiredMixin, forms.Form):
    upheld = forms.TypedChoiceField(label="Decisão", coerce=lambda v: v == "1",
                                    choices=[("1", "Procedente (aplicar a penalidade)"),
                                             ("0", "Improcedente (arquivar o auto)")],
                                    widget=forms.RadioSelect)
    grounds = forms.CharField(label="Fundamentação", widget=forms.Textarea(attrs={"rows": 6}))


class AppealJudgeForm(FriendlyRequiredMixin, forms.Form):
    granted = forms.TypedChoiceField(label="Decisão do recurso", coerce=lambda v: v == "1",
                                     choices=[("1", "Provido"), ("0", "Não provido")], widget=forms.RadioSelect)
    grounds = forms.CharField(label="Fundamentação", widget=forms.Textarea(attrs={"rows": 6}))


class SuspensiveEffectForm(FriendlyRequiredMixin, forms.Form):
    grounds = forms.CharField(label="Motivação (caráter excepcional)", max_length=5000,
                              widget=forms.Textarea(attrs={"rows": 5}))


class CancelForm(FriendlyRequiredMixin, forms.Form):
    reason = forms.CharField(label="Motivo do cancelamento", widget=forms.Textarea(attrs={"rows": 4}))


class PaidForm(FriendlyRequiredMixin, forms.Form):
    paid_on = forms.DateField(label="Data do pagamento", widget=BrDateInput())


class PlateLookupForm(FriendlyRequiredMixin, forms.Form):
    plate = forms.CharField(label="Placa", max_length=10, help_text="Formato ABC1D23 ou ABC-1234.",
                            widget=forms.TextInput(attrs={"data-mask": "plate", "autocapitalize": "characters",
                                                          "autocomplete": "off", "autofocus": True}))
    driver_cpf = forms.CharField(label="CPF do condutor (opcional)", max_length=14, required=False,
                                 widget=forms.TextInput(attrs={"inputmode": "numeric", "data-mask": "cpf"}))

    def clean_plate(self):
        """A mistyped plate is reported as such, not as an unauthorised vehicle."""
        value = self.cleaned_data["plate"]
        validate_plate(value)
        return value


class RegularisationForm(FriendlyRequiredMixin, forms.Form):
    inspected_on = forms.DateField(label="Data da nova vistoria", widget=BrDateInput(),
                                   help_text="Vistoria que comprovou a regularização do motivo da suspensão.")
    note = forms.CharField(label="Observação", required=False, widget=forms.Textarea(attrs={"rows": 3}))
