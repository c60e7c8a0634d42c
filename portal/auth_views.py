"""Account pages of the base: logout that revokes API tokens, the person's API accesses."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import Http404
from django.shortcuts import redirect
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
