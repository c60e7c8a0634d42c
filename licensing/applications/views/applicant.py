"""Application pages of the applicant: profile, the wizard, the status page, uploads and the
application's PDFs. Every view checks the role; records of others answer 404."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views import View

from licensing.applications import services
from licensing.applications.documents import (
    declaration_item,
    declaration_pdf,
    inspection_pdf,
    issued_receipt_pdf,
)
from licensing.applications.forms import (
    AuxiliariesForm,
    DriverForm,
    ModalityForm,
    ProfileForm,
    RejectForm,
    RequirementForm,
    ReviewForm,
    ScheduleForm,
    UploadForm,
    VehicleForm,
    apply_errors,
)
from licensing.applications.models import (
    OPEN_APPLICATION_STATUSES,
    ApplicantProfile,
    Application,
    ApplicationDocument,
    ApplicationKind,
    ApplicationStatus,
    DocumentStatus,
)
from licensing.applications.next_steps import next_steps
from licensing.applications.selectors import (
    applications_visible_to,
    approval_blockers,
    current_documents,
    document_label,
    pending_ranking,
    plate_conflict,
    required_documents,
)
from licensing.fees.services import application_tff, application_tff_issue
from licensing.grants.selectors import act_chain
from portal import regulation
from portal.audit import audit_log, history_for
from portal.audit_actions import AUDIT_ACTION_LABELS, AuditAction
from portal.exceptions import InvalidTransition, RuleViolation, RuleViolations
from portal.numbers import brl
from portal.refusals import refusal_status
from portal.roles import Role, has_role
from portal.uploads import sandboxed_file_response
from portal.views import RoleRequiredMixin

CLERK = (Role.CLERK, Role.ADMIN)
SERVICE_ERRORS = (ValidationError, RuleViolation, RuleViolations, InvalidTransition)


def _message(exc) -> str:
    """One line for a flash message from a service error."""
    return "; ".join(exc.messages) if isinstance(exc, ValidationError) else str(getattr(exc, "message", exc))
STATUS_LABELS = dict(ApplicationStatus.choices)
DOCUMENT_STATUS_LABELS = dict(DocumentStatus.choices)
ACTION_LABELS = AUDIT_ACTION_LABELS  # one vocabulary: portal.audit_actions.AuditAction
STEPS = [("modality", "Modalidade"), ("vehicle", "Veículo"), ("driver", "Condutor"), ("auxiliaries", "Auxiliares"),
         ("documents", "Documentos"), ("review", "Conferir e enviar")]
STEP_NAMES = [s for s, _ in STEPS]


def _pdf(content: bytes, name: str) -> HttpResponse:
    response = HttpResponse(content, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{name}"'
    response["Cache-Control"] = "private, no-store"
    return response


def _crumbs(*items):
    return list(items)


# --- applicant ---------------------------------------------------------------------------------------


class ProfileView(RoleRequiredMixin, View):
    roles = (Role.APPLICANT,)
    template = "licensing/applications/profile.html"

    def _ctx(self, form):
        return {"form": form, "crumbs": _crumbs(("Meu perfil", None))}

    def get(self, request):
        profile = ApplicantProfile.objects.filter(user=request.user).first()
        return render(request, self.template, self._ctx(ProfileForm(instance=profile)))

    def post(self, request):
        profile = ApplicantProfile.objects.filter(user=request.user).first() or ApplicantProfile(user=request.user)
        form = ProfileForm(request.POST, instance=profile)
        if form.is_valid():
            form.save()
            audit_log(actor=request.user, obj=profile, action=AuditAction.PROFILE_UPDATED)
            messages.success(request, "Perfil salvo.")
            return redirect("licensing-profile")
        return render(request, self.template, self._ctx(form), status=400)


class MyApplicationsView(RoleRequiredMixin, View):
    roles = (Role.APPLICANT,)

    def get(self, request):
        qs = Application.objects.filter(applicant=request.user).select_related("vehicle", "authorization")
        page = Paginator(qs.order_by("-created_at", "-id"), 20).get_page(request.GET.get("page"))
        return render(request, "licensing/applications/my_applications.html", {
            "page_obj": page, "applications": page.object_list, "crumbs": _crumbs(("Meus requerimentos", None))})


def _own_draft(request, pk) -> Application:
    return get_object_or_404(Application, pk=pk, applicant=request.user)


def _step_url(app: Application, step: str) -> str:
    return reverse("licensing-application-step", kwargs={"pk": app.pk, "step": step})


class WizardMixin(RoleRequiredMixin):
    roles = (Role.APPLICANT,)

    def render_step(self, request, app, step, form=None, status=200, **extra):
        ctx = {"application": app, "step": step, "steps": STEPS, "step_title": dict(STEPS)[step], "step_index": STEP_NAMES.index(step) + 1,
               "step_total": len(STEPS), "form": form, "pack": regulation.current(),
               "crumbs": _crumbs(("Meus requerimentos", reverse("licensing-my-applications")),
                                 ("Novo requerimento", None)), **extra}
        return render(request, f"licensing/applications/wizard/{step}.html", ctx, status=status)


class ApplicationNewView(WizardMixin, View):
    """Step 1: modality and kind. Creates the draft."""

    def _bidding(self):
        pack = regulation.current()
        return any(pack.value("selection.method", m) == "bidding" for m in pack.modalities)

    def get(self, request):
        draft = Application.objects.filter(applicant=request.user, status=ApplicationStatus.DRAFT).first()
        form = ModalityForm(bidding=self._bidding())
        return render(request, "licensing/applications/wizard/modality.html", {
            "form": form, "steps": STEPS, "step": "modality", "step_index": 1, "step_total": len(STEPS),
            "draft": draft, "crumbs": _crumbs(("Meus requerimentos", reverse("licensing-my-applications")),
                                              ("Novo requerimento", None))})

    def post(self, request):
        form = ModalityForm(request.POST, bidding=self._bidding())
        status = 400
        if form.is_valid():
            data = form.cleaned_data
            profile = ApplicantProfile.objects.filter(user=request.user).first()
            try:
                app = services.application_create(
                    actor=request.user, applicant=request.user, kind=data["kind"], modality=data["modality"],
                    bid_amount=data.get("bid_amount"), steps=("modality",), holder=form.holder(),
                    extra={"schooling": profile.schooling, "dependents": profile.dependents,
                           "cnh_points": profile.cnh_points} if profile else None)
            except SERVICE_ERRORS as exc:
                status = apply_errors(form, exc)
            else:
                app.wizard_step = "vehicle"
                app.save(update_fields=["wizard_step"])
                return redirect(_step_url(app, "vehicle"))
        draft = Application.objects.filter(applicant=request.user, status=ApplicationStatus.DRAFT).first()
        return render(request, "licensing/applications/wizard/modality.html", {
            "form": form, "steps": STEPS, "step": "modality", "step_index": 1, "step_total": len(STEPS),
            "draft": draft, "crumbs": _crumbs(("Meus requerimentos", reverse("licensing-my-applications")),
                                              ("Novo requerimento", None))}, status=status)


class ApplicationStepView(WizardMixin, View):
    def _form(self, app, step, data=None):
        pack = regulation.current()
        # what was typed and kept "for later" is the latest word on every field of its step
        typed = (app.typed or {}).get(step)
        if step == "vehicle":
            v = app.vehicle
            initial = {f: getattr(v, f) for f in VehicleForm.base_fields} if v else {}
            if v:
                initial["plate"] = v.display_plate
            return VehicleForm(data, initial=typed or initial)
        if step == "driver":
            profile = ApplicantProfile.objects.filter(user=app.applicant).first()
            initial = {f: getattr(app, f) for f in DriverForm.base_fields}
            if not app.cnh_category and profile:
                initial.update({f: getattr(profile, f) for f in DriverForm.base_fields if hasattr(profile, f)})
            return DriverForm(data, initial=typed or initial)
        if step == "auxiliaries":
            slots = int(pack.value("auxiliary.max", app.modality, default=2))
            initial = {}
            for a in app.auxiliaries.all():
                for f in ("cpf", "name", "birth_date", "cnh_number", "cnh_category", "cnh_first_issued", "cnh_ear"):
                    initial[f"aux{a.position}_{f}"] = getattr(a, f)
            return AuxiliariesForm(data, initial=typed or initial, slots=max(slots, 0))
        return None

    def _keep_typed(self, request, app, step, form):
        """"Salvar e continuar depois" with a step not valid yet: keep the values as typed."""
        values = {name: request.POST.get(name, "") for name in form.fields if name in request.POST}
        try:
            services.application_keep_typed(actor=request.user, application=app, step=step, values=values)
        except SERVICE_ERRORS as exc:
            messages.error(request, _message(exc))
            return redirect("licensing-application", pk=app.pk)
        messages.success(request, f"Rascunho salvo com o que você digitou. A etapa “{dict(STEPS)[step]}” será "
                                  "conferida quando você clicar em “Salvar e continuar”.")
        return redirect("licensing-my-applications")

    def _docs_ctx(self, app):
        sent = current_documents(app)
        tff = application_tff(app)
        waived = tff.receipt_code if tff is not None and tff.settlement.receipt_waived else ""
        result = _pop_upload_error(self.request, app)
        return {"items": upload_rows(required_documents(app), sent, result, waived),
                "has_declaration": declaration_item(app) is not None, "tff": tff, "is_owner": True}

    def get(self, request, pk, step):
        app = _own_draft(request, pk)
        if step not in STEP_NAMES or step == "modality":
            raise Http404
        if app.status != ApplicationStatus.DRAFT:
            return redirect("licensing-application", pk=app.pk)
        extra = {}
        if step == "documents":
            extra = self._docs_ctx(app)
        if step == "review":
            extra = {**self._docs_ctx(app), "auxiliaries": list(app.auxiliaries.all())}
        return self.render_step(request, app, step, self._form(app, step), **extra)

    def post(self, request, pk, step):
        app = _own_draft(request, pk)
        if step not in ("vehicle", "driver", "auxiliaries"):
            raise Http404
        form = self._form(app, step, request.POST)
        status = 400
        if form.is_valid():
            data = form.cleaned_data
            kwargs = {}
            if step == "vehicle":
                kwargs["vehicle"] = dict(data)
            elif step == "driver":
                kwargs["driver"] = {k: data.get(k) for k in ("cnh_number", "cnh_category", "cnh_first_issued",
                                                              "cnh_ear", "cnh_points")}
                kwargs["extra"] = {"schooling": data.get("schooling"), "dependents": data.get("dependents")}
            else:
                kwargs["auxiliaries"] = form.auxiliaries
            try:
                app = services.application_update(actor=request.user, application=app, step=step, **kwargs)
            except SERVICE_ERRORS as exc:
                mapping = {f"auxiliary_drivers.{i}.{f}": f"aux{i}_{f}" for i in range(1, 6)
                           for f in ("cpf", "name", "cnh_category", "cnh_first_issued", "cnh_ear", "birth_date")}
                status = apply_errors(form, exc, mapping)
                if request.POST.get("later"):
                    return self._keep_typed(request, app, step, form)
            else:
                nxt = STEP_NAMES[STEP_NAMES.index(step) + 1]
                if STEP_NAMES.index(nxt) > STEP_NAMES.index(app.wizard_step or "modality"):
                    app.wizard_step = nxt
                    app.save(update_fields=["wizard_step"])
                if request.POST.get("later"):
                    messages.success(request, "Rascunho salvo. Você pode continuar depois em “Meus requerimentos”.")
                    return redirect("licensing-my-applications")
                return redirect(_step_url(app, nxt))
        elif request.POST.get("later"):
            return self._keep_typed(request, app, step, form)
        return self.render_step(request, app, step, form, status=status)


class ApplicationSubmitView(RoleRequiredMixin, View):
    roles = (Role.APPLICANT,)

    def post(self, request, pk):
        app = _own_draft(request, pk)
        try:
            services.application_submit(actor=request.user, application=app)
        except SERVICE_ERRORS as exc:
            problems = [str(v) for v in exc.violations] if isinstance(exc, RuleViolations) else (
                [m for ms in exc.message_dict.values() for m in ms] if isinstance(exc, ValidationError)
                and hasattr(exc, "message_dict") else [str(getattr(exc, "message", exc))])
            sent = current_documents(app)
            return render(request, "licensing/applications/wizard/review.html", {
                "application": app, "step": "review", "steps": STEPS, "step_index": len(STEPS),
                "step_total": len(STEPS), "problems": problems, "auxiliaries": list(app.auxiliaries.all()),
                "items": [{"item": i, "doc": sent.get(i.code)} for i in required_documents(app)],
                "crumbs": _crumbs(("Novo requerimento", None))}, status=refusal_status(exc))
        return redirect(reverse("licensing-application", kwargs={"pk": app.pk}) + "?protocolado=1")


class ApplicationWithdrawView(RoleRequiredMixin, View):
    """Desistência of the applicant's own request (a draft or a request not yet decided)."""

    roles = (Role.APPLICANT,)

    def post(self, request, pk):
        app = _own_draft(request, pk)
        try:
            services.application_withdraw(actor=request.user, application=app, reason=request.POST.get("reason", ""))
        except SERVICE_ERRORS as exc:
            messages.error(request, str(getattr(exc, "message", exc)))
            return redirect("licensing-application", pk=app.pk)
        messages.success(request, "Desistência registrada. O requerimento foi encerrado.")
        return redirect("licensing-my-applications")


