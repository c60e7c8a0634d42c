"""HTML pages of collective transport: public lines and complaints; clerk and julgador screens.

Every view answers 404 when the active pack has no collective transport. Actions are
small form pages that call one service each; a refused rule shows the article beside the
field and keeps what was typed.
"""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views import View
from django.views.generic import TemplateView

from licensing.transit import forms as f
from licensing.transit import selectors as sel
from licensing.transit import services as svc
from licensing.transit.citations import articles, cite
from licensing.transit.models import (
    Bus,
    BusLine,
    Complaint,
    ComplaintStatus,
    Concession,
    Concessionaire,
    ConcessionStatus,
    DefaultProceeding,
    Intervention,
    Itinerary,
)
from portal import regulation
from portal.actions import ActionView as BaseActionView
from portal.audit import history_for
from portal.refusals import SERVICE_ERRORS, apply_refusal
from portal.roles import Role
from portal.views import RoleRequiredMixin

STAFF = (Role.CLERK, Role.JUDGE, Role.ADMIN)
CLERKS = (Role.CLERK, Role.ADMIN)
JUDGES = (Role.JUDGE, Role.ADMIN)
PER_PAGE = 25


class TransitEnabledMixin:
    """404 for every page of the module when the pack has no collective transport."""

    def dispatch(self, request, *args, **kwargs):
        if not sel.transit_enabled():
            raise Http404("Transporte coletivo não disponível neste município.")
        return super().dispatch(request, *args, **kwargs)


class StaffMixin(TransitEnabledMixin, RoleRequiredMixin):
    roles = STAFF


def _crumbs(*items):
    return list(items)


def _concessions_crumb():
    return ("Concessões de transporte coletivo", reverse("transit-concessions"))


def _law_url(pack) -> str:
    key = (pack.collective_transport or {}).get("law", "")
    try:
        return reverse("law", kwargs={"key": key}) if key else ""
    except Exception:  # noqa: BLE001 - the law page is optional
        return ""


# --- public --------------------------------------------------------------------------------
class PublicLineListView(TransitEnabledMixin, TemplateView):
    template_name = "licensing/transit/public_lines.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        pack = regulation.current()
        page = Paginator(sel.public_lines(), PER_PAGE).get_page(self.request.GET.get("page"))
        today = pack.today()
        student = pack.collective_param("fare.student_discount")
        ctx.update(page_obj=page, rows=[(ln, sel.fares_in_force(ln, today)) for ln in page.object_list],
                   law_url=_law_url(pack), student_param=student, student_pct=_pct(student.value) if student else "",
                   crumbs=[("Linhas de ônibus", "")])
        return ctx


class PublicLineView(TransitEnabledMixin, TemplateView):
    template_name = "licensing/transit/public_line.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        pack = regulation.current()
        line = get_object_or_404(sel.public_lines(), pk=kwargs["pk"])
        itinerary = sel.itinerary_in_force(line)
        form = f.FareQuoteForm(self.request.GET or None)
        student = pack.collective_param("fare.student_discount")
        if student is not None:
            form.fields["student"].label = f"Estudante (desconto de {_pct(student.value)} %)"
        quote = quote_error = None
        if form.is_bound and form.is_valid():
            try:
                quote = sel.fare_quote(line, zone=form.cleaned_data["zone"] or "urban",
                                       student=form.cleaned_data["student"], at=form.cleaned_data["at"] or pack.today())
            except sel.FareNotFound as exc:
                quote_error = str(exc)
        ctx.update(
            line=line, itinerary=itinerary, stops=sel.stops(itinerary), segments=list(itinerary.segments.all()),
            schedule=[(label, itinerary.schedule.get(key, [])) for key, label in svc.SCHEDULE_DAYS.items()],
            fares=sel.fares_in_force(line, pack.today()), upcoming_fares=sel.upcoming_fares(line),
            upcoming_itineraries=sel.upcoming_itineraries(line), form=form, quote=quote, quote_error=quote_error,
            student_param=pack.collective_param("fare.student_discount"), law_url=_law_url(pack),
            crumbs=[("Linhas de ônibus", reverse("transit-lines")), (f"Linha {line.code}", "")],
        )
        return ctx


