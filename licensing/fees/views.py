"""HTML views of fees: the desk, payments, bank return, TFF and the DAM."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils.http import urlencode
from django.views import View
from django.views.generic import TemplateView

from licensing.fees import selectors as sel
from licensing.fees import services as svc
from licensing.fees.forms import BankReturnForm, FeeFilterForm, PayForm
from licensing.fees.models import Fee
from licensing.grants import selectors as grants_selectors
from licensing.grants.models import Authorization
from licensing.requests.views import DESK, PAGE_SIZE, SERVICE_ERRORS, error_text
from licensing.stands.forms import AssignForm
from portal.roles import Role
from portal.views import RoleRequiredMixin


# --- fees ------------------------------------------------------------------------------
class FeesView(RoleRequiredMixin, TemplateView):
    roles = DESK
    template_name = "licensing/fees/fees.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        form = FeeFilterForm(self.request.GET or None)
        filters = form.cleaned_data if form.is_valid() else {}
        qs = sel.fees_for_desk(status=filters.get("status", ""), kind=filters.get("kind", ""), q=filters.get("q", ""))
        ctx["form"] = form
        ctx["page_obj"] = Paginator(qs, PAGE_SIZE).get_page(self.request.GET.get("page"))
        ctx["querystring"] = urlencode({k: v for k, v in filters.items() if v})
        ctx["pay_form"] = PayForm()
        ctx["bank_form"] = BankReturnForm()
        return ctx


class BankReturnView(RoleRequiredMixin, View):
    roles = DESK

    def post(self, request):
        form = BankReturnForm(request.POST, request.FILES)
        if not form.is_valid():
            messages.error(request, "Arquivo de retorno: escolha o arquivo CSV do banco.")
            return redirect("lifecycle-fees")
        try:
            result = svc.fees_import_bank_return(actor=request.user, content=form.cleaned_data["file"].read())
        except SERVICE_ERRORS as exc:
            messages.error(request, error_text(exc))
            return redirect("lifecycle-fees")
        messages.success(request, f"Retorno processado: {len(result['paid'])} pagamento(s) registrado(s).")
        for problem in result["errors"][:20]:
            messages.warning(request, f"Linha {problem['line']}: {problem['error']}")
        return redirect("lifecycle-fees")


class FeePayView(RoleRequiredMixin, View):
    roles = DESK

    def post(self, request, pk: int):
        fee = get_object_or_404(Fee, pk=pk)
        form = PayForm(request.POST)
        if not form.is_valid():
            messages.error(request, "Data do pagamento: informe uma data válida (DD/MM/AAAA).")
        else:
            try:
                svc.fee_mark_paid(actor=request.user, fee=fee, paid_on=form.cleaned_data["paid_on"],
                                  reference=form.cleaned_data["reference"])
            except SERVICE_ERRORS as exc:
                messages.error(request, error_text(exc))
            else:
                messages.success(request, f"DAM nº {fee.number}: pagamento registrado.")
        return redirect(reverse("lifecycle-fees") + ("?" + request.GET.urlencode() if request.GET else ""))


class TffIssueView(RoleRequiredMixin, View):
    roles = DESK

    def post(self, request):
        form = AssignForm(request.POST)
        auth = None
        if form.is_valid():
            auth = Authorization.objects.select_related("holder").filter(
                number=form.cleaned_data["authorization"].strip()).first()
        if auth is None:
            messages.error(request, "Número da autorização: não encontrada (use o formato 001/2026).")
            return redirect("lifecycle-fees")
        try:
            fee = svc.tff_issue(actor=request.user, authorization=auth)
        except SERVICE_ERRORS as exc:
            messages.error(request, error_text(exc))
        else:
            messages.success(request, f"TFF emitida: DAM nº {fee.number}.")
        return redirect("lifecycle-fees")


class FeeDamView(RoleRequiredMixin, View):
    roles = (Role.APPLICANT, Role.CLERK, Role.ADMIN)

    def get(self, request, pk: int):
        from licensing.fees.documents import render_dam

        fee = sel.fee_for(request.user, pk)
        if not (grants_selectors.is_desk(request.user) or fee.holder_id == request.user.pk):
            raise PermissionDenied
        response = HttpResponse(render_dam(fee), content_type="application/pdf")
        response["Content-Disposition"] = f'inline; filename="dam-{fee.number.replace("/", "-")}.pdf"'
        return response