def _pop_upload_error(request, app) -> dict:
    """{item code: why its last file was refused, or "" when it was received} from the last
    upload (set by DocumentUploadView), shown beside each item."""
    result = request.session.get("upload_result")
    if result and result.get("application") == app.pk:
        del request.session["upload_result"]
        return {"errors": result.get("errors", {}), "received": result.get("received", [])}
    return {"errors": {}, "received": []}


def upload_rows(items, sent: dict, result: dict, waived: str) -> list[dict]:
    return [{"item": i, "doc": sent.get(i.code), "waived": i.code == waived,
             "error": result["errors"].get(i.code, ""), "received": i.code in result["received"]} for i in items]


FILE_PREFIX = "file-"  # one file input per checklist item: name "file-<item code>"


class DocumentUploadView(RoleRequiredMixin, View):
    """Files for one or several checklist items in one post; each item is judged on its own
    (one refused file does not stop the others), and the page returns to the first item that
    needs attention (a refused one, else the last received)."""

    roles = (Role.APPLICANT,)

    def post(self, request, pk):
        app = _own_draft(request, pk)
        back = _step_url(app, "documents") if app.status == ApplicationStatus.DRAFT else reverse(
            "licensing-application", kwargs={"pk": app.pk})
        chosen = [(name[len(FILE_PREFIX):], f) for name, f in request.FILES.items() if name.startswith(FILE_PREFIX)]
        form = UploadForm(request.POST, request.FILES)
        if not chosen and form.is_valid():  # the single-item form (API clients, older pages)
            chosen = [(form.cleaned_data["type"], form.cleaned_data["file"])]
        if not chosen:
            messages.error(request, "Escolha um arquivo PDF, JPEG ou PNG para enviar.")
            return redirect(back)
        labels = {i.code: i.label for i in required_documents(app)}
        errors: dict[str, str] = {}
        received: list[str] = []
        for code, file in chosen[:len(labels) or 1]:
            try:
                services.document_upload(actor=request.user, application=app, doc_type=code, file=file)
            except SERVICE_ERRORS as exc:
                errors[code] = _message(exc)
            else:
                received.append(code)
        if received:
            names = "; ".join(f"“{labels.get(c, c)}”" for c in received)
            messages.success(request, f"{'Arquivo recebido' if len(received) == 1 else 'Arquivos recebidos'} "
                                      f"para {names}.")
        if errors:
            names = "; ".join(f"“{labels.get(c, c)}”: {t}" for c, t in errors.items())
            messages.error(request, f"Não {'foi aceito o arquivo' if len(errors) == 1 else 'foram aceitos os arquivos'} "
                                    f"de {names} Os arquivos já enviados continuam guardados.")
        # shown again beside each item, which the page scrolls to
        request.session["upload_result"] = {"application": app.pk, "errors": errors, "received": received}
        focus = next(iter(errors), None) or received[-1]
        return redirect(f"{back}#doc-{focus}")