COMPLAINTS_PER_HOUR = 20


def _complaints_throttled(request) -> bool:
    """At most COMPLAINTS_PER_HOUR public complaints per address per hour (anti-spam)."""
    from django.core.cache import cache

    key = f"transit-complaints:{request.META.get('REMOTE_ADDR', '')}"
    cache.add(key, 0, timeout=3600)
    try:
        count = cache.incr(key)
    except ValueError:
        cache.set(key, 1, timeout=3600)
        count = 1
    return count > COMPLAINTS_PER_HOUR


class PublicComplaintView(TransitEnabledMixin, View):
    template_name = "licensing/transit/complaint_form.html"

    def _ctx(self, line, form):
        return {"line": line, "form": form,
                "crumbs": [("Linhas de ônibus", reverse("transit-lines")),
                           (f"Linha {line.code}", reverse("transit-line", kwargs={"pk": line.pk})),
                           ("Reclamação", "")]}

    def get(self, request, pk: int):
        line = get_object_or_404(sel.public_lines(), pk=pk)
        return render(request, self.template_name, self._ctx(line, f.ComplaintForm()))

    def post(self, request, pk: int):
        line = get_object_or_404(sel.public_lines(), pk=pk)
        form = f.ComplaintForm(request.POST)
        if _complaints_throttled(request):
            form.add_error(None, "Muitas reclamações enviadas deste endereço na última hora. Tente mais tarde "
                                 "ou use o telefone da Prefeitura.")
            return render(request, self.template_name, self._ctx(line, form), status=429)
        status = 400
        if form.is_valid():
            try:
                complaint = svc.complaint_file(actor=request.user, line=line, **form.cleaned_data)
            except SERVICE_ERRORS as exc:
                status = apply_refusal(form, exc)
            else:
                return render(request, "licensing/transit/complaint_done.html",
                              {**self._ctx(line, form), "complaint": complaint})
        return render(request, self.template_name, self._ctx(line, form), status=status)


class PublicComplaintLookupView(TransitEnabledMixin, View):
    """Anyone who complained sees the status and the answer with the protocol and access code."""

    template_name = "licensing/transit/complaint_lookup.html"

    def get(self, request):
        form = f.ComplaintLookupForm(request.GET or None)
        complaint, status = None, 200
        if form.is_bound:
            if not form.is_valid():
                status = 400
            else:
                complaint = sel.complaint_lookup(form.cleaned_data["protocolo"], form.cleaned_data["codigo"])
                if complaint is None:
                    form.add_error(None, "Não encontramos reclamação com este protocolo e código. Confira os dois.")
                    status = 404
        return render(request, self.template_name,
                      {"form": form, "complaint": complaint,
                       "crumbs": [("Linhas de ônibus", reverse("transit-lines")), ("Consultar reclamação", "")]},
                      status=status)


# --- staff lists -----------------------------------------------------------------------------
class ConcessionListView(StaffMixin, TemplateView):
    template_name = "licensing/transit/concessions.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        status = self.request.GET.get("status") or ""
        if status not in ConcessionStatus.values:
            status = ""
        q = (self.request.GET.get("q") or "").strip()[:100]
        page = Paginator(sel.concessions(status or None, q), PER_PAGE).get_page(self.request.GET.get("page"))
        counts = sel.concession_status_counts()
        from urllib.parse import urlencode

        pack = regulation.current()
        ctx.update(page_obj=page, status=status, q=q,
                   rows=[(c, sel.next_deadline(pack, c)) for c in page.object_list],
                   statuses=[(value, label, counts.get(value, 0)) for value, label in ConcessionStatus.choices],
                   querystring=urlencode({k: v for k, v in (("status", status), ("q", q)) if v}),
                   is_clerk=_has(self.request.user, CLERKS), crumbs=[("Concessões de transporte coletivo", "")])
        return ctx


class ConcessionaireListView(StaffMixin, TemplateView):
    template_name = "licensing/transit/concessionaires.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["page_obj"] = Paginator(sel.concessionaires(), PER_PAGE).get_page(self.request.GET.get("page"))
        ctx["is_clerk"] = _has(self.request.user, CLERKS)
        ctx["crumbs"] = [_concessions_crumb(), ("Empresas concessionárias", "")]
        return ctx


