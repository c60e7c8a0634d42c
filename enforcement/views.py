"""HTML pages of enforcement: agent (plate lookup, auto), clerk (notice, DAM), holder (my
autos, defense, appeal), julgador (queue, judgement, appeal, cancel)."""

from __future__ import annotations

from abc import abstractmethod
from datetime import timedelta

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views import View
from django.views.generic import TemplateView

from enforcement import forms, rules, selectors, services
from enforcement.models import Fine, InfractionStatus
from portal import regulation
from portal.actions import ActionView as BaseActionView
from portal.audit import history_for
from portal.audit_actions import AUDIT_ACTION_LABELS
from portal.exceptions import InvalidTransition, RuleViolation
from portal.refusals import SERVICE_ERRORS, apply_refusal
from portal.roles import STAFF_ROLES, Role, has_role
from portal.views import RoleRequiredMixin

S = InfractionStatus
AGENT_ROLES = (Role.AGENT, Role.CLERK, Role.ADMIN)
JUDGE_ROLES = (Role.JUDGE,)
# who may reach the appeals: julgadores, and the authority a municipality designates to decide
# them (``appeal.designated_authority``), who needs not be a julgador and reaches nothing else
APPEAL_ROLES = (Role.JUDGE, Role.APPEAL_AUTHORITY)
CLERK_ROLES = (Role.CLERK, Role.ADMIN)

ACTION_LABELS = AUDIT_ACTION_LABELS  # one vocabulary: portal.audit_actions.AuditAction


def _history(inf) -> list[dict]:
    return [{"at": e.at, "label": ACTION_LABELS.get(e.action, e.action), "from": e.from_state, "to": e.to_state,
             "actor": e.actor_name, "reason": e.reason} for e in history_for(inf)]


def _context_for(inf, user) -> dict:
    pack = regulation.current()
    proc = selectors.procedure(inf, pack)
    return {
        "procedure": proc,
        "inf": inf,
        "pack": pack,
        "history": _history(inf),
        "notice": getattr(inf, "notice", None) if hasattr(inf, "notice") else None,
        "defense": getattr(inf, "defense", None) if hasattr(inf, "defense") else None,
        "judgement": getattr(inf, "judgement", None) if hasattr(inf, "judgement") else None,
        "fine": getattr(inf, "fine", None) if hasattr(inf, "fine") else None,
        "appeals": list(inf.appeals.all()),
        "photos": list(inf.photos.all()),
        "attachments": list(inf.attachments.all()),
        "is_holder": inf.holder_id == user.pk,
        "is_staff": has_role(user, *STAFF_ROLES),
        "is_judge": has_role(user, Role.JUDGE),
        "is_clerk": has_role(user, *CLERK_ROLES),
        "pending_appeal": inf.appeals.filter(granted__isnull=True).exists(),
        # the designation (or its absence) decides who may decide the appeal of this auto
        "can_decide_appeal": (has_role(user, *APPEAL_ROLES)
                              and selectors.appeal_decider_refusal(user, inf, pack) is None),
        "awaits_regularisation": (inf.status == S.FINAL and not inf.suspension_lifted and inf.authorization_id is not None
                                  and bool({"suspension_until_regularised", "impediment"}
                                           & set((inf.penalty or {}).get("kinds", [])))
                                  and inf.authorization.status == "suspended"
                                  and inf.authorization.suspended_until is None),
        "can_defend": (inf.holder_id == user.pk and inf.status == S.NOTIFIED and bool(inf.defense_deadline)
                       and inf.defense_deadline >= pack.today()),
        "can_appeal": (inf.holder_id == user.pk and inf.status == S.UPHELD and (
            inf.decision_notice_pending or (bool(inf.appeal_deadline) and inf.appeal_deadline >= pack.today()))),
        "can_allege": (inf.holder_id == user.pk and inf.status == S.DISMISSED and inf.review_hearing_deadline is not None
                       and inf.review_hearing_deadline >= pack.today()),
        "can_waive": (inf.holder_id == user.pk and inf.status == S.NOTIFIED and bool(inf.defense_deadline)
                      and inf.defense_deadline >= pack.today()),
        "action_codes": {a["code"] for a in proc["actions"]},
    }