class ApplicationTffView(RoleRequiredMixin, View):
    """The applicant issues the DAM of the TFF of the year (Pix), to pay before the grant."""

    roles = (Role.APPLICANT,)

    def post(self, request, pk):
        app = _own_draft(request, pk)
        back = _step_url(app, "documents") if app.status == ApplicationStatus.DRAFT else reverse(
            "licensing-application", kwargs={"pk": app.pk})
        try:
            fee, created = application_tff_issue(actor=request.user, application=app)
        except SERVICE_ERRORS as exc:
            text = _message(exc)
            messages.error(request, f"O DAM da TFF não foi emitido: {text}")
        else:
            messages.success(request, f"DAM nº {fee.number} {'emitido' if created else 'já emitido antes'}: "
                                      f"{brl(fee.amount)}, vencimento {fee.due_date:%d/%m/%Y}.")
        return redirect(back)


class ApplicationDetailView(RoleRequiredMixin, View):
    """Status page (applicant) and work page (clerk); agents see what the vistoria needs."""

    roles = (Role.APPLICANT, Role.CLERK, Role.ADMIN, Role.AGENT)

    def get(self, request, pk):
        app = get_object_or_404(applications_visible_to(request.user).select_related(
            "applicant", "vehicle", "authorization", "call"), pk=pk)
        return render(request, "licensing/applications/application_detail.html", self.context(request, app))

    @staticmethod
    def context(request, app, **forms):
        is_clerk = has_role(request.user, *CLERK)
        is_owner = app.applicant_id == request.user.pk
        sent = current_documents(app)
        tff = application_tff(app) if is_clerk or is_owner else None
        waived = tff.receipt_code if tff is not None and tff.settlement.receipt_waived else ""
        items = []
        result = _pop_upload_error(request, app) if is_owner else {"errors": {}, "received": []}
        open_reqs = [r for r in app.requirements.all() if r.is_open]
        validity = {d["code"]: d.get("validity") for d in regulation.current().data.get("documents", [])}
        for item in required_documents(app):
            doc = sent.get(item.code)
            can_upload = is_owner and app.status in OPEN_APPLICATION_STATUSES and (
                doc is None or doc.status == DocumentStatus.REJECTED
                or any(r.document_type in ("", item.code) for r in open_reqs))
            items.append({"item": item, "doc": doc, "can_upload": can_upload, "waived": item.code == waived,
                          "dated": validity.get(item.base_code) == "dated",
                          "error": result["errors"].get(item.code, ""), "received": item.code in result["received"],
                          "review_form": ReviewForm(prefix=f"d{doc.pk}") if doc else None})
        inspection = app.inspections.select_related("agent").order_by("-scheduled_for", "-id").first()
        just_submitted = request.GET.get("protocolado") == "1" and app.protocol
        checklist = [row["item"] for row in items]
        ctx = {
            "application": app, "items": items, "is_clerk": is_clerk, "is_owner": is_owner, "tff": tff,
            "history": [{"at": e.at, "label": ACTION_LABELS.get(e.action, e.action),
                         "to": STATUS_LABELS.get(e.to_state) or DOCUMENT_STATUS_LABELS.get(e.to_state, e.to_state),
                         "reason": e.reason, "actor": e.actor_name if is_clerk else "",
                         "type": document_label(app, (e.data or {})["type"], checklist)
                         if (e.data or {}).get("type") else ""}
                        for e in history_for(app) if e.action != "document_viewed" or is_clerk],
            "requirements": list(app.requirements.all()), "inspection": inspection,
            "just_submitted": just_submitted,
            "alvaras": list(app.authorization.alvaras.all()) if app.authorization else [],
            "chain": act_chain(app.authorization) if app.authorization and (is_clerk or is_owner) else [],
            "can_upload_any": app.status != ApplicationStatus.DRAFT and any(
                r["can_upload"] and not r["waived"] for r in items),
            "has_declaration": declaration_item(app) is not None,
            "crumbs": _crumbs(("Meus requerimentos" if is_owner and not is_clerk else "Requerimentos",
                               reverse("licensing-queue") if is_clerk else reverse(
                                   "licensing-my-applications") if is_owner else None), (str(app), None)),
        }
        if is_owner and not just_submitted:  # what to do now, at the top (the panel shows the same)
            ctx["next_steps"] = [c for c in next_steps(request.user) if c["app"] == app.pk and c["kind"] != "waiting"]
        if is_clerk:
            ctx.update({
                "requirement_form": forms.get("requirement_form") or RequirementForm(
                    document_choices=[(i.code, i.label) for i in required_documents(app)]),
                "schedule_form": forms.get("schedule_form") or ScheduleForm(),
                "reject_form": forms.get("reject_form") or RejectForm(),
                "blockers": _summarise(approval_blockers(app)) if app.status in OPEN_APPLICATION_STATUSES else [],
                "ranking": _ranking_note(app),
                "plate_conflict": plate_conflict(app),
                "pending_documents": sum(1 for row in items if row["doc"] is not None
                                         and row["doc"].status == DocumentStatus.PENDING)
                if app.status in OPEN_APPLICATION_STATUSES and app.status != ApplicationStatus.DRAFT else 0,
            })
        return ctx