class ConcessionaireDetailView(StaffMixin, TemplateView):
    template_name = "licensing/transit/concessionaire.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        company = get_object_or_404(Concessionaire, pk=kwargs["pk"])
        ctx.update(company=company,
                   concessions=company.concessions.order_by("-created_at"),
                   classifications=company.classifications.select_related("concession"),
                   history=history_for(company),
                   crumbs=[_concessions_crumb(), ("Empresas concessionárias", reverse("transit-concessionaires")),
                           (str(company), "")])
        return ctx


class ComplaintListView(StaffMixin, TemplateView):
    template_name = "licensing/transit/complaints.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        status = self.request.GET.get("status") or ""
        if status not in ComplaintStatus.values:
            status = ""
        ctx.update(page_obj=Paginator(sel.complaints(status or None), PER_PAGE).get_page(self.request.GET.get("page")),
                   status=status, statuses=ComplaintStatus.choices,
                   querystring=f"status={status}" if status else "",
                   crumbs=[_concessions_crumb(), ("Reclamações de usuários", "")])
        return ctx


class ConcessionDetailView(StaffMixin, TemplateView):
    template_name = "licensing/transit/concession.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        pack = regulation.current()
        try:
            concession = sel.concession_for_staff(kwargs["pk"])
        except Concession.DoesNotExist as exc:
            raise Http404 from exc
        clauses = svc.pack_list(pack, "clauses")
        cats = {c["code"]: c for c in svc.categories(pack)}
        causes = {c["code"]: c for c in svc.pack_list(pack, "extinction_causes")}
        ctx.update(
            c=concession, category=cats.get(concession.category, {}),
            deadlines=sorted(sel.concession_deadlines(pack, concession).values(), key=lambda d: d["date"]),
            clauses=[(cl, bool((concession.clauses or {}).get(cl["code"]))) for cl in clauses],
            missing_clauses=len(svc.missing_clauses(pack, concession)),
            extinction=causes.get(concession.extinction_cause),
            interventions=[(i, sel.intervention_deadlines(pack, i)) for i in concession.interventions.all()],
            history=history_for(concession)[:100], law_url=_law_url(pack), art=articles(pack),
            is_clerk=_has(self.request.user, CLERKS),
            is_judge=_has(self.request.user, JUDGES),
            crumbs=[_concessions_crumb(), (str(concession), "")],
        )
        return ctx


def _has(user, roles) -> bool:
    from portal.roles import has_role

    return has_role(user, *roles)


class LineManageView(StaffMixin, TemplateView):
    template_name = "licensing/transit/line_manage.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        pack = regulation.current()
        line = get_object_or_404(BusLine.objects.select_related("concession__concessionaire"), pk=kwargs["pk"])
        ctx.update(
            line=line, current=sel.itinerary_in_force(line),
            itineraries=line.itineraries.prefetch_related("segments").order_by("-version"),
            fares=line.fares.order_by("-effective_from", "zone"), in_force=sel.fares_in_force(line, pack.today()),
            complaints=line.complaints.order_by("-created_at")[:50], is_clerk=_has(self.request.user, CLERKS),
            crumbs=[_concessions_crumb(), (str(line.concession), reverse("transit-concession", kwargs={"pk": line.concession_id})),
                    (f"Linha {line.code}", "")],
        )
        return ctx


