"""Application pages of the desk and the agents: the queue, the review and decision actions,
calls, the ranking and the vistorias. Every view checks the role."""

from __future__ import annotations

from datetime import datetime

from django.contrib import messages
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views import View

from licensing.applications import calls as applications_calls
from licensing.applications import desk_queues, rules, services
from licensing.applications import review as applications_review
from licensing.applications.forms import (
    CallForm,
    InspectionResultForm,
    QueueFilterForm,
    RejectForm,
    RequirementForm,
    ReviewForm,
    ScheduleForm,
    apply_errors,
)
from licensing.applications.models import (
    Application,
    ApplicationDocument,
    ApplicationStatus,
    Call,
    Inspection,
)
from licensing.applications.selectors import (
    approval_blockers,
    approval_preview,
    pending_ranking,
    proving_items,
    required_documents,
)
from licensing.applications.views.applicant import (
    CLERK,
    SERVICE_ERRORS,
    ApplicationDetailView,
    _crumbs,
    _message,
)
from portal import regulation
from portal.exceptions import RuleViolation
from portal.roles import Role
from portal.validators import normalize_plate, only_digits
from portal.views import RoleRequiredMixin

# --- clerk ---------------------------------------------------------------------------------------------


class QueueView(RoleRequiredMixin, View):
    roles = CLERK

    def get(self, request):
        form = QueueFilterForm(request.GET or None)
        qs = Application.objects.select_related("applicant", "vehicle")
        if form.is_valid():
            f = form.cleaned_data
            qs = qs.filter(status=f["status"]) if f.get("status") else qs.exclude(status=ApplicationStatus.DRAFT)
            if f.get("fila"):  # a queue of the desk (the clerk's panel links here)
                qs = qs.filter(pk__in=desk_queues.queue(f["fila"]).values("pk"))
            if f.get("modality"):
                qs = qs.filter(modality=f["modality"])
            if f.get("protocol"):
                qs = qs.filter(protocol__icontains=f["protocol"].strip())
            if f.get("cpf"):
                qs = qs.filter(applicant__cpf=only_digits(f["cpf"]))
            if f.get("plate"):
                qs = qs.filter(vehicle__plate=normalize_plate(f["plate"]))
            if f.get("date_from"):
                qs = qs.filter(submitted_at__date__gte=f["date_from"])
            if f.get("date_to"):
                qs = qs.filter(submitted_at__date__lte=f["date_to"])
            order = f.get("order") or "submitted_at"
        else:
            qs = qs.exclude(status=ApplicationStatus.DRAFT)
            order = "submitted_at"
        counts = dict(Application.objects.exclude(status=ApplicationStatus.DRAFT).values_list("status")
                      .annotate(n=Count("id")).values_list("status", "n"))
        page = Paginator(qs.order_by(order, "id"), 25).get_page(request.GET.get("page"))
        query = request.GET.copy()
        query.pop("page", None)
        return render(request, "licensing/applications/queue.html", {
            "form": form, "page_obj": page, "applications": page.object_list, "querystring": query.urlencode(),
            "counts": [(s, label, counts.get(s, 0)) for s, label in ApplicationStatus.choices
                       if s != ApplicationStatus.DRAFT],
            "crumbs": _crumbs(("Requerimentos", None))})


class ClerkActionView(RoleRequiredMixin, View):
    roles = CLERK

    def app(self, pk):
        return get_object_or_404(Application.objects.select_related("applicant", "vehicle"), pk=pk)

    def done(self, app, message):
        messages.success(self.request, message)
        return redirect("licensing-application", pk=app.pk)

    def fail(self, app, status: int = 400, **forms):
        """The page again with the form's errors: 400 for invalid input, 409 for a refusal that
        conflicts with the state of the application (portal.refusals). A conflict is said at the
        top of the page: in the application's new state the form may no longer be shown."""
        if status == 409:
            for form in forms.values():
                for error in form.errors.pop(NON_FIELD_ERRORS, []):
                    messages.error(self.request, error)
        ctx = ApplicationDetailView.context(self.request, app, **forms)
        return render(self.request, "licensing/applications/application_detail.html", ctx, status=status)


class DocumentReviewView(ClerkActionView):
    def post(self, request, pk, doc_id):
        app = self.app(pk)
        doc = get_object_or_404(ApplicationDocument, pk=doc_id, application=app)
        form = ReviewForm(request.POST, prefix=f"d{doc.pk}")
        if not form.is_valid():
            messages.error(request, "Informe a validade como DD/MM/AAAA." if "valid_until" in form.errors
                           else "Escolha aceitar ou recusar o documento.")
            return redirect("licensing-application", pk=app.pk)
        try:
            applications_review.document_review(actor=request.user, document=doc, accepted=form.cleaned_data["accepted"],
                                     reason=form.cleaned_data["reason"], valid_until=form.cleaned_data["valid_until"])
        except SERVICE_ERRORS as exc:
            text = _message(exc)
            messages.error(request, text)
            return redirect("licensing-application", pk=app.pk)
        return self.done(app, "Análise do documento registrada.")


