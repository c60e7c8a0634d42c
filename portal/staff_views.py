"""The municipality's staff page ("Equipe"): who holds which role here, grant and revoke.

Only the admin of the municipality in scope; the assignments of other municipalities are
neither listed nor reachable (404)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.shortcuts import get_object_or_404, redirect, render
from django.views import View

from portal.models import Municipality, StaffAssignment
from portal.roles import MUNICIPAL_ROLES, Role, scope_municipality_id
from portal.staff import assignments_of, grant_role, revoke_role
from portal.validators import only_digits
from portal.views import RoleRequiredMixin


class GrantForm(forms.Form):
    person = forms.CharField(
        label="Pessoa", max_length=150,
        help_text="Usuário, CPF ou e-mail de uma conta já existente no portal.",
        error_messages={"required": "Informe o usuário, o CPF ou o e-mail da pessoa."},
    )
    role = forms.ChoiceField(label="Perfil", choices=[(r.value, r.label) for r in MUNICIPAL_ROLES],
                             error_messages={"required": "Escolha o perfil.",
                                             "invalid_choice": "Escolha um dos perfis da lista."})
    reason = forms.CharField(label="Motivo (ato de designação)", max_length=300,
                             help_text="Por exemplo: Portaria nº 12/2026.",
                             error_messages={"required": "Informe o motivo ou o ato que designa a pessoa."})

    def clean_person(self):
        value = self.cleaned_data["person"].strip()
        users = get_user_model().objects.filter(is_active=True)
        digits = only_digits(value)
        query = Q(username=value) | Q(email__iexact=value)
        if len(digits) == 11:
            query |= Q(cpf=digits)
        found = list(users.filter(query)[:2])
        if len(found) != 1:
            raise ValidationError("Nenhuma conta ativa com esse usuário, CPF ou e-mail.")
        return found[0]


class RevokeForm(forms.Form):
    reason = forms.CharField(label="Motivo da retirada", max_length=300,
                             error_messages={"required": "Informe o motivo da retirada do perfil."})


def _municipality() -> Municipality:
    return get_object_or_404(Municipality, pk=scope_municipality_id())


class StaffView(RoleRequiredMixin, View):
    roles = (Role.ADMIN,)
    template_name = "portal/staff.html"

    def _render(self, request, form, status=200):
        municipality = _municipality()
        return render(request, self.template_name, {
            "municipality": municipality, "assignments": assignments_of(municipality), "form": form,
        }, status=status)

    def get(self, request):
        return self._render(request, GrantForm())

    def post(self, request):
        form = GrantForm(request.POST)
        if not form.is_valid():
            return self._render(request, form, status=400)
        grant_role(actor=request.user, user=form.cleaned_data["person"], municipality=_municipality(),
                   role=form.cleaned_data["role"], reason=form.cleaned_data["reason"])
        messages.success(request, "Perfil concedido.")
        return redirect("ops-staff")


class StaffRevokeView(RoleRequiredMixin, View):
    roles = (Role.ADMIN,)

    def post(self, request, pk: int):
        assignment = get_object_or_404(StaffAssignment, pk=pk, municipality_id=scope_municipality_id(),
                                       revoked_at__isnull=True)
        form = RevokeForm(request.POST)
        if not form.is_valid():
            messages.error(request, "Motivo da retirada: informe o motivo da retirada do perfil.")
            return redirect("ops-staff")
        revoke_role(actor=request.user, assignment=assignment, reason=form.cleaned_data["reason"])
        messages.success(request, f"Perfil de {assignment.get_role_display()} retirado de {assignment.user}.")
        return redirect("ops-staff")