# --- actions -----------------------------------------------------------------------------------
class ActionView(TransitEnabledMixin, BaseActionView):
    """GET shows the form; POST validates it and calls one service (portal.actions)."""

    roles = CLERKS
    model = Concession
    form_class: type = None
    template_name = "licensing/transit/form.html"
    title = ""
    intro = ""
    submit = "Salvar"
    success = "Registrado."
    basis_keys: tuple[str, ...] = ()
    # field -> (hint with {n} = the parameter's value and {basis}, parameter key)
    hints: dict[str, tuple[str, str]] = {}

    def make_form(self, obj, data=None, files=None):
        form = super().make_form(obj, data, files)
        pack = regulation.current()
        for field, (text, key) in self.hints.items():
            found = pack.collective_param(key)
            if found is not None and field in form.fields:
                form.fields[field].help_text = text.format(n=found.value, basis=found.legal_basis)
        return form

    def get_object(self):
        if self.model is None:
            return None
        return get_object_or_404(self.model, pk=self.kwargs["pk"])

    def success_url(self, obj, result) -> str:
        concession = obj if isinstance(obj, Concession) else getattr(obj, "concession", None)
        if concession is None and hasattr(obj, "line"):
            concession = obj.line.concession
        return reverse("transit-concession", kwargs={"pk": concession.pk})

    def parent_crumbs(self, obj) -> list:
        out = [_concessions_crumb()]
        concession = obj if isinstance(obj, Concession) else getattr(obj, "concession", None)
        if concession is None and hasattr(obj, "line"):
            concession = obj.line.concession
        if concession is not None:
            out.append((str(concession), reverse("transit-concession", kwargs={"pk": concession.pk})))
        return out

    def context(self, obj, form) -> dict:
        pack = regulation.current()
        bases = [pack.collective_param(k) for k in self.basis_keys]
        return {"form": form, "obj": obj, "title": self.title, "intro": cite(self.intro, pack), "submit": self.submit,
                "art": articles(pack),
                "bases": [b for b in bases if b], "law_url": _law_url(pack),
                "crumbs": [*self.parent_crumbs(obj), (self.title, "")]}

    def success_message(self, obj, result) -> str:
        return cite(self.success, regulation.current())


def _pack():
    return regulation.current()


def _pct(value) -> str:
    from decimal import Decimal

    return f"{(Decimal(str(value)) * 100).normalize():f}".replace(".", ",")


def _schedule(data: dict) -> dict:
    return {k: data[k] for k in svc.SCHEDULE_DAYS if data.get(k)}


class ConcessionaireCreateView(ActionView):
    model = None
    form_class = f.ConcessionaireForm
    title = "Cadastrar empresa concessionária"
    intro = "Pessoa jurídica que presta o serviço por concessão ({concessionaire})."
    success = "Empresa cadastrada."

    def perform(self, obj, data):
        return svc.concessionaire_create(actor=self.request.user, **data)

    def success_url(self, obj, result):
        return reverse("transit-concessionaire", kwargs={"pk": result.pk})

    def parent_crumbs(self, obj):
        return [_concessions_crumb(), ("Empresas concessionárias", reverse("transit-concessionaires"))]


class ConcessionCreateView(ActionView):
    model = None
    form_class = f.ConcessionForm
    title = "Registrar concessão (resultado da licitação)"
    intro = ("Registre o objeto, a categoria do veículo e a classificação da concorrência. A vencedora fica "
             "convocada a assinar o contrato.")
    success = "Concessão registrada. A vencedora foi convocada a assinar o contrato."
    basis_keys = ("selection.method", "contract.sign_days")
    hints = {"bidding_closed_on": ("DD/MM/AAAA. O contrato deve ser assinado em até {n} dias ({basis}).",
                                   "contract.sign_days")}

    def form_kwargs(self, obj):
        return {"categories": svc.categories(_pack())}

    def perform(self, obj, data):
        form_data = dict(data)
        classified = [form_data.pop(n) for n in ("first", "second", "third", "fourth") if form_data.get(n)]
        for n in ("first", "second", "third", "fourth"):
            form_data.pop(n, None)
        return svc.concession_create(actor=self.request.user, classified=classified, **form_data)

    def success_url(self, obj, result):
        return reverse("transit-concession", kwargs={"pk": result.pk})


class ContractSignView(ActionView):
    form_class = f.ContractForm
    title = "Registrar assinatura do contrato"
    intro = "O contrato deve ser assinado pela empresa convocada no prazo; fora dele, ela renuncia e a próxima classificada é convocada."
    success = "Contrato registrado. O serviço deve começar no prazo do {service_start}."
    basis_keys = ("contract.sign_days", "concession.term_years")
    hints = {"signed_on": ("DD/MM/AAAA. Até {n} dias da convocação ({basis}).", "contract.sign_days")}

    def perform(self, obj, data):
        return svc.concession_contract_sign(actor=self.request.user, concession=obj, **data)