class DocumentsAcceptView(ClerkActionView):
    """Accept, in one action, the documents the clerk marked as checked."""

    def post(self, request, pk):
        app = self.app(pk)
        ids = [v for v in request.POST.getlist("documents") if v.isdigit() and len(v) < 12]
        try:
            accepted = applications_review.documents_accept(actor=request.user, application=app, document_ids=ids)
        except SERVICE_ERRORS as exc:
            text = _message(exc)
            messages.error(request, text)
            return redirect("licensing-application", pk=app.pk)
        n = len(accepted)
        return self.done(app, f"{n} documento{'s' if n != 1 else ''} aceito{'s' if n != 1 else ''}.")


class RequirementView(ClerkActionView):
    def post(self, request, pk):
        app = self.app(pk)
        form = RequirementForm(request.POST, document_choices=[(i.code, i.label) for i in required_documents(app)])
        status = 400
        if form.is_valid():
            try:
                applications_review.requirement_raise(actor=request.user, application=app, text=form.cleaned_data["text"],
                                           document_type=form.cleaned_data["document_type"],
                                           due_date=form.cleaned_data["due_date"])
            except SERVICE_ERRORS as exc:
                status = apply_errors(form, exc)
            else:
                return self.done(app, "Exigência registrada; o requerente foi avisado.")
        return self.fail(app, status, requirement_form=form)


class ScheduleView(ClerkActionView):
    def post(self, request, pk):
        app = self.app(pk)
        form = ScheduleForm(request.POST)
        status = 400
        if form.is_valid():
            when = timezone.make_aware(datetime.combine(form.cleaned_data["date"], form.cleaned_data["time"]),
                                       regulation.current().tz)
            try:
                applications_review.inspection_schedule(actor=request.user, application=app, scheduled_for=when,
                                             agent=form.cleaned_data["agent"], location=form.cleaned_data["location"])
            except SERVICE_ERRORS as exc:
                status = apply_errors(form, exc)
            else:
                return self.done(app, "Vistoria agendada; o requerente foi avisado.")
        return self.fail(app, status, schedule_form=form)


class ApproveView(ClerkActionView):
    """Issuing is deliberate: GET (or a POST without ``confirm``) shows what the act will say;
    only the POST of that page, with ``confirm=1``, issues it."""

    def confirmation(self, request, app):
        return render(request, "licensing/applications/approve_confirm.html", {
            "application": app, "preview": approval_preview(app), "blockers": approval_blockers(app),
            "crumbs": _crumbs(("Requerimentos", reverse("licensing-queue")),
                              (str(app), reverse("licensing-application", args=[app.pk])), ("Confirmar a emissão", None))})

    def get(self, request, pk):
        return self.confirmation(request, self.app(pk))

    def post(self, request, pk):
        app = self.app(pk)
        if request.POST.get("confirm") != "1":
            return self.confirmation(request, app)
        try:
            authorization, _ = services.application_approve(actor=request.user, application=app)
        except SERVICE_ERRORS as exc:
            text = str(exc) if isinstance(exc, RuleViolation) else "; ".join(exc.messages) if isinstance(
                exc, ValidationError) else str(getattr(exc, "message", exc))
            messages.error(request, f"Não foi possível deferir: {text}")
            return redirect("licensing-application", pk=app.pk)
        return self.done(app, f"Deferido: {authorization.act_name} nº {authorization.number} emitida.")


class RejectView(ClerkActionView):
    def post(self, request, pk):
        app = self.app(pk)
        form = RejectForm(request.POST)
        status = 400
        if form.is_valid():
            try:
                services.application_reject(actor=request.user, application=app, reason=form.cleaned_data["reason"])
            except SERVICE_ERRORS as exc:
                status = apply_errors(form, exc)
            else:
                return self.done(app, "Requerimento indeferido; o requerente foi avisado.")
        return self.fail(app, status, reject_form=form)