# --- agent ---------------------------------------------------------------------------
class LookupView(RoleRequiredMixin, View):
    roles = AGENT_ROLES
    template_name = "enforcement/lookup.html"

    def get(self, request):
        form = forms.PlateLookupForm(request.GET or None)
        result = None
        if form.is_bound and form.is_valid():
            result = selectors.vehicle_status(form.cleaned_data["plate"], regulation.current().today(),
                                              form.cleaned_data.get("driver_cpf", ""),
                                              with_photos=has_role(request.user, Role.AGENT))
        return render(request, self.template_name,
                      {"form": form, "result": result, "can_issue": has_role(request.user, Role.AGENT)})


class InfractionCreateView(RoleRequiredMixin, View):
    roles = (Role.AGENT,)
    template_name = "enforcement/infraction_form.html"

    def get(self, request):
        initial = {"plate": request.GET.get("plate", "")}
        return render(request, self.template_name, {"form": forms.InfractionForm(initial=initial)})

    def post(self, request):
        form = forms.InfractionForm(request.POST, request.FILES)
        status = 400
        if form.is_valid():
            d = form.cleaned_data
            try:
                inf, created = services.infraction_issue(
                    actor=request.user, plate=d["plate"], infraction_code=d["infraction_code"],
                    occurred_at=d["occurred_at"], location=d["location"], description=d["description"],
                    driver_cpf=d["driver_cpf"], driver_name=d["driver_name"], alvara_retained=d["alvara_retained"],
                    signature_refused=d["signature_refused"], extra_codes=d["extra_codes"],
                    idempotency_key=d["idempotency_key"], photos=d["photos"],
                )
            except SERVICE_ERRORS as exc:
                status = apply_refusal(form, exc)
            else:
                messages.success(request, f"Auto de infração nº {inf.number} lavrado." if created else
                                 f"Este envio já tinha sido registrado: auto nº {inf.number}.")
                return redirect("enforcement:detail", pk=inf.pk)
        return render(request, self.template_name, {"form": form}, status=status)


# --- lists ---------------------------------------------------------------------------
class StaffListView(RoleRequiredMixin, TemplateView):
    roles = STAFF_ROLES
    template_name = "enforcement/list.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        qs = selectors.infractions_for(self.request.user).order_by("-occurred_at", "-id")
        status = self.request.GET.get("status", "")
        if status in S.values:
            qs = qs.filter(status=status)
        plate = self.request.GET.get("plate", "").strip()
        if plate:
            from portal.validators import normalize_plate

            qs = qs.filter(plate=normalize_plate(plate))
        ctx.update(page_obj=Paginator(qs, 30).get_page(self.request.GET.get("page")), statuses=S.choices,
                   status=status, plate=plate,
                   querystring="&".join(f"{k}={v}" for k, v in (("status", status), ("plate", plate)) if v))
        return ctx


class MyInfractionsView(RoleRequiredMixin, TemplateView):
    roles = (Role.APPLICANT,)
    template_name = "enforcement/mine.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        qs = selectors._base().filter(holder=self.request.user).order_by("-occurred_at", "-id")
        ctx["page_obj"] = Paginator(qs, 30).get_page(self.request.GET.get("page"))
        return ctx


class JudgeQueueView(RoleRequiredMixin, TemplateView):
    """The julgador's queue (first instance and the appeals they may decide); the designated
    appeal authority sees only the appeals it decides."""

    roles = APPEAL_ROLES
    template_name = "enforcement/queue.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        pack = regulation.current()
        today = pack.today()
        user = self.request.user
        judge = has_role(user, Role.JUDGE)
        queue = selectors.judge_queue(today, first_instance=judge, appeals=selectors.appeals_decidable_by(user, pack))
        ctx["page_obj"] = Paginator(queue, 30).get_page(self.request.GET.get("page"))
        ctx["upcoming"] = selectors.defense_running(today)[:50] if judge else []
        ctx["first_instance"] = judge
        return ctx


class NoticeQueueView(RoleRequiredMixin, TemplateView):
    roles = CLERK_ROLES
    template_name = "enforcement/notice_queue.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["page_obj"] = Paginator(selectors.notice_queue(), 30).get_page(self.request.GET.get("page"))
        ctx["fines"] = Fine.objects.select_related("infraction").filter(paid=False).order_by("due_date")[:30]
        ctx["decisions"] = selectors.decision_notice_queue()[:30]
        return ctx