class CallNextView(ActionView):
    form_class = f.ReasonForm
    title = "Convocar a próxima classificada"
    intro = "A convocada não compareceu no prazo: registra-se a renúncia e convoca-se a próxima, nas condições da 1ª."
    success = "Convocação registrada."
    basis_keys = ("contract.sign_days",)

    def perform(self, obj, data):
        return svc.concession_call_next(actor=self.request.user, concession=obj, reason=data["reason"])


class ServiceStartView(ActionView):
    form_class = f.StartForm
    title = "Registrar início do serviço"
    success = "Início do serviço registrado."
    basis_keys = ("service.start_days",)
    hints = {"started_on": ("DD/MM/AAAA. Até {n} dias do contrato, senão a delegação caduca ({basis}).",
                            "service.start_days")}

    def perform(self, obj, data):
        return svc.concession_service_start(actor=self.request.user, concession=obj, **data)


class RenewView(ActionView):
    form_class = f.ConfirmForm
    title = "Renovar a concessão"
    intro = "A concessão admite uma renovação por igual período."
    success = "Concessão renovada."
    basis_keys = ("concession.term_years", "concession.max_renewals")

    def perform(self, obj, data):
        return svc.concession_renew(actor=self.request.user, concession=obj)


class ClausesView(ActionView):
    form_class = f.ClausesForm
    title = "Cláusulas essenciais do contrato"
    intro = "Marque as cláusulas essenciais que o contrato assinado contém ({clauses})."
    success = "Conferência das cláusulas registrada."

    def form_kwargs(self, obj):
        return {"clauses": svc.pack_list(_pack(), "clauses")}

    def initial(self, obj):
        return {"clauses": [k for k, v in (obj.clauses or {}).items() if v]}

    def perform(self, obj, data):
        return svc.concession_clauses_record(actor=self.request.user, concession=obj, checked=data["clauses"])


class ExtinguishView(ActionView):
    roles = JUDGES
    form_class = f.ExtinguishForm
    title = "Declarar a extinção da concessão"
    intro = "Escolha a causa ({extinction}) e informe o ato. Cada causa exige o que a lei prevê antes."
    success = "Extinção declarada; o serviço é assumido pelo poder delegante ({extinction_takeover})."

    def form_kwargs(self, obj):
        return {"causes": svc.pack_list(_pack(), "extinction_causes")}

    def perform(self, obj, data):
        return svc.concession_extinguish(actor=self.request.user, concession=obj, **data)


class LineCreateView(ActionView):
    form_class = f.LineForm
    title = "Cadastrar linha"
    intro = "Itinerário original (trechos com extensão) e horários do contrato."
    success = "Linha cadastrada."

    def perform(self, obj, data):
        return svc.busline_create(actor=self.request.user, concession=obj, code=data["code"], name=data["name"],
                                  segments=data["segments"], schedule=_schedule(data))

    def success_url(self, obj, result):
        return reverse("transit-line-manage", kwargs={"pk": result.pk})


class BusCreateView(ActionView):
    form_class = f.BusForm
    title = "Cadastrar veículo"
    intro = "O veículo deve caber na categoria do contrato ({category})."
    success = "Veículo cadastrado."

    def form_kwargs(self, obj):
        return {"categories": svc.categories(_pack())}

    def initial(self, obj):
        return {"category": obj.category, "standing": 0}

    def context(self, obj, form):
        ctx = super().context(obj, form)
        ctx["categories"] = svc.categories(_pack())
        return ctx

    def perform(self, obj, data):
        return svc.bus_register(actor=self.request.user, concession=obj, **data)


class BusWithdrawView(ActionView):
    model = Bus
    form_class = f.ReasonForm
    title = "Retirar veículo de serviço"
    success = "Veículo retirado."

    def perform(self, obj, data):
        return svc.bus_withdraw(actor=self.request.user, bus=obj, reason=data["reason"])


