from __future__ import annotations

from django import forms
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError

from portal.services import CPF_CHARACTERS
from portal.validators import format_cpf, validate_cpf

BR_DATE_FORMATS = ["%d/%m/%Y", "%Y-%m-%d"]  # as typed; ISO still read (links, older bookmarks, API clients)
BR_DATE_PATTERN = r"\d{1,2}/\d{1,2}/\d{4}|\d{4}-\d{2}-\d{2}"


class BrDateInput(forms.DateInput):
    """A date typed as DD/MM/AAAA whatever the browser's locale: a text field with the
    format as placeholder and a pattern (a native type=date shows the browser's own order,
    MM/DD/YYYY under an English locale)."""

    input_type = "text"

    def __init__(self, attrs: dict | None = None):
        base = {"inputmode": "numeric", "placeholder": "DD/MM/AAAA", "pattern": BR_DATE_PATTERN,
                "autocomplete": "off", "maxlength": "10", "class": "br-date"}
        super().__init__(attrs={**base, **(attrs or {})}, format="%d/%m/%Y")


class LoginForm(AuthenticationForm):
    username = forms.CharField(
        label="Usuário ou CPF",
        max_length=150,
        help_text="Requerentes entram com o CPF (só números ou com pontos e traço).",
        widget=forms.TextInput(attrs={"autofocus": True, "autocomplete": "username"}),
    )
    password = forms.CharField(
        label="Senha", strip=False, widget=forms.PasswordInput(attrs={"autocomplete": "current-password"})
    )
    error_messages = {
        "invalid_login": "Usuário ou senha incorretos. Confira e tente de novo.",
        "inactive": "Esta conta está desativada.",
    }