class CatalogueView(TemplateView):
    template_name = "enforcement/catalogue.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        pack = regulation.current()
        ctx["items"] = selectors.catalogue(pack)
        ctx["unit"] = pack.fiscal_unit_value()
        ctx["unit_name"] = pack.fiscal_unit.get("name", "")
        return ctx


# --- one auto ------------------------------------------------------------------------
class DetailView(RoleRequiredMixin, View):
    def get(self, request, pk: int):
        inf = selectors.infraction_for(request.user, pk)
        ctx = _context_for(inf, request.user)
        if ctx["is_judge"] and inf.status in (S.NOTIFIED, S.DEFENSE_FILED, S.AWAITING_JUDGEMENT):
            try:
                ctx["proposed_penalty"] = services.compute_penalty_for(inf)
            except RuleViolation as exc:
                ctx["penalty_error"] = str(exc)
        return render(request, "enforcement/detail.html", ctx)


class ActionView(BaseActionView):
    """An action on one auto (portal.actions.ActionView): GET shows the form beside the auto, POST
    calls the service named by ``act`` and goes back to the auto; a refusal stays on the form
    (400 bad input, 409 conflict with the auto's state)."""

    form_class: type = forms.NoticeForm
    title = ""
    template_name = "enforcement/action.html"
    holder_only = False
    parent = ("Autos de infração", "enforcement:list")  # first breadcrumb: the list the user came from

    def get_object(self):
        inf = selectors.infraction_for(self.request.user, int(self.kwargs["pk"]))
        if self.holder_only and inf.holder_id != self.request.user.pk:
            raise Http404("Auto de infração não encontrado.")
        return inf

    def make_form(self, obj, data=None, files=None):
        return self.form_class(data, files)

    def context(self, inf, form) -> dict:
        ctx = _context_for(inf, self.request.user)
        ctx.update(form=form, title=self.title, multipart=any(isinstance(f, forms.MultipleFileField)
                                                              for f in form.fields.values()))
        ctx.update(self.extra_context(inf))
        label, url_name = self.parent
        ctx["crumbs"] = [(label, reverse(url_name)),
                         (f"Auto nº {inf.number}", reverse("enforcement:detail", kwargs={"pk": inf.pk})),
                         (self.title, None)]
        return ctx

    def extra_context(self, inf) -> dict:
        return {}

    def perform(self, obj, data: dict):
        return self.act(self.request, obj, data)

    @abstractmethod
    def act(self, request, inf, d) -> str:
        """Call one service on the auto; return the message to flash."""

    def success_message(self, obj, result) -> str:
        return result

    def success_url(self, obj, result) -> str:
        return reverse("enforcement:detail", kwargs={"pk": obj.pk})


class NotifyView(ActionView):
    roles = CLERK_ROLES
    form_class = forms.NoticeForm
    title = "Registrar a notificação da autuação"
    parent = ("Notificar autos", "enforcement:notice-queue")

    def act(self, request, inf, d):
        inf = services.infraction_notify(actor=request.user, infraction=inf, acknowledged_on=d["acknowledged_on"],
                                         refused=d["refused"], published=d["published"])
        if inf.defense_deadline:
            return f"Notificação registrada. Prazo da defesa: até {inf.defense_deadline:%d/%m/%Y}."
        return "Notificação registrada. O auto segue para julgamento."


class DefenseView(ActionView):
    roles = (Role.APPLICANT,)
    form_class = forms.PieceForm
    title = "Apresentar defesa prévia"
    parent = ("Meus autos", "enforcement:mine")
    holder_only = True

    def extra_context(self, inf) -> dict:
        pack = regulation.current()
        notes = []
        if inf.defense_deadline:
            notes.append(f"Prazo para a defesa: até {inf.defense_deadline:%d/%m/%Y} "
                         f"({pack.basis('defense.days', inf.modality or None)}).")
        if pack.value("defense.suspends_penalty", inf.modality or None):
            notes.append("A defesa suspende a penalidade até o julgamento"
                         + (" e o alvará retido é devolvido" if pack.value("defense.returns_alvara", inf.modality or None)
                            else "") + f" ({pack.basis('defense.suspends_penalty', inf.modality or None)}).")
        return {"notes": notes}

    def act(self, request, inf, d):
        services.defense_file(actor=request.user, infraction=inf, text=d["text"], attachments=d["attachments"])
        return "Defesa prévia recebida. Você será avisado do julgamento."


