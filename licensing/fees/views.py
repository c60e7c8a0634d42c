"""HTML views of fees: the desk, payments, bank return, TFF and the DAM."""

from __future__ import annotations

from decimal import Decimal

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils.http import urlencode
from django.views import View
from django.views.generic import TemplateView

from licensing.fees import reconciliation
from licensing.fees import selectors as sel
from licensing.fees import services as svc
from licensing.fees.forms import BankReturnForm, FeeFilterForm, PayForm
from licensing.fees.models import Fee, PaymentImport
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
        return ctx


class BankReturnView(RoleRequiredMixin, View):
    """POST a FEBRABAN collection return file or a Pix statement; the report of the import."""

    roles = DESK

    def post(self, request):
        form = BankReturnForm(request.POST, request.FILES)
        if not form.is_valid():
            messages.error(request, "Arquivo: escolha o retorno FEBRABAN (150 posições) ou o extrato Pix (CSV ou JSON).")
            return redirect("lifecycle-fee-imports")
        upload = form.cleaned_data["file"]
        try:
            imp, new = reconciliation.payments_import(actor=request.user, content=upload.read(), file_name=upload.name)
        except SERVICE_ERRORS as exc:
            messages.error(request, error_text(exc))
            return redirect("lifecycle-fee-imports")
        if new:
            messages.success(request, f"Arquivo importado: {imp.settled_count} DAM(s) baixado(s), "
                                      f"{imp.flagged_count} linha(s) para conferência.")
        else:
            messages.info(request, "Este arquivo já foi importado: nada mudou. Este é o relatório da importação.")
        return redirect("lifecycle-fee-import", pk=imp.pk)


class PaymentImportsView(RoleRequiredMixin, TemplateView):
    roles = DESK
    template_name = "licensing/fees/imports.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["page_obj"] = Paginator(sel.payment_imports(), PAGE_SIZE).get_page(self.request.GET.get("page"))
        ctx["bank_form"] = BankReturnForm()
        return ctx


class PaymentImportView(RoleRequiredMixin, TemplateView):
    roles = DESK
    template_name = "licensing/fees/import_report.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        imp = get_object_or_404(PaymentImport.objects.select_related("imported_by"), pk=kwargs["pk"])
        lines = list(imp.lines.select_related("fee", "fee__holder"))
        ctx.update(imp=imp, flagged=[x for x in lines if x.flagged], settled=[x for x in lines if not x.flagged])
        return ctx


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


class FeeDetailView(RoleRequiredMixin, TemplateView):
    """The DAM as a page: what it charges and how to pay it (Pix copia e cola, QR, linha digitável)."""

    roles = (Role.APPLICANT, Role.CLERK, Role.ADMIN)
    template_name = "licensing/fees/detail.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        fee = sel.fee_for(self.request.user, kwargs["pk"])
        if not (grants_selectors.is_desk(self.request.user) or fee.holder_id == self.request.user.pk):
            raise PermissionDenied
        ctx.update(fee=fee, is_desk=grants_selectors.is_desk(self.request.user))
        return ctx


class FeeDamView(RoleRequiredMixin, View):
    roles = (Role.APPLICANT, Role.CLERK, Role.ADMIN)

    def get(self, request, pk: int):
        from licensing.fees.documents import issued_dam_pdf

        fee = sel.fee_for(request.user, pk)
        if not (grants_selectors.is_desk(request.user) or fee.holder_id == request.user.pk):
            raise PermissionDenied
        response = HttpResponse(issued_dam_pdf(fee), content_type="application/pdf")
        response["Content-Disposition"] = f'inline; filename="dam-{fee.number.replace("/", "-")}.pdf"'
        return response


class OverdueView(RoleRequiredMixin, TemplateView):
    """Dívida ativa: DAMs unpaid past their due date, with the pack's late charges."""

    roles = DESK
    template_name = "licensing/fees/overdue.html"

    def get_context_data(self, **kwargs):
        from licensing.fees.overdue import overdue_rows

        ctx = super().get_context_data(**kwargs)
        rows, rates = overdue_rows()
        ctx.update(rows=rows, rates=rates, principal=sum((r.debt.amount for r in rows), Decimal("0")),
                   total=sum((r.total for r in rows), Decimal("0")))
        return ctx


class OverdueCsvView(RoleRequiredMixin, View):
    roles = DESK

    def get(self, request):
        from licensing.fees.overdue import overdue_csv, overdue_rows
        from portal import regulation

        on = regulation.current().today()
        rows, rates = overdue_rows(on)
        response = HttpResponse(overdue_csv(rows, rates, on, sep=request.GET.get("sep", ",")),
                                content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="divida-ativa-{on.isoformat()}.csv"'
        return response
