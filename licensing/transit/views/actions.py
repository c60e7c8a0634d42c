"""Action pages of the staff: one form, one service each (portal.actions)."""


from __future__ import annotations

from django.urls import reverse

from licensing.transit import forms as f
from licensing.transit import selectors as sel
from licensing.transit import services as svc
from licensing.transit.models import (
    Bus,
    BusLine,
    Complaint,
    DefaultProceeding,
    Intervention,
    Itinerary,
)
from licensing.transit.views._base import (
    JUDGES,
    ActionView,
    _concessions_crumb,
    _pack,
    _pct,
    _schedule,
)


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
        return {"clauses": [k for k, v in svc.current_clauses(obj).items() if v]}

    def perform(self, obj, data):
        svc.concession_clauses_record(actor=self.request.user, concession=obj, checked=data["clauses"])
        return obj


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