class InterventionCreateView(ActionView):
    form_class = f.InterventionForm
    title = "Registrar intervenção (decreto)"
    hints = {"declared_on": ("DD/MM/AAAA. O procedimento administrativo deve ser instaurado em até {n} dias "
                             "({basis}).", "intervention.open_days")}
    intro = "O decreto designa o interventor, o prazo e os objetivos e limites da medida ({intervention})."
    success = "Intervenção registrada. O procedimento administrativo deve ser instaurado no prazo do {intervention_procedure}."
    basis_keys = ("intervention.open_days", "intervention.conclude_days")

    def form_kwargs(self, obj):
        return {"grounds": svc.pack_list(_pack(), "intervention_grounds")}

    def perform(self, obj, data):
        return svc.intervention_declare(actor=self.request.user, concession=obj, **data)


class ProcedureOpenView(ActionView):
    model = Intervention
    form_class = f.ProcedureForm
    title = "Instaurar o procedimento administrativo da intervenção"
    hints = {"opened_on": ("DD/MM/AAAA. Até {n} dias da declaração da intervenção ({basis}).",
                           "intervention.open_days")}
    success = "Procedimento instaurado."
    basis_keys = ("intervention.open_days", "intervention.conclude_days")

    def perform(self, obj, data):
        return svc.intervention_open_procedure(actor=self.request.user, intervention=obj, **data)


class InterventionConcludeView(ActionView):
    roles = JUDGES
    model = Intervention
    form_class = f.InterventionConcludeForm
    title = "Concluir o procedimento da intervenção"
    hints = {"concluded_on": ("DD/MM/AAAA. Até {n} dias da instauração, senão a intervenção é inválida ({basis}).",
                              "intervention.conclude_days")}
    intro = "Se os pressupostos legais não foram observados, a intervenção é nula e o serviço volta à delegatária ({intervention_unfounded})."
    success = "Procedimento concluído."
    basis_keys = ("intervention.conclude_days",)

    def perform(self, obj, data):
        return svc.intervention_conclude(actor=self.request.user, intervention=obj, **data)


class DefaultCreateView(ActionView):
    form_class = f.DefaultForm
    title = "Notificar descumprimentos (inadimplência)"
    intro = ("Antes do processo de inadimplência, a delegatária é comunicada em detalhe e recebe prazo "
             "para corrigir as falhas ({default_notice}).")
    success = "Notificação registrada."

    def form_kwargs(self, obj):
        return {"grounds": svc.pack_list(_pack(), "default_grounds")}

    def perform(self, obj, data):
        return svc.default_notify(actor=self.request.user, concession=obj, **data)


class DefaultCureView(ActionView):
    model = DefaultProceeding
    form_class = f.ReasonForm
    title = "Registrar correção das falhas"
    success = "Correção registrada; não há processo de inadimplência."

    def perform(self, obj, data):
        return svc.default_mark_cured(actor=self.request.user, proceeding=obj, reason=data["reason"])


class DefaultOpenView(ActionView):
    model = DefaultProceeding
    form_class = f.ProcedureForm
    title = "Instaurar processo de inadimplência"
    intro = "Só depois de esgotado o prazo para corrigir as falhas, assegurada a ampla defesa ({default_proceeding})."
    success = "Processo instaurado."

    def perform(self, obj, data):
        return svc.default_open(actor=self.request.user, proceeding=obj, **data)


class DefaultConcludeView(ActionView):
    roles = JUDGES
    model = DefaultProceeding
    form_class = f.DefaultConcludeForm
    title = "Decidir o processo de inadimplência"
    intro = "Comprovada a inadimplência, a rescisão pode ser declarada por decreto ({default_rescission})."
    success = "Decisão registrada."

    def perform(self, obj, data):
        return svc.default_conclude(actor=self.request.user, proceeding=obj, **data)


class FareCreateView(ActionView):
    model = BusLine
    form_class = f.FareForm
    title = "Fixar tarifa (decreto)"
    hints = {"effective_from": ("DD/MM/AAAA. Uma alteração vigora pelo menos {n} dias após o anúncio ({basis}).",
                                "fare.min_notice_days")}
    success = "Tarifa registrada."
    basis_keys = ("fare.min_notice_days", "fare.student_discount", "fare.urban_rural_may_differ")

    def perform(self, obj, data):
        return svc.fare_set(actor=self.request.user, line=obj, **data)

    def success_url(self, obj, result):
        return reverse("transit-line-manage", kwargs={"pk": obj.pk})


