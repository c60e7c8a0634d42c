"""Account pages of the base: logout that revokes API tokens, the person's API accesses."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import Http404
from django.shortcuts import redirect, render
from django.views import View
from django.views.generic import TemplateView


class LogoutView(auth_views.LogoutView):
    """Logging out also revokes the person's API tokens (the field app signs in again)."""

    def post(self, request, *args, **kwargs):
        if request.user.is_authenticated:
            from portal.tokens import revoke_tokens

            revoke_tokens(request.user, "saída")
        return super().post(request, *args, **kwargs)


class ApiTokensView(LoginRequiredMixin, TemplateView):
    """The person's active API tokens (created, last use, expiry), each with a revoke button.

    The list is also an include (registration/_api_tokens.html, context ``api_tokens``) for the
    profile page."""

    template_name = "registration/api_tokens.html"

    def get_context_data(self, **kwargs):
        from portal.tokens import active_tokens

        ctx = super().get_context_data(**kwargs)
        ctx["api_tokens"] = active_tokens(self.request.user).order_by("-created_at")
        return ctx


class ApiTokenRevokeView(LoginRequiredMixin, View):
    http_method_names = ["post"]

    def post(self, request, pk: int):
        from portal.tokens import active_tokens, revoke_token

        token = active_tokens(request.user).filter(pk=pk).first()
        if token is None:
            raise Http404("Acesso não encontrado.")
        revoke_token(token, "revogado pela pessoa")
        messages.success(request, "Acesso revogado: o aplicativo que o usava precisa entrar de novo.")
        return redirect("api-tokens")


class AccountClaimForm(forms.Form):
    cpf = forms.CharField(label="CPF da pessoa", max_length=14,
                          error_messages={"required": "Informe o CPF da pessoa."})
    email = forms.EmailField(label="E-mail da pessoa",
                             error_messages={"required": "Informe o e-mail da pessoa.",
                                             "invalid": "Informe um e-mail válido, por exemplo nome@exemplo.com."})
    document_checked = forms.BooleanField(
        label="Conferi um documento oficial com foto da pessoa, presente no atendimento",
        error_messages={"required": "Confira o documento da pessoa antes de ativar a conta."})

    def clean(self):
        from django.contrib.auth import get_user_model

        from portal.services import claimable
        from portal.validators import normalize_cpf

        data = super().clean()
        if data.get("cpf"):
            User = get_user_model()
            person = User.objects.filter(cpf=normalize_cpf(data["cpf"])).first()
            if person is None:
                self.add_error("cpf", "Não há conta com este CPF: a pessoa pode se cadastrar pelo portal.")
            elif not claimable(person):
                self.add_error("cpf", "Esta conta já está em uso: a pessoa entra com o CPF ou recupera a senha.")
            else:
                data["person"] = person
                email = data.get("email")
                if email and User.objects.filter(email__iexact=email).exclude(pk=person.pk).exists():
                    self.add_error("email", "Este e-mail é de outra conta: use o e-mail da própria pessoa.")
        return data


class AccountClaimAtCounterView(View):
    """At the counter (atendente): record the e-mail of a person whose account the portal created
    on their behalf (an auxiliary driver) after checking a document, and send the link with
    which the person creates the password — the only ways such an account is claimed."""

    template_name = "registration/account_claim_counter.html"

    def dispatch(self, request, *args, **kwargs):
        from portal.roles import Role

        if not request.user.is_authenticated:
            from django.contrib.auth.views import redirect_to_login

            return redirect_to_login(request.get_full_path())
        from django.core.exceptions import PermissionDenied

        from portal.roles import has_role

        if not has_role(request.user, Role.CLERK, Role.ADMIN):
            raise PermissionDenied("Seu perfil não dá acesso a esta página.")
        return super().dispatch(request, *args, **kwargs)

    def get(self, request):
        return render(request, self.template_name, {"form": AccountClaimForm()})

    def post(self, request):
        from portal.audit import audit_log
        from portal.auth_forms import queue_reset_email

        form = AccountClaimForm(request.POST)
        if not form.is_valid():
            return render(request, self.template_name, {"form": form}, status=400)
        person, email = form.cleaned_data["person"], form.cleaned_data["email"]
        person.email = email
        person.save(update_fields=["email"])
        audit_log(actor=request.user, obj=person, action="account_claim_link_sent",
                  reason="E-mail registrado no atendimento após conferência de documento",
                  data={"email": email})
        queue_reset_email(email, request.get_host(), request.is_secure())
        messages.success(request, f"Enviamos a {email} o link para a pessoa criar a senha e concluir a conta.")
        return redirect("account-claim-counter")
