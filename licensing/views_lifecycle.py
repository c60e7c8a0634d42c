"""HTML pages of a grant's life: the holder's "Minha autorização" and request forms, the
clerk's queue and decisions, stands (public list and management) and fees (DAM)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views import View
from django.views.generic import TemplateView

from licensing import selectors_lifecycle as sel
from licensing import services_lifecycle as svc
from licensing.forms_lifecycle import (
    REQUEST_FORMS,
    AssignForm,
    AuxiliaryRemoveForm,
    AuxiliaryReregistrationForm,
    BankReturnForm,
    CapacityForm,
    ComplianceProofForm,
    DecideForm,
    EndAssignmentForm,
    FeeFilterForm,
    InspectionForm,
    PayForm,
    QueueFilterForm,
    ReturnForm,
    StandForm,
    SwapForm,
    form_to_data,
)
from licensing.models import Authorization
from licensing.models_lifecycle import (
    AssignmentStatus,
    AuxiliaryDriver,
    AuxiliaryStatus,
    Fee,
    LeaveOfAbsence,
    LifecycleRequest,
    RequestKind,
    RequestStatus,
    StandAssignment,
    TaxiStand,
)
from portal import regulation
from portal.exceptions import InvalidTransition, RuleViolation, RuleViolations
from portal.roles import Role, has_role
from portal.views import RoleRequiredMixin

DESK = (Role.CLERK, Role.ADMIN)
PAGE_SIZE = 25


def apply_errors(form, exc) -> None:
    """Put a service's refusal on the form: beside its field, or at the top."""
    if isinstance(exc, RuleViolations):
        for v in exc.violations:
            apply_errors(form, v)
    elif isinstance(exc, RuleViolation):
        form.add_error(exc.field if exc.field in form.fields else None, str(exc))
    elif isinstance(exc, InvalidTransition):
        form.add_error(None, exc.message)
    elif isinstance(exc, ValidationError):
        if hasattr(exc, "error_dict"):
            for field, errors in exc.message_dict.items():
                form.add_error(field if field in form.fields else None, errors)
        else:
            form.add_error(None, exc.messages)


def error_text(exc) -> str:
    if isinstance(exc, RuleViolations):
        return " ".join(str(v) for v in exc.violations)
    if isinstance(exc, ValidationError):
        if hasattr(exc, "error_dict"):
            return " ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())
        return " ".join(exc.messages)
    if isinstance(exc, InvalidTransition):
        return exc.message
    return str(exc)


SERVICE_ERRORS = (RuleViolation, RuleViolations, InvalidTransition, ValidationError)

FIELD_LABELS = {
    "cpf": "CPF", "name": "nome", "birth_date": "data de nascimento", "cnh_number": "número da CNH",
    "cnh_category": "categoria da CNH", "cnh_first_issued": "primeira habilitação", "cnh_ear": "CNH com EAR",
    "auxiliary": "condutor auxiliar (registro)", "left_on": "data do desligamento", "days_after": "dias até a comunicação",
    "deadline_days": "prazo legal (dias)", "late": "fora do prazo", "reason": "motivo", "ground": "fundamento",
    "vehicle": "veículo substituto", "old_plate": "placa anterior", "new_plate": "nova placa",
    "certificate_issuer": "emissor da certidão", "certificate_number": "número da certidão", "days": "dias",
    "starts_on": "início", "ends_on": "último dia", "new_holder_cpf": "CPF do novo titular",
    "new_holder_name": "novo titular", "relationship": "parentesco", "event_on": "data do fato", "proof": "comprovação",
    "vehicle_plate": "placa do veículo", "fee_notice": "taxas", "preposto_cpf": "CPF do preposto",
    "preposto_name": "preposto", "permanent": "invalidez permanente", "invalidity_on": "data da invalidez",
    "medical_report": "laudo médico", "alvara": "alvará emitido", "cancelled_alvaras": "alvarás cancelados",
    "authorization": "nova autorização", "predecessor": "autorização anterior", "leave": "afastamento (registro)",
    "status": "situação", "preposto": "preposto (registro)", "plate": "placa", "renavam": "RENAVAM", "make": "marca",
    "model": "modelo", "color": "cor", "manufacture_year": "ano de fabricação",
    "first_registration_date": "primeiro licenciamento", "doors": "portas", "seats": "lugares", "engine_cc": "cilindrada",
    "supersedes": "substitui o nº", "registered_on": "último (re)cadastramento", "due_on": "prazo",
    "next_due_on": "próximo prazo", "documents": "documentos apresentados", "year": "ano da permissão",
}
ACTION_LABELS = {
    "lifecycle_request_filed": "pedido protocolado", "lifecycle_request_decided": "pedido decidido",
    "auxiliary_removal_late": "comunicação fora do prazo registrada", "substitution_inspection": "vistoria registrada",
    "yearly_obligation_late": "apresentado depois do prazo",
}


