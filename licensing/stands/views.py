"""HTML views of stands: the public list and the desk."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views import View
from django.views.generic import TemplateView

from licensing.grants.models import Authorization
from licensing.requests.views import DESK, SERVICE_ERRORS, apply_errors, error_text
from licensing.stands import selectors as sel
from licensing.stands import services as svc
from licensing.stands.forms import AssignForm, CapacityForm, EndAssignmentForm, StandForm, SwapForm
from licensing.stands.models import AssignmentStatus, StandAssignment, TaxiStand
from portal import regulation
from portal.views import RoleRequiredMixin


# --- stands ----------------------------------------------------------------------------
class PublicStandsView(TemplateView):
    """Public list of stands: capacity, occupancy, holder's name and plate only."""

    template_name = "licensing/stands/stands_public.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["stands"] = list(sel.stands_with_occupancy())
        # Part of the transparency section (/transparencia/pontos/ leads here): same tabs, same trail.
        ctx["crumbs"] = [("Transparência", reverse("public-transparency")), ("Pontos de táxi", None)]
        return ctx


class StandsManageView(RoleRequiredMixin, View):
    roles = DESK
    template_name = "licensing/stands/stands_manage.html"

    def _render(self, request, form, swap_form=None, status=200):
        return render(request, self.template_name, {
            "stands": list(sel.stands_with_occupancy()), "form": form, "swap_form": swap_form or SwapForm(),
            "pack": regulation.current(),
        }, status=status)

    def get(self, request):
        return self._render(request, StandForm())

    def post(self, request):
        form = StandForm(request.POST)
        status = 400
        if form.is_valid():
            try:
                stand = svc.stand_create(actor=request.user, **form.cleaned_data)
            except SERVICE_ERRORS as exc:
                status = apply_errors(form, exc)
            else:
                messages.success(request, f"Ponto “{stand.name}” criado.")
                return redirect("lifecycle-stand-detail", pk=stand.pk)
        return self._render(request, form, status=status)


class StandDetailView(RoleRequiredMixin, TemplateView):
    roles = DESK
    template_name = "licensing/stands/stand_detail.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        stand = get_object_or_404(sel.stands_with_occupancy(), pk=kwargs["pk"])
        ctx.update(stand=stand, waiting=list(sel.stand_waiting(stand)), capacity_form=CapacityForm(initial={"capacity": stand.capacity}),
                   assign_form=AssignForm(), end_form=EndAssignmentForm(), pack=regulation.current())
        return ctx


class StandCapacityView(RoleRequiredMixin, View):
    roles = DESK

    def post(self, request, pk: int):
        stand = get_object_or_404(TaxiStand, pk=pk)
        form = CapacityForm(request.POST)
        if not form.is_valid():
            messages.error(request, "Vagas: informe um número inteiro de 0 a 500.")
        else:
            try:
                result = svc.stand_set_capacity(actor=request.user, stand=stand, capacity=form.cleaned_data["capacity"])
            except SERVICE_ERRORS as exc:
                messages.error(request, error_text(exc))
            else:
                messages.success(request, f"Vagas alteradas para {result['capacity']}: {len(result['moved_out'])} "
                                          f"aguardando nova designação, {len(result['moved_in'])} receberam vaga.")
        return redirect("lifecycle-stand-detail", pk=pk)


class StandAssignView(RoleRequiredMixin, View):
    roles = DESK

    def post(self, request, pk: int):
        stand = get_object_or_404(TaxiStand, pk=pk)
        form = AssignForm(request.POST)
        auth = None
        if form.is_valid():
            auth = Authorization.objects.filter(number=form.cleaned_data["authorization"].strip()).first()
        if auth is None:
            messages.error(request, "Número da autorização: não encontrada (use o formato 001/2026).")
        else:
            try:
                a = svc.stand_assign(actor=request.user, stand=stand, authorization=auth)
            except SERVICE_ERRORS as exc:
                messages.error(request, error_text(exc))
            else:
                messages.success(request, f"Autorização nº {auth.number}: {a.get_status_display()}.")
        return redirect("lifecycle-stand-detail", pk=pk)


class StandSwapView(RoleRequiredMixin, View):
    roles = DESK

    def post(self, request):
        form = SwapForm(request.POST)
        status = 400
        if form.is_valid():
            v = form.cleaned_data
            a = StandAssignment.objects.filter(pk=v["assignment_a"], status=AssignmentStatus.ACTIVE).first()
            b = StandAssignment.objects.filter(pk=v["assignment_b"], status=AssignmentStatus.ACTIVE).first()
            if a is None or b is None:
                form.add_error(None, "Informe os números de duas designações ocupando vaga.")
            else:
                try:
                    svc.stand_swap(actor=request.user, first=a, second=b, consent_first=v["consent_a"],
                                   consent_second=v["consent_b"])
                except SERVICE_ERRORS as exc:
                    status = apply_errors(form, exc)
                else:
                    messages.success(request, "Permuta registrada.")
                    return redirect("lifecycle-stands-manage")
        return StandsManageView()._render(request, StandForm(), swap_form=form, status=status)


class AssignmentEndView(RoleRequiredMixin, View):
    roles = DESK

    def post(self, request, pk: int):
        assignment = get_object_or_404(StandAssignment, pk=pk)
        form = EndAssignmentForm(request.POST)
        if not form.is_valid():
            messages.error(request, "Motivo: informe o motivo do encerramento.")
        else:
            try:
                svc.stand_assignment_end(actor=request.user, assignment=assignment, reason=form.cleaned_data["reason"])
            except SERVICE_ERRORS as exc:
                messages.error(request, error_text(exc))
            else:
                messages.success(request, "Designação encerrada.")
        return redirect("lifecycle-stand-detail", pk=assignment.stand_id)