class RankingView(RoleRequiredMixin, View):
    """Ranking of the pending requests by the pack's criteria, each criterion's value shown."""

    roles = CLERK

    def get(self, request):
        pack = regulation.current()
        modalities = [m for m in ("taxi", "mototaxi") if pack.has_modality(m)]
        modality = request.GET.get("modality") if request.GET.get("modality") in modalities else modalities[0]
        ranking = pending_ranking(modality)
        criteria, free = ranking.criteria, ranking.free
        admission = [c for c in proving_items(pack, modality) if c not in criteria]

        def cell(entry, criterion, value):  # the value and whether it is proven or only declared
            state = entry.proof_of(criterion)
            return {"value": value, "proof": state, "proof_label": rules.PROOF_LABELS[state]}

        rows = [{"position": i, "application": e.key, "within": ranking.within(i),
                 "values": [cell(e, c, rules.criterion_display(e, c)) for c in criteria],
                 "admission": [cell(e, c, "") for c in admission]}
                for i, e in enumerate(ranking.entries, start=1)]
        return render(request, "licensing/applications/ranking.html", {
            "modality": modality, "modalities": [(m, pack.modality_label(m)) for m in modalities],
            "admission": [rules.ADMISSION_LABELS.get(c, c) for c in admission],
            "colspan": len(criteria) + len(admission) + 4,
            "criteria": [rules.RANKING_LABELS.get(c, c) for c in criteria], "criteria_basis": pack.basis(
                "ranking.criteria", modality), "rows": rows, "slots": ranking.slots, "current": ranking.current,
            "free": free, "quota_basis": ranking.quota_basis, "exceeds": ranking.exceeds,
            "renewals_compete": ranking.renewals_compete,
            "crumbs": _crumbs(("Requerimentos", reverse("licensing-queue")), ("Classificação", None))})


class CallsView(RoleRequiredMixin, View):
    roles = CLERK

    def render_page(self, request, form, status=200):
        calls = Call.objects.annotate(n_apps=Count("applications", filter=~Q(applications__status="draft")))
        page = Paginator(calls.order_by("-start", "-id"), 20).get_page(request.GET.get("page"))
        return render(request, "licensing/applications/calls.html", {
            "form": form, "page_obj": page, "calls": page.object_list, "today": regulation.current().today(),
            "crumbs": _crumbs(("Editais", None))}, status=status)

    def get(self, request):
        return self.render_page(request, CallForm())

    def post(self, request):
        form = CallForm(request.POST)
        status = 400
        if form.is_valid():
            try:
                call, created = applications_calls.call_open(actor=request.user, **form.cleaned_data)
            except SERVICE_ERRORS as exc:
                status = apply_errors(form, exc)
            else:
                messages.success(request, f"{'Edital aberto' if created else 'Este edital já existia'}: {call}.")
                return redirect("licensing-calls")
        return self.render_page(request, form, status=status)


# --- agent ---------------------------------------------------------------------------------------------


class AgentInspectionsView(RoleRequiredMixin, View):
    roles = (Role.AGENT,)

    def get(self, request):
        qs = (Inspection.objects.filter(agent=request.user).select_related("application", "application__vehicle",
                                                                           "application__applicant")
              .order_by("recorded_at", "scheduled_for", "id"))
        page = Paginator(qs, 25).get_page(request.GET.get("page"))
        return render(request, "licensing/applications/agent_inspections.html", {
            "page_obj": page, "inspections": page.object_list, "crumbs": _crumbs(("Vistorias", None))})


class InspectionRecordView(RoleRequiredMixin, View):
    roles = (Role.AGENT,)

    def _get(self, request, pk):
        return get_object_or_404(Inspection.objects.select_related("application", "application__vehicle"), pk=pk,
                                 agent=request.user)

    def _render(self, request, inspection, form, status=200):
        return render(request, "licensing/applications/inspection_record.html", {
            "inspection": inspection, "application": inspection.application, "form": form,
            "crumbs": _crumbs(("Vistorias", reverse("licensing-agent-inspections")), (str(inspection), None))},
            status=status)

    def get(self, request, pk):
        inspection = self._get(request, pk)
        items = regulation.current().inspection_items(inspection.application.modality)
        return self._render(request, inspection, InspectionResultForm(items=items))

    def post(self, request, pk):
        inspection = self._get(request, pk)
        items = regulation.current().inspection_items(inspection.application.modality)
        form = InspectionResultForm(request.POST, items=items)
        status = 400
        if form.is_valid():
            try:
                applications_review.inspection_record(actor=request.user, inspection=inspection,
                                           approved=form.cleaned_data["approved"], checklist=form.checklist(),
                                           notes=form.cleaned_data["notes"])
            except SERVICE_ERRORS as exc:
                status = apply_errors(form, exc)
            else:
                messages.success(request, "Resultado da vistoria registrado.")
                return redirect("licensing-agent-inspections")
        return self._render(request, inspection, form, status=status)