class AppealView(ActionView):
    roles = (Role.APPLICANT,)
    form_class = forms.PieceForm
    title = "Interpor recurso"
    parent = ("Meus autos", "enforcement:mine")
    holder_only = True

    def extra_context(self, inf) -> dict:
        pack = regulation.current()
        modality = inf.modality or None
        notes = []
        if inf.appeal_deadline:
            key = "appeal.second_instance_days" if inf.appeal_instance > 1 else "appeal.days"
            notes.append(f"Prazo para o recurso: até {inf.appeal_deadline:%d/%m/%Y} ({pack.basis(key, modality)}).")
        authority = (pack.value("appeal.authority", modality) if inf.appeal_instance == 1
                     else pack.municipality.get("authority", ""))
        if authority:
            notes.append(f"O recurso será julgado por: {authority}.")
        return {"notes": notes}

    def act(self, request, inf, d):
        appeal = services.appeal_file(actor=request.user, infraction=inf, text=d["text"], attachments=d["attachments"])
        return f"Recurso recebido; será julgado por: {appeal.authority}."


class JudgeView(ActionView):
    roles = JUDGE_ROLES
    form_class = forms.JudgeForm
    title = "Julgar o auto de infração"
    parent = ("Fila de julgamento", "enforcement:queue")

    def extra_context(self, inf) -> dict:
        pack = regulation.current()
        ctx = {}
        blocked = rules.judgement_blocked(
            pack.today(), defense_deadline=inf.defense_deadline, defense_filed=hasattr(inf, "defense"),
            waived=hasattr(inf, "defense_waiver"), legal_basis=pack.basis("defense.days", inf.modality or None))
        if blocked is not None and inf.status in services.JUDGEABLE_STATUSES:
            ctx["blocked"] = str(blocked)  # no judgement while the defense period runs: no button, the date instead
            ctx["judge_from"] = inf.defense_deadline + timedelta(days=1)
        try:
            ctx["proposed_penalty"] = services.compute_penalty_for(inf)
        except RuleViolation as exc:
            ctx["penalty_error"] = str(exc)
        return ctx

    def post(self, request, *args, **kwargs):
        """A decision that suspends or ends the grant is deliberate: a POST without ``confirm=1``
        (or whose confirmed penalty no longer matches the one computed now) shows what the
        decision will do; only the POST of that page records it."""
        inf = self.get_object()
        form = self.make_form(inf, request.POST)
        if (form.is_valid() and form.cleaned_data["upheld"] and inf.status in services.JUDGEABLE_STATUSES
                and not self.extra_context(inf).get("blocked")):
            try:
                preview = services.judgement_preview(inf)
            except RuleViolation:
                preview = None  # the service refuses it beside the form, with the article
            if preview is not None and services.needs_confirmation(preview):
                confirmed = request.POST.get("confirm") == "1"
                if not confirmed or request.POST.get("digest") != preview["digest"]:
                    return render(request, "enforcement/judge_confirm.html", {
                        **self.context(inf, form), "preview": preview, "grounds": form.cleaned_data["grounds"],
                        "changed": confirmed, "title": "Confirmar a decisão",
                        "confirm_url": reverse("enforcement:judge", args=[inf.pk])})
        return super().post(request, *args, **kwargs)

    def act(self, request, inf, d):
        judgement = services.infraction_judge(actor=request.user, infraction=inf, upheld=d["upheld"], grounds=d["grounds"])
        return f"Decisão nº {judgement.number} registrada: auto {'procedente' if judgement.upheld else 'improcedente'}."


class DecisionNoticeView(ActionView):
    roles = CLERK_ROLES
    form_class = forms.DecisionNoticeForm
    title = "Registrar a notificação da decisão"
    parent = ("Notificar autos", "enforcement:notice-queue")

    def extra_context(self, inf) -> dict:
        pack = regulation.current()
        return {"notes": [f"A notificação da decisão abre o prazo do recurso ({pack.basis('appeal.counted_from', inf.modality or None)})."]}

    def act(self, request, inf, d):
        notice = services.decision_notice_record(actor=request.user, infraction=inf, acknowledged_on=d["acknowledged_on"],
                                                 refused=d["refused"], published=d["published"])
        return f"Notificação da decisão registrada. Prazo do recurso: até {notice.appeal_deadline:%d/%m/%Y}."