def _ranking_note(app: Application) -> dict | None:
    """Where a new request stands in the ranking when the requests exceed the free places:
    the clerk is told before granting out of order (the pack's ranking criteria)."""
    if app.kind != ApplicationKind.NEW or app.status not in OPEN_APPLICATION_STATUSES \
            or app.status == ApplicationStatus.DRAFT:
        return None
    ranking = pending_ranking(app.modality)
    position = ranking.position_of(app.pk)
    if position is None or not ranking.exceeds:
        return None
    return {"position": position, "total": len(ranking.entries), "free": ranking.free, "new": ranking.new_requests,
            "within": ranking.within(position), "basis": regulation.current().basis("ranking.criteria", app.modality)}


def _summarise(blockers: list[str]) -> list[str]:
    docs = [b for b in blockers if b.startswith("Documento")]
    rest = [b for b in blockers if not b.startswith("Documento")]
    pending = (f"{len(docs)} documento ainda não aceito." if len(docs) == 1
               else f"{len(docs)} documentos ainda não aceitos.")
    return ([pending] if docs else []) + rest


class ReceiptPdfView(RoleRequiredMixin, View):
    roles = (Role.APPLICANT, Role.CLERK, Role.ADMIN)

    def get(self, request, pk):
        app = get_object_or_404(applications_visible_to(request.user), pk=pk, protocol__isnull=False)
        return _pdf(issued_receipt_pdf(app), f"protocolo-{app.protocol.replace('/', '-')}.pdf")


