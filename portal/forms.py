from __future__ import annotations

from django import forms
from django.contrib.auth.forms import AuthenticationForm

from portal.validators import format_cpf


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
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )
    birth_date = forms.DateField(
        label="Data de nascimento",
        help_text="No formato DD/MM/AAAA.",
        input_formats=["%d/%m/%Y", "%Y-%m-%d"],
        widget=forms.DateInput(attrs={"inputmode": "numeric", "placeholder": "DD/MM/AAAA"}),
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

    def clean(self):
        data = super().clean()
        if data.get("password") and data.get("password2") and data["password"] != data["password2"]:
            self.add_error("password2", "As senhas não conferem. Digite a mesma senha nos dois campos.")
        if data.get("cpf"):
            data["cpf_display"] = format_cpf(data["cpf"])
        return data