class WaiverView(ActionView):
    roles = (Role.APPLICANT,)
    form_class = forms.WaiverForm
    title = "Renunciar ao prazo de defesa"
    parent = ("Meus autos", "enforcement:mine")
    holder_only = True

    def act(self, request, inf, d):
        services.defense_waive(actor=request.user, infraction=inf, text=d["text"])
        return "Renúncia ao prazo de defesa registrada; o auto segue para julgamento."


class PaperView(ActionView):
    """A clerk records a piece delivered at the counter or by post."""

    roles = CLERK_ROLES
    form_class = forms.PaperForm
    piece = "defense"
    titles = {"defense": "Registrar defesa entregue em papel", "waiver": "Registrar renúncia ao prazo entregue em papel",
              "appeal": "Registrar recurso entregue em papel"}

    @property
    def title(self):
        return self.titles[self.piece]

    def extra_context(self, inf) -> dict:
        notes = []
        if self.piece in ("defense", "waiver") and inf.defense_deadline:
            notes.append(f"Prazo da defesa: até {inf.defense_deadline:%d/%m/%Y}. {inf.defense_deadline_note}")
        if self.piece == "appeal" and inf.appeal_deadline:
            notes.append(f"Prazo do recurso: até {inf.appeal_deadline:%d/%m/%Y}. {inf.appeal_deadline_note}")
        return {"notes": notes}

    def act(self, request, inf, d):
        service = {"defense": services.defense_file, "waiver": services.defense_waive,
                   "appeal": services.appeal_file}[self.piece]
        service(actor=request.user, infraction=inf, text=d["text"], on=d["received_on"], channel=d["channel"],
                attachments=d["attachments"])
        return f"{self.title.replace('Registrar ', '').capitalize()}: registrado, recebido em {d['received_on']:%d/%m/%Y}."


class ReviewHearingView(ActionView):
    roles = CLERK_ROLES
    form_class = forms.HearingForm
    title = "Intimar o autuado na revisão de ofício"

    def act(self, request, inf, d):
        inf = services.review_hearing_open(actor=request.user, infraction=inf, acknowledged_on=d["acknowledged_on"])
        return f"Intimação registrada. Alegações até {inf.review_hearing_deadline:%d/%m/%Y}."


class ReviewAllegationsView(ActionView):
    roles = (Role.APPLICANT,)
    form_class = forms.PieceForm
    title = "Apresentar alegações na revisão de ofício"
    parent = ("Meus autos", "enforcement:mine")
    holder_only = True

    def extra_context(self, inf) -> dict:
        notes = []
        if inf.review_hearing_deadline:
            notes.append(f"Prazo das alegações: até {inf.review_hearing_deadline:%d/%m/%Y}.")
        return {"notes": notes}

    def act(self, request, inf, d):
        services.review_allegations_file(actor=request.user, infraction=inf, text=d["text"],
                                         attachments=d["attachments"])
        return "Alegações recebidas; serão consideradas na revisão de ofício."


class RegulationView(RoleRequiredMixin, View):
    """The administrator records the regulations that fix the values the law leaves to them."""

    roles = (Role.ADMIN,)
    template_name = "enforcement/regulations.html"

    def _render(self, request, form, status=200):
        from enforcement.models import RecordedRegulation

        pack = regulation.current()
        rows = list(RecordedRegulation.objects.filter(municipality_id=pack.municipality_id)
                    .select_related("recorded_by"))
        recorded = {r.key for r in rows}
        missing = [(k, label, basis) for k, label, basis in services.regulation_keys(pack) if k not in recorded]
        return render(request, self.template_name, {"form": form, "rows": rows, "missing": missing}, status=status)

    def _form(self, data=None):
        pack = regulation.current()
        return forms.RegulationForm(data, choices=[(k, label) for k, label, _b in services.regulation_keys(pack)])

    def get(self, request):
        return self._render(request, self._form())

    def post(self, request):
        form = self._form(request.POST)
        status = 400
        if form.is_valid():
            d = form.cleaned_data
            try:
                row = services.regulation_record(actor=request.user, key=d["key"], act_number=d["act_number"],
                                                 act_date=d["act_date"], value=d["value"],
                                                 effective_from=d["effective_from"])
            except SERVICE_ERRORS as exc:
                status = apply_refusal(form, exc)
            else:
                messages.success(request, f"Regulamento {row.act_number} registrado.")
                return redirect("enforcement:regulations")
        return self._render(request, form, status=status)