class DeclarationPdfView(RoleRequiredMixin, View):
    roles = (Role.APPLICANT, Role.CLERK, Role.ADMIN)

    def get(self, request, pk):
        app = get_object_or_404(applications_visible_to(request.user), pk=pk)
        if declaration_item(app) is None:
            raise Http404
        return _pdf(declaration_pdf(app), "declaracao.pdf")


class InspectionPdfView(RoleRequiredMixin, View):
    roles = (Role.CLERK, Role.ADMIN, Role.AGENT)

    def get(self, request, pk):
        app = get_object_or_404(applications_visible_to(request.user), pk=pk)
        return _pdf(inspection_pdf(app), f"vistoria-{app.pk}.pdf")


class DocumentFileView(RoleRequiredMixin, View):
    """A document sent by the applicant, shown inline to the owner and clerks; every view is audited."""

    roles = (Role.APPLICANT, Role.CLERK, Role.ADMIN)

    def get(self, request, pk, doc_id):
        app = get_object_or_404(applications_visible_to(request.user), pk=pk)
        doc = get_object_or_404(ApplicationDocument, pk=doc_id, application=app)
        if doc.purged_at is not None or not doc.file:
            raise Http404("O arquivo foi apagado pela política de retenção de dados (LGPD).")
        audit_log(actor=request.user, obj=app, action=AuditAction.DOCUMENT_VIEWED, data={"document": doc.pk, "type": doc.type})
        ext = doc.file.name.rsplit(".", 1)[-1]
        # shown inside the clerk's page (same origin only), images sandboxed (portal.uploads)
        return sandboxed_file_response(doc.file, f"{doc.type.replace(':', '-')}.{ext}", mime=doc.mime)


class RenewalStartView(RoleRequiredMixin, View):
    """"Renovar" on the holder's grant page: a renewal draft prefilled from the grant, then the
    wizard; a rule that refuses the renewal today is shown on the grant page."""

    roles = (Role.APPLICANT,)

    def post(self, request, pk: int):
        from licensing.applications.renewal import renewal_start
        from licensing.grants.models import Authorization

        auth = get_object_or_404(Authorization, pk=pk, holder=request.user)  # another's grant: 404
        try:
            app = renewal_start(actor=request.user, authorization=auth)
        except SERVICE_ERRORS as exc:
            messages.error(request, f"Renovação não iniciada: {_message(exc)}")
            return redirect("lifecycle-mine")
        return redirect(_step_url(app, app.wizard_step or "vehicle"))

