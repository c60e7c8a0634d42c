"""HTML pages of a grant's requests: the holder's "Minha autorização" and request forms, the
clerk's queue and decisions, the substitute vehicle's vistoria and leave returns."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import urlencode
from django.views import View
from django.views.generic import TemplateView

from licensing.grants import selectors as grants_selectors
from licensing.requests import selectors as sel
from licensing.requests import services as svc
from licensing.requests.forms import (
    DecideForm,
    InspectionForm,
    QueueFilterForm,
    ReturnForm,
    form_to_data,
)
from licensing.requests.kinds import KINDS
from licensing.requests.models import (
    AuxiliaryDriver,
    AuxiliaryStatus,
    LeaveOfAbsence,
    LifecycleRequest,
    RequestKind,
    RequestStatus,
)
from licensing.requests.rules import (
    CERTIFICATE_ISSUERS,
    HEIR_RELATIONSHIPS,
    SUBSTITUTION_GROUNDS,
    TRANSFER_GROUNDS,
)
from portal import regulation
from portal.exceptions import InvalidTransition, RuleViolation, RuleViolations
from portal.refusals import refusal_status
from portal.roles import Role, has_role
from portal.validators import format_cpf
from portal.views import RoleRequiredMixin

DESK = (Role.CLERK, Role.ADMIN)
PAGE_SIZE = 25


def apply_errors(form, exc) -> int:
    """Put a service's refusal on the form: beside its field, or at the top; returns the status to
    answer with (portal.refusals: 409 for a conflict with the state, 400 for invalid input)."""
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
    return refusal_status(exc)


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

# Labels of the data and effects of requests: each kind names its own (``Kind.labels``).
FIELD_LABELS = {"alvara": "alvará emitido"}
ACTION_LABELS = {
    "lifecycle_request_filed": "pedido protocolado", "lifecycle_request_decided": "pedido decidido",
    "yearly_obligation_late": "apresentado depois do prazo",
}
# Coded values of the requests' data, in words (the codes come from rules.py, with their articles).
VALUE_LABELS: dict[str, dict[str, str]] = {
    "ground": {**SUBSTITUTION_GROUNDS, **TRANSFER_GROUNDS},
    "relationship": dict(HEIR_RELATIONSHIPS),
    "certificate_issuer": dict(CERTIFICATE_ISSUERS),
}
for _kind in KINDS.values():
    FIELD_LABELS.update(_kind.labels)
    ACTION_LABELS.update(_kind.action_labels)


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
    """A request's data or effects as (Portuguese label, readable value) rows: coded values
    (a ground, a relationship, an issuer) in words, CPFs formatted (staff and the holder only)."""
    return [(FIELD_LABELS.get(k, k), _display_field(k, v)) for k, v in (data or {}).items()]


def _display_field(key: str, value) -> str:
    if isinstance(value, str) and value in VALUE_LABELS.get(key, {}):
        return VALUE_LABELS[key][value]
    if isinstance(value, str) and (key == "cpf" or key.endswith("_cpf")) and value.isdigit():
        return format_cpf(value)
    if isinstance(value, dict) and "number" not in value:
        return "; ".join(f"{FIELD_LABELS.get(k, k)}: {_display_field(k, v)}" for k, v in value.items())
    return _display(value)


# --- holder ----------------------------------------------------------------------------
class MyAuthorizationView(RoleRequiredMixin, TemplateView):
    """Minha autorização: the grant, alvarás, auxiliaries, vehicle, stand, fees, requests."""

    roles = (Role.APPLICANT,)
    template_name = "licensing/requests/mine.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        pack = regulation.current()
        grants = []
        for auth in grants_selectors.holder_authorizations(self.request.user):
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
    template_name = "licensing/requests/request_form.html"

    def _setup(self, request, pk: int, kind: str):
        if kind not in KINDS:
            raise Http404("Tipo de pedido desconhecido.")
        auth = sel.authorization_for_filing(request.user, pk, kind)
        return auth, KINDS[kind]

    def _form(self, spec, auth, data=None):
        return spec.make_form(spec.form, data, auth=auth, user=self.request.user)

    def _render(self, request, auth, kind, form, status=200):
        pack = regulation.current()
        provided = kind in dict(svc.request_kinds_provided(pack, auth))
        refusal = svc.request_refusal(pack, auth, kind) if provided else None
        return render(request, self.template_name, {
            "authorization": auth, "kind": kind, "kind_label": RequestKind(kind).label, "form": form,
            "available": provided, "refusal": str(refusal) if refusal else "", "pack": pack,
        }, status=status)

    def get(self, request, pk: int, kind: str):
        auth, spec = self._setup(request, pk, kind)
        return self._render(request, auth, kind, self._form(spec, auth))

    def post(self, request, pk: int, kind: str):
        auth, spec = self._setup(request, pk, kind)
        form = self._form(spec, auth, request.POST)
        status = 400
        if form.is_valid():
            try:
                req = svc.request_file(actor=request.user, authorization=auth, kind=kind, data=form_to_data(form))
            except SERVICE_ERRORS as exc:
                status = apply_errors(form, exc)
            else:
                messages.success(request, f"Pedido protocolado sob o nº {req.protocol}.")
                return redirect("lifecycle-request-detail", pk=req.pk)
        return self._render(request, auth, kind, form, status=status)


class RequestDetailView(RoleRequiredMixin, TemplateView):
    roles = (Role.APPLICANT, Role.CLERK, Role.ADMIN, Role.AGENT)
    template_name = "licensing/requests/request_detail.html"

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
        ctx["is_desk"] = grants_selectors.is_desk(self.request.user)
        ctx["can_inspect"] = has_role(self.request.user, *grants_selectors.INSPECTION_ROLES)
        if req.status == RequestStatus.FILED:
            ctx["decide_form"] = DecideForm()
            if req.kind == RequestKind.SUBSTITUTION:
                ctx["inspection_form"] = InspectionForm(items=pack.inspection_items(req.authorization.modality))
        return ctx


class QueueView(RoleRequiredMixin, TemplateView):
    """The clerk's queue of requests, with filters, counts and pagination."""

    roles = (*DESK, Role.AGENT)
    template_name = "licensing/requests/queue.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        form = QueueFilterForm(self.request.GET or {"status": RequestStatus.FILED})
        filters = form.cleaned_data if form.is_valid() else {}
        agent_only = not grants_selectors.is_desk(self.request.user)  # agents: substitutions awaiting the vistoria
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
    roles = grants_selectors.INSPECTION_ROLES

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
        if leave is None or not (grants_selectors.is_desk(request.user) or leave.authorization.holder_id == request.user.pk):
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
        if grants_selectors.is_desk(request.user):
            return redirect("lifecycle-request-detail", pk=leave.request_id)
        return redirect("lifecycle-mine")