class AppealJudgeView(ActionView):
    roles = APPEAL_ROLES
    form_class = forms.AppealJudgeForm
    title = "Julgar o recurso"
    parent = ("Fila de julgamento", "enforcement:queue")

    def extra_context(self, inf) -> dict:
        refusal = selectors.appeal_decider_refusal(self.request.user, inf)
        # not this person's to decide here: say who decides, with the basis, and offer no form
        return {"not_decider": str(refusal)} if refusal is not None else {}

    def post(self, request, *args, **kwargs):
        """An appeal decision that leaves a suspension or a cassação standing (appeal not granted)
        or imposes one (an ex officio review that reforms a dismissal) is confirmed first, with
        the same summary as the first instance's decision; only the POST of that page records it."""
        inf = self.get_object()
        form = self.make_form(inf, request.POST)
        appeal = inf.appeals.filter(granted__isnull=True).order_by("-instance", "-id").first()
        if (form.is_valid() and appeal is not None and form.cleaned_data["granted"] == bool(appeal.ex_officio)
                and selectors.appeal_decider_refusal(request.user, inf, instance=appeal.instance) is None):
            try:
                preview = services.judgement_preview(inf)
            except RuleViolation:
                preview = None  # the service refuses it beside the form, with the article
            if preview is not None and services.needs_confirmation(preview):
                confirmed = request.POST.get("confirm") == "1"
                if not confirmed or request.POST.get("digest") != preview["digest"]:
                    decision = ("Reformar o arquivamento na revisão de ofício" if appeal.ex_officio
                                else f"Negar provimento ao recurso contra o auto nº {inf.number}")
                    return render(request, "enforcement/judge_confirm.html", {
                        **self.context(inf, form), "preview": preview, "grounds": form.cleaned_data["grounds"],
                        "changed": confirmed, "title": "Confirmar a decisão do recurso",
                        "appeal_decision": decision, "granted": "1" if form.cleaned_data["granted"] else "0",
                        "confirm_url": reverse("enforcement:appeal-judge", args=[inf.pk])})
        return super().post(request, *args, **kwargs)

    def act(self, request, inf, d):
        appeal = services.appeal_judge(actor=request.user, infraction=inf, granted=d["granted"], grounds=d["grounds"])
        return f"Decisão do recurso nº {appeal.number} registrada: {'provido' if appeal.granted else 'não provido'}."


class SuspensiveEffectView(ActionView):
    roles = JUDGE_ROLES
    form_class = forms.SuspensiveEffectForm
    title = "Conceder efeito suspensivo ao recurso"
    parent = ("Fila de julgamento", "enforcement:queue")

    def act(self, request, inf, d):
        services.appeal_grant_suspensive_effect(actor=request.user, infraction=inf, grounds=d["grounds"])
        return "Efeito suspensivo concedido: a penalidade sobre a autorização fica suspensa até a decisão do recurso."


class CancelView(ActionView):
    roles = JUDGE_ROLES
    form_class = forms.CancelForm
    title = "Cancelar o auto de infração"
    parent = ("Fila de julgamento", "enforcement:queue")

    def act(self, request, inf, d):
        services.infraction_cancel(actor=request.user, infraction=inf, reason=d["reason"])
        return f"Auto nº {inf.number} cancelado."


class FinePaidView(ActionView):
    roles = CLERK_ROLES
    form_class = forms.PaidForm
    title = "Registrar o pagamento do DAM"

    def act(self, request, inf, d):
        fine = getattr(inf, "fine", None) if hasattr(inf, "fine") else None
        if fine is None:
            raise InvalidTransition("Este auto não tem DAM emitido.")
        services.fine_mark_paid(actor=request.user, fine=fine, paid_on=d["paid_on"])
        return f"Pagamento do DAM nº {fine.number} registrado."


class RegularisationView(ActionView):
    roles = CLERK_ROLES
    form_class = forms.RegularisationForm
    title = "Registrar a regularização (fim da suspensão)"

    def act(self, request, inf, d):
        services.regularisation_record(actor=request.user, infraction=inf, inspected_on=d["inspected_on"],
                                       note=d["note"])
        return "Regularização registrada; a autorização voltou a ficar ativa."