def _display(value) -> str:
    from datetime import date as _date

    if isinstance(value, bool):
        return "sim" if value else "não"
    if value in (None, "", []):
        return "—"
    if isinstance(value, dict):
        if "number" in value:
            return f"nº {value['number']}" + (f" (substitui o nº {value['supersedes']})" if value.get("supersedes") else "")
        return "; ".join(f"{FIELD_LABELS.get(k, k)}: {_display(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_display(v) for v in value)
    if isinstance(value, str) and len(value) == 10 and value[4] == "-" and value[7] == "-":
        try:
            return _date.fromisoformat(value).strftime("%d/%m/%Y")
        except ValueError:
            return value
    return str(value)


def _state(value: str) -> str:
    from portal.templatetags.portal_tags import STATUS_LABELS

    labels = {**STATUS_LABELS, **dict(RequestStatus.choices)}
    return labels.get(value, value) if value else ""


def display_rows(data: dict) -> list[tuple[str, str]]:
    """A request's data or effects as (Portuguese label, readable value) rows."""
    return [(FIELD_LABELS.get(k, k), _display(v)) for k, v in (data or {}).items()]


# --- holder ----------------------------------------------------------------------------
class MyAuthorizationView(RoleRequiredMixin, TemplateView):
    """Minha autorização: the grant, alvarás, auxiliaries, vehicle, stand, fees, requests."""

    roles = (Role.APPLICANT,)
    template_name = "lifecycle/mine.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        pack = regulation.current()
        grants = []
        for auth in sel.holder_authorizations(self.request.user):
            overview = sel.holder_overview(auth)
            overview["kinds"] = svc.request_kinds_available(pack, auth) if auth.is_current else []
            grants.append(overview)
        ctx["grants"] = grants
        ctx["preposto_for"] = list(self.request.user.preposto_roles.filter(ended_on__isnull=True)
                                   .select_related("authorization"))
        auxiliary_for = list(AuxiliaryDriver.objects.filter(person=self.request.user, status=AuxiliaryStatus.ACTIVE)
                             .select_related("authorization", "authorization__vehicle"))
        pending = list(LifecycleRequest.objects.filter(
            authorization__in=[x.authorization_id for x in auxiliary_for], kind=RequestKind.AUXILIARY_REREGISTRATION,
            status=RequestStatus.FILED)) if auxiliary_for else []
        for x in auxiliary_for:
            x.reregistration = sel.auxiliary_reregistration_state(x, pack, pack.today(), pending)
        ctx["auxiliary_for"] = auxiliary_for
        return ctx


class RequestNewView(RoleRequiredMixin, View):
    """File a request (holder online, or the clerk at the desk on the holder's behalf)."""

    roles = (Role.APPLICANT, Role.CLERK, Role.ADMIN)
    template_name = "lifecycle/request_form.html"

    def _setup(self, request, pk: int, kind: str):
        if kind not in REQUEST_FORMS:
            raise Http404("Tipo de pedido desconhecido.")
        auth = sel.authorization_for_filing(request.user, pk, kind)
        return auth, REQUEST_FORMS[kind]

    def _form(self, form_class, auth, data=None):
        auxiliaries = AuxiliaryDriver.objects.filter(authorization=auth, status=AuxiliaryStatus.ACTIVE).select_related("person")
        if form_class is AuxiliaryRemoveForm:
            return form_class(data, auxiliaries=auxiliaries)
        pack = regulation.current()
        if form_class is AuxiliaryReregistrationForm:
            if not sel.is_desk(self.request.user) and auth.holder_id != self.request.user.pk:
                auxiliaries = auxiliaries.filter(person=self.request.user)  # the auxiliary re-registers themself
            return form_class(data, auxiliaries=auxiliaries,
                              documents=pack.documents(auth.modality, "renewal", applies_to="auxiliary"))
        if form_class is ComplianceProofForm:
            return form_class(data, documents=pack.documents(auth.modality, "renewal", applies_to="holder"))
        return form_class(data)

    def _render(self, request, auth, kind, form, status=200):
        pack = regulation.current()
        provided = kind in dict(svc.request_kinds_provided(pack, auth))
        refusal = svc.request_refusal(pack, auth, kind) if provided else None
        return render(request, self.template_name, {
            "authorization": auth, "kind": kind, "kind_label": RequestKind(kind).label, "form": form,
            "available": provided, "refusal": str(refusal) if refusal else "", "pack": pack,
        }, status=status)

    def get(self, request, pk: int, kind: str):
        auth, form_class = self._setup(request, pk, kind)
        return self._render(request, auth, kind, self._form(form_class, auth))

    def post(self, request, pk: int, kind: str):
        auth, form_class = self._setup(request, pk, kind)
        form = self._form(form_class, auth, request.POST)
        if form.is_valid():
            try:
                req = svc.request_file(actor=request.user, authorization=auth, kind=kind, data=form_to_data(form))
            except SERVICE_ERRORS as exc:
                apply_errors(form, exc)
            else:
                messages.success(request, f"Pedido protocolado sob o nº {req.protocol}.")
                return redirect("lifecycle-request-detail", pk=req.pk)
        return self._render(request, auth, kind, form, status=400)


class RequestDetailView(RoleRequiredMixin, TemplateView):
    roles = (Role.APPLICANT, Role.CLERK, Role.ADMIN, Role.AGENT)
    template_name = "lifecycle/request_detail.html"

    def get_context_data(self, **kwargs):
        from portal.audit import history_for

        ctx = super().get_context_data(**kwargs)
        req = sel.request_for(self.request.user, kwargs["pk"])
        pack = regulation.current()
        ctx["req"] = req
        ctx["history"] = [(e, ACTION_LABELS.get(e.action, e.action.replace("_", " ")), _state(e.from_state),
                           _state(e.to_state)) for e in history_for(req)]
        data = dict(req.data)
        if isinstance(data.get("documents"), list):  # the pack's labels, not the codes
            labels = {d["code"]: d["label"] for d in pack.data.get("documents", [])}
            data["documents"] = [labels.get(c, c) for c in data["documents"]]
        ctx["data_rows"] = display_rows(data)
        ctx["result_rows"] = display_rows(req.result)
        ctx["is_desk"] = sel.is_desk(self.request.user)
        ctx["can_inspect"] = has_role(self.request.user, *sel.INSPECTION_ROLES)
        if req.status == RequestStatus.FILED:
            ctx["decide_form"] = DecideForm()
            if req.kind == RequestKind.SUBSTITUTION:
                ctx["inspection_form"] = InspectionForm(items=pack.inspection_items(req.authorization.modality))
        return ctx


class QueueView(RoleRequiredMixin, TemplateView):
    """The clerk's queue of requests, with filters, counts and pagination."""

    roles = (*DESK, Role.AGENT)
    template_name = "lifecycle/queue.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        form = QueueFilterForm(self.request.GET or {"status": RequestStatus.FILED})
        filters = form.cleaned_data if form.is_valid() else {}
        agent_only = not sel.is_desk(self.request.user)  # agents: substitutions awaiting the vistoria
        kind = RequestKind.SUBSTITUTION if agent_only else filters.get("kind", "")
        qs = sel.requests_for_queue(status=filters.get("status", ""), kind=kind, q=filters.get("q", ""))
        ctx["agent_only"] = agent_only
        ctx["form"] = form
        ctx["page_obj"] = Paginator(qs, PAGE_SIZE).get_page(self.request.GET.get("page"))
        ctx["querystring"] = urlencode({k: v for k, v in filters.items() if v})
        ctx["counts"] = sel.queue_counts()
        ctx["yearly_overdue"] = [] if agent_only else sel.yearly_overdue_open()
        return ctx


class RequestDecideView(RoleRequiredMixin, View):
    roles = DESK

    def post(self, request, pk: int):
        req = get_object_or_404(LifecycleRequest, pk=pk)
        form = DecideForm(request.POST)
        if not form.is_valid():
            messages.error(request, "Escolha deferir ou indeferir.")
            return redirect("lifecycle-request-detail", pk=pk)
        try:
            req = svc.request_decide(actor=request.user, request=req, approved=form.cleaned_data["approved"],
                                     reason=form.cleaned_data["reason"])
        except SERVICE_ERRORS as exc:
            messages.error(request, error_text(exc))
        else:
            messages.success(request, f"Pedido {req.protocol} {req.get_status_display()}.")
        return redirect("lifecycle-request-detail", pk=pk)


class RequestInspectionView(RoleRequiredMixin, View):
    roles = sel.INSPECTION_ROLES

    def post(self, request, pk: int):
        req = sel.request_for(request.user, pk)
        pack = regulation.current()
        form = InspectionForm(request.POST, items=pack.inspection_items(req.authorization.modality))
        if form.is_valid():
            checklist = {code: form.cleaned_data[name] for name, code in form.item_codes}
            try:
                svc.request_record_inspection(actor=request.user, request=req, approved=form.cleaned_data["approved"],
                                              checklist=checklist, notes=form.cleaned_data["notes"])
            except SERVICE_ERRORS as exc:
                messages.error(request, error_text(exc))
            else:
                messages.success(request, "Vistoria registrada.")
        return redirect("lifecycle-request-detail", pk=pk)


class LeaveReturnView(RoleRequiredMixin, View):
    roles = (Role.APPLICANT, Role.CLERK, Role.ADMIN)

    def post(self, request, pk: int):
        leave = LeaveOfAbsence.objects.select_related("authorization").filter(pk=pk).first()
        if leave is None or not (sel.is_desk(request.user) or leave.authorization.holder_id == request.user.pk):
            raise Http404("Afastamento não encontrado.")
        form = ReturnForm(request.POST)
        if not form.is_valid():
            messages.error(request, "Informe a data do retorno (DD/MM/AAAA).")
        else:
            try:
                svc.leave_record_return(actor=request.user, leave=leave, returned_on=form.cleaned_data["returned_on"])
            except SERVICE_ERRORS as exc:
                messages.error(request, error_text(exc))
            else:
                messages.success(request, "Retorno registrado.")
        if sel.is_desk(request.user):
            return redirect("lifecycle-request-detail", pk=leave.request_id)
        return redirect("lifecycle-mine")


# --- stands ----------------------------------------------------------------------------
class PublicStandsView(TemplateView):
    """Public list of stands: capacity, occupancy, holder's name and plate only."""

    template_name = "lifecycle/stands_public.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["stands"] = list(sel.stands_with_occupancy())
        # Part of the transparency section (/transparencia/pontos/ leads here): same tabs, same trail.
        ctx["crumbs"] = [("Transparência", reverse("public-transparency")), ("Pontos de táxi", None)]
        return ctx


class StandsManageView(RoleRequiredMixin, View):
    roles = DESK
    template_name = "lifecycle/stands_manage.html"

    def _render(self, request, form, swap_form=None, status=200):
        return render(request, self.template_name, {
            "stands": list(sel.stands_with_occupancy()), "form": form, "swap_form": swap_form or SwapForm(),
            "pack": regulation.current(),
        }, status=status)

    def get(self, request):
        return self._render(request, StandForm())

    def post(self, request):
        form = StandForm(request.POST)
        if form.is_valid():
            try:
                stand = svc.stand_create(actor=request.user, **form.cleaned_data)
            except SERVICE_ERRORS as exc:
                apply_errors(form, exc)
            else:
                messages.success(request, f"Ponto “{stand.name}” criado.")
                return redirect("lifecycle-stand-detail", pk=stand.pk)
        return self._render(request, form, status=400)


class StandDetailView(RoleRequiredMixin, TemplateView):
    roles = DESK
    template_name = "lifecycle/stand_detail.html"

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
                    apply_errors(form, exc)
                else:
                    messages.success(request, "Permuta registrada.")
                    return redirect("lifecycle-stands-manage")
        return StandsManageView()._render(request, StandForm(), swap_form=form, status=400)


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


# --- fees ------------------------------------------------------------------------------
class FeesView(RoleRequiredMixin, TemplateView):
    roles = DESK
    template_name = "lifecycle/fees.html"

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
        from licensing.dam_lifecycle import render_dam

        fee = sel.fee_for(request.user, pk)
        if not (sel.is_desk(request.user) or fee.holder_id == request.user.pk):
            raise PermissionDenied
        response = HttpResponse(render_dam(fee), content_type="application/pdf")
        response["Content-Disposition"] = f'inline; filename="dam-{fee.number.replace("/", "-")}.pdf"'
        return response