class ItineraryChangeView(ActionView):
    model = BusLine
    form_class = f.ItineraryChangeForm
    title = "Propor alteração de itinerário ou horário"
    success = "Alteração registrada; aguarda aprovação e anúncio."
    basis_keys = ("itinerary.max_change_ratio", "itinerary.notice_days")

    def context(self, obj, form):
        ctx = super().context(obj, form)
        pack = _pack()
        ratio = pack.collective_param("itinerary.max_change_ratio")
        notice = pack.collective_param("itinerary.notice_days")
        ctx["intro"] = (
            f"Até {_pct(ratio.value)} % do trajeto original, por termo aditivo; acima disso exige nova concorrência "
            f"({ratio.legal_basis}). A alteração só vigora depois de aprovada e anunciada com {notice.value} dias "
            f"de antecedência ({notice.legal_basis})."
        )
        return ctx

    def initial(self, obj):
        current = sel.itinerary_in_force(obj)
        return {"segments": f.segments_text(current.segments.all()),
                **{k: " ".join(current.schedule.get(k, [])) for k in svc.SCHEDULE_DAYS}}

    def perform(self, obj, data):
        return svc.itinerary_change_propose(actor=self.request.user, line=obj, segments=data["segments"],
                                            schedule=_schedule(data), reason=data["reason"])

    def success_url(self, obj, result):
        return reverse("transit-line-manage", kwargs={"pk": obj.pk})


class ItineraryApproveView(ActionView):
    model = Itinerary
    form_class = f.ApproveForm
    title = "Aprovar alteração de itinerário"
    success = "Alteração aprovada; vigora na data informada."
    basis_keys = ("itinerary.notice_days",)
    hints = {"effective_from": ("DD/MM/AAAA. Pelo menos {n} dias depois do anúncio ({basis}).", "itinerary.notice_days")}

    def perform(self, obj, data):
        return svc.itinerary_change_approve(actor=self.request.user, itinerary=obj, **data)

    def success_url(self, obj, result):
        return reverse("transit-line-manage", kwargs={"pk": obj.line_id})


class ItineraryDiscardView(ItineraryApproveView):
    form_class = f.ReasonForm
    title = "Descartar alteração proposta"
    success = "Alteração descartada."
    basis_keys = ()
    hints = {}

    def perform(self, obj, data):
        return svc.itinerary_change_discard(actor=self.request.user, itinerary=obj, reason=data["reason"])


class ComplaintAnswerView(ActionView):
    model = Complaint
    form_class = f.AnswerForm
    title = "Responder reclamação"
    success = "Resposta registrada."

    def context(self, obj, form):
        ctx = super().context(obj, form)
        ctx["complaint"] = obj
        return ctx

    def parent_crumbs(self, obj):
        return [_concessions_crumb(), ("Reclamações de usuários", reverse("transit-complaints"))]

    def perform(self, obj, data):
        return svc.complaint_answer(actor=self.request.user, complaint=obj, **data)

    def success_url(self, obj, result):
        return reverse("transit-complaints")



class ContractPdfView(StaffMixin, View):
    """GET the signed concession contract as a PDF (clerk, julgador, admin; art. 8, 9, 25)."""

    def get(self, request, pk: int):
        from django.http import HttpResponse

        from licensing.transit.documents import ContractNotSigned, concession_contract_pdf

        try:
            concession = sel.concession_for_staff(pk)
        except Concession.DoesNotExist as exc:
            raise Http404 from exc
        try:
            pdf = concession_contract_pdf(concession)
        except ContractNotSigned as exc:
            raise Http404(str(exc)) from exc
        response = HttpResponse(pdf, content_type="application/pdf")
        safe = "".join(ch if ch.isalnum() else "-" for ch in concession.contract_number).strip("-")
        response["Content-Disposition"] = f'inline; filename="contrato-concessao-{safe or concession.pk}.pdf"'
        response["Cache-Control"] = "private, no-store"
        return response