class SignupForm(forms.Form):
    name = forms.CharField(label="Nome completo", max_length=200, widget=forms.TextInput(attrs={"autocomplete": "name"}))
    cpf = forms.CharField(
        label="CPF",
        max_length=14,
        help_text="Somente números ou no formato 000.000.000-00.",
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off", "data-mask": "cpf"}),
    )
    birth_date = forms.DateField(
        label="Data de nascimento",
        help_text="No formato DD/MM/AAAA.",
        input_formats=["%d/%m/%Y", "%Y-%m-%d"],
        error_messages={"invalid": "Informe a data de nascimento no formato DD/MM/AAAA, por exemplo 15/03/1985."},
        widget=BrDateInput(attrs={"autocomplete": "bday"}),
    )
    email = forms.EmailField(label="E-mail", widget=forms.EmailInput(attrs={"autocomplete": "email"}))
    phone = forms.CharField(
        label="Telefone", max_length=20, required=False,
        widget=forms.TextInput(attrs={"inputmode": "tel", "autocomplete": "tel"}),
    )
    password = forms.CharField(
        label="Senha", strip=False, help_text="Pelo menos 8 caracteres, não só números.",
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    password2 = forms.CharField(
        label="Repita a senha", strip=False, widget=forms.PasswordInput(attrs={"autocomplete": "new-password"})
    )

    REQUIRED = {
        "name": "Informe o nome completo.",
        "cpf": "Informe o CPF (11 números).",
        "birth_date": "Informe a data de nascimento no formato DD/MM/AAAA.",
        "email": "Informe um e-mail: é por ele que o portal avisa sobre o seu processo.",
        "password": "Crie uma senha com pelo menos 8 caracteres, não só números.",
        "password2": "Repita a senha para confirmar.",
    }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name, message in self.REQUIRED.items():
            self.fields[name].error_messages["required"] = message
        self.fields["email"].error_messages["invalid"] = "Informe um e-mail válido, por exemplo nome@exemplo.com."

    def clean_cpf(self):
        """Checked here too, so that a wrong CPF is reported with the other problems at once."""
        value = self.cleaned_data["cpf"]
        if CPF_CHARACTERS.fullmatch(value) is None:
            raise ValidationError("CPF inválido: use só números, com ou sem pontos e hífen.")
        validate_cpf(value)
        return value

    def clean(self):
        data = super().clean()
        if data.get("password") and data.get("password2") and data["password"] != data["password2"]:
            self.add_error("password2", "As senhas não conferem. Digite a mesma senha nos dois campos.")
        if data.get("cpf"):
            data["cpf_display"] = format_cpf(data["cpf"])
        return data


class FriendlyRequiredMixin:
    """'Informe …' instead of a bare 'Este campo é obrigatório.'"""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            label = str(field.label or "este campo")
            # "placa", "ano de fabricação", but "RENAVAM" and "CNH" keep their capitals
            lowered = label if label[1:2].isupper() else label[0].lower() + label[1:]
            if isinstance(field.widget, (forms.RadioSelect, forms.Select, forms.CheckboxSelectMultiple)):
                field.error_messages["required"] = f"Escolha uma opção em “{label}”."
            elif isinstance(field.widget, forms.CheckboxInput):
                field.error_messages["required"] = f"Marque “{label}” para continuar."
            elif isinstance(field.widget, forms.FileInput):
                field.error_messages["required"] = f"Anexe o arquivo: {lowered}."
            else:
                field.error_messages["required"] = f"Informe: {lowered}."


class CheckPdfForm(forms.Form):
    """A PDF to compare with the documents the portal issued (public verification)."""

    pdf = forms.FileField(label="Arquivo PDF", help_text="O PDF que você recebeu (até o tamanho máximo de envio).",
                          widget=forms.FileInput(attrs={"accept": "application/pdf,.pdf"}),
                          error_messages={"required": "Escolha o arquivo PDF a conferir."})

    def clean_pdf(self):
        from django.conf import settings

        from portal.uploads import sniff_upload

        uploaded = self.cleaned_data["pdf"]
        limit = settings.UPLOAD_MAX_BYTES
        if uploaded.size > limit:  # refused before reading
            raise ValidationError(f"O arquivo tem mais de {limit // (1024 * 1024)} MB: não é um documento do portal.")
        data = uploaded.read(limit + 1)
        try:
            mime = sniff_upload(data, label=(uploaded.name or "")[-80:] or None)
        except ValidationError as exc:
            # A PDF with scripts or attachments is not what the portal issued, but it is still a
            # PDF: the answer (not identical) comes from its bytes, which are never opened further.
            if exc.code != "pdf_active":
                raise
            mime = "application/pdf"
        if mime != "application/pdf":
            raise ValidationError("Envie o documento em PDF (o conteúdo do arquivo é verificado, não só o nome).")
        self.cleaned_data["pdf_bytes"] = data
        return uploaded


class ModalityDecreeForm(forms.Form):
    """The decree that opens a modality the law leaves to one (portal.modality_decrees)."""

    modality = forms.ChoiceField(label="Modalidade que o decreto regulamenta")
    number = forms.CharField(label="Número do decreto", max_length=60, help_text="Ex.: Decreto nº 1.234/2026.")
    act_date = forms.DateField(label="Data do decreto", widget=BrDateInput(), input_formats=BR_DATE_FORMATS)
    effective_from = forms.DateField(label="Vigente desde (se diferente da data)", required=False,
                                     widget=BrDateInput(), input_formats=BR_DATE_FORMATS,
                                     help_text="A modalidade abre neste dia (fuso do município).")
    link = forms.CharField(label="Endereço da publicação (opcional)", max_length=300, required=False,
                           help_text="Link do Diário Oficial ou do portal da Prefeitura (https://…).")

    def __init__(self, *args, choices=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["modality"].choices = [("", "—")] + list(choices)
        self.fields["modality"].error_messages["required"] = "Escolha a modalidade."
        self.fields["number"].error_messages["required"] = "Informe o número do decreto."
        for name in ("act_date", "effective_from"):
            self.fields[name].error_messages["invalid"] = "Informe a data como DD/MM/AAAA."
        self.fields["act_date"].error_messages["required"] = "Informe a data do decreto."
