"""The JSON of the transit API (output) and its input serializers."""


from __future__ import annotations

from rest_framework import serializers

from licensing.transit import selectors as sel
from licensing.transit import services as svc
from licensing.transit.models import (
    Bus,
    BusLine,
    Complaint,
    Concession,
    Concessionaire,
    DefaultProceeding,
    FareZone,
    Intervention,
    Itinerary,
)
from licensing.transit.rules import Segment
from portal import regulation
from portal.api import role_permission
from portal.roles import Role
from portal.validators import MAX_ID

TransitStaff = role_permission(Role.CLERK, Role.JUDGE, Role.ADMIN)
TransitClerk = role_permission(Role.CLERK, Role.ADMIN)
TransitJudge = role_permission(Role.JUDGE, Role.ADMIN)



# --- output ------------------------------------------------------------------------------
def _d(value):
    return value.isoformat() if value else None


def company_json(c: Concessionaire, *, staff: bool) -> dict:
    out = {"id": c.pk, "legal_name": c.legal_name, "trade_name": c.trade_name, "cnpj": c.display_cnpj}
    if staff:
        out.update({
            "registry_number": c.registry_number, "municipal_registration": c.municipal_registration,
            "address": c.address, "email": c.email, "phone": c.phone,
            "legal_representative": {"name": c.representative_name, "cpf": c.representative_cpf,
                                     "role": c.representative_role},
        })
    return out


def segment_json(s) -> dict:
    return {"order": s.order, "origin": s.origin, "destination": s.destination,
            "length_km": f"{s.length_km:.3f}", "zone": s.zone}


def itinerary_json(it: Itinerary) -> dict:
    segs = list(it.segments.all())
    return {
        "id": it.pk, "version": it.version, "status": it.status, "total_km": f"{it.total_km:.3f}",
        "changed_km": f"{it.changed_km:.3f}", "change_ratio": str(it.change_ratio),
        "amendment_reference": it.amendment_reference, "announced_on": _d(it.announced_on),
        "effective_from": _d(it.effective_from), "reason": it.reason,
        "stops": ([s.origin for s in segs] + [segs[-1].destination]) if segs else [],
        "segments": [segment_json(s) for s in segs], "schedule": it.schedule,
    }


def fare_json(f) -> dict:
    return {"id": f.pk, "zone": f.zone, "amount": f"{f.amount:.2f}", "decree": f.decree,
            "announced_on": _d(f.announced_on), "effective_from": _d(f.effective_from), "legal_basis": f.legal_basis}


def line_json(line: BusLine, *, detail: bool = False) -> dict:
    concession = line.concession
    company = concession.concessionaire
    out = {
        "id": line.pk, "code": line.code, "name": line.name,
        "operator": company_json(company, staff=False) if company else None,
        "concession": {"id": concession.pk, "number": concession.number, "status": concession.status,
                       "category": concession.category},
        "fares_in_force": {zone: fare_json(f) for zone, f in sel.fares_in_force(line).items()},
    }
    if detail:
        out["itinerary"] = itinerary_json(sel.itinerary_in_force(line))
        out["upcoming_itineraries"] = [itinerary_json(i) for i in sel.upcoming_itineraries(line)]
        out["upcoming_fares"] = [fare_json(f) for f in sel.upcoming_fares(line)]
    return out


def concession_json(c: Concession, *, detail: bool = False) -> dict:
    pack = regulation.current()
    out = {
        "id": c.pk, "number": c.number, "object": c.object, "category": c.category, "status": c.status,
        "status_label": c.get_status_display(), "bidding_reference": c.bidding_reference,
        "bidding_closed_on": _d(c.bidding_closed_on),
        "concessionaire": company_json(c.concessionaire, staff=True) if c.concessionaire else None,
        "contract_number": c.contract_number, "contract_signed_on": _d(c.contract_signed_on),
        "service_started_on": _d(c.service_started_on), "term_start": _d(c.term_start),
        "term_end": _d(c.term_end), "renewals": c.renewals,
        "extinction": ({"cause": c.extinction_cause, "act": c.extinction_act, "on": _d(c.extinct_on)}
                       if c.extinction_cause else None),
    }
    if detail:
        out["deadlines"] = {k: {"label": v["label"], "date": _d(v["date"]), "legal_basis": v["legal_basis"]}
                            for k, v in sel.concession_deadlines(pack, c).items()}
        out["classified"] = [{"position": b.position, "company": company_json(b.concessionaire, staff=True),
                              "status": b.status, "called_on": _d(b.called_on)} for b in c.classified.all()]
        present = svc.current_clauses(c)
        out["clauses"] = [{"code": cl["code"], "label": cl["label"], "legal_basis": cl["legal_basis"],
                           "present": bool(present.get(cl["code"]))}
                          for cl in svc.pack_list(pack, "clauses")]
        out["lines"] = [{"id": ln.pk, "code": ln.code, "name": ln.name} for ln in c.lines.all()]
        out["buses"] = [bus_json(b) for b in c.buses.all()]
        out["interventions"] = [intervention_json(i) for i in c.interventions.all()]
        out["defaults"] = [default_json(d) for d in c.defaults.all()]
    return out


def bus_json(b: Bus) -> dict:
    return {"id": b.pk, "plate": b.plate, "category": b.category, "seated": b.seated, "standing": b.standing,
            "make": b.make, "model": b.model, "manufacture_year": b.manufacture_year, "status": b.status}


def intervention_json(i: Intervention) -> dict:
    return {"id": i.pk, "decree": i.decree, "declared_on": _d(i.declared_on), "interventor": i.interventor,
            "term_days": i.term_days, "objectives": i.objectives, "grounds": i.grounds, "status": i.status,
            "procedure_reference": i.procedure_reference, "procedure_opened_on": _d(i.procedure_opened_on),
            "concluded_on": _d(i.concluded_on), "conclusion": i.conclusion,
            "deadlines": {k: {"date": _d(v["date"]), "legal_basis": v["legal_basis"]}
                          for k, v in sel.intervention_deadlines(regulation.current(), i).items()}}


def default_json(d: DefaultProceeding) -> dict:
    from licensing.transit.rules import cure_deadline

    return {"id": d.pk, "grounds": d.grounds, "details": d.details, "notified_on": _d(d.notified_on),
            "cure_days": d.cure_days, "cure_deadline": _d(cure_deadline(d.notified_on, d.cure_days)),
            "status": d.status, "opened_on": _d(d.opened_on), "process_reference": d.process_reference,
            "concluded_on": _d(d.concluded_on), "decision": d.decision}


def complaint_json(c: Complaint, *, staff: bool) -> dict:
    out = {"id": c.pk, "protocol": c.protocol, "line": c.line.code, "status": c.status,
           "created_at": c.created_at.isoformat(), "answer": c.answer,
           "answered_at": c.answered_at.isoformat() if c.answered_at else None}
    if staff:
        out.update({"name": c.name, "contact": c.contact, "text": c.text, "occurred_on": _d(c.occurred_on)})
    return out


# --- input -------------------------------------------------------------------------------
class SegmentIn(serializers.Serializer):
    origin = serializers.CharField(label="de (parada)", max_length=120)
    destination = serializers.CharField(label="até (parada)", max_length=120)
    length_km = serializers.DecimalField(label="extensão (km)", max_digits=8, decimal_places=3, min_value=0)
    zone = serializers.ChoiceField(label="zona", choices=FareZone.choices, default=FareZone.URBAN)


class ScheduleIn(serializers.Serializer):
    weekday = serializers.ListField(child=serializers.CharField(max_length=5), required=False)
    saturday = serializers.ListField(child=serializers.CharField(max_length=5), required=False)
    sunday = serializers.ListField(child=serializers.CharField(max_length=5), required=False)


def _segments(data) -> list[Segment]:
    return [Segment(s["origin"], s["destination"], s["length_km"], s["zone"]) for s in data]


class ConcessionaireIn(serializers.Serializer):
    legal_name = serializers.CharField(label="razão social", max_length=200)
    trade_name = serializers.CharField(label="nome fantasia", max_length=200, required=False, allow_blank=True)
    cnpj = serializers.CharField(label="CNPJ", max_length=20)
    registry_number = serializers.CharField(label="registro na Junta Comercial", max_length=30)
    municipal_registration = serializers.CharField(max_length=30, required=False, allow_blank=True)
    address = serializers.CharField(label="endereço", max_length=300)
    email = serializers.EmailField(required=False, allow_blank=True)
    phone = serializers.CharField(max_length=20, required=False, allow_blank=True)
    representative_name = serializers.CharField(label="representante legal", max_length=200)
    representative_cpf = serializers.CharField(label="CPF do representante", max_length=14)
    representative_role = serializers.CharField(max_length=100, required=False, allow_blank=True)


class ConcessionIn(serializers.Serializer):
    object = serializers.CharField(label="objeto")
    category = serializers.CharField(label="categoria do veículo", max_length=20)
    bidding_reference = serializers.CharField(label="licitação", max_length=100)
    bidding_closed_on = serializers.DateField(label="encerramento da licitação")
    justification_act = serializers.CharField(max_length=200, required=False, allow_blank=True)
    classified = serializers.ListField(label="classificação", child=serializers.IntegerField(min_value=1, max_value=MAX_ID), min_length=1)


class ContractIn(serializers.Serializer):
    signed_on = serializers.DateField(label="data da assinatura")
    contract_number = serializers.CharField(label="número do contrato", max_length=40)


class StartIn(serializers.Serializer):
    started_on = serializers.DateField(label="data de início")


class ClausesIn(serializers.Serializer):
    clauses = serializers.ListField(label="cláusulas", child=serializers.CharField(max_length=10))


class ExtinguishIn(serializers.Serializer):
    cause = serializers.CharField(label="causa", max_length=30)
    act = serializers.CharField(label="ato", max_length=200)
    extinct_on = serializers.DateField(label="data")
    notes = serializers.CharField(required=False, allow_blank=True)
    authorizing_law = serializers.CharField(required=False, allow_blank=True, max_length=200)
    indemnity_paid = serializers.BooleanField(required=False, default=False)
    judicial_decision = serializers.CharField(required=False, allow_blank=True, max_length=200)


class LineIn(serializers.Serializer):
    code = serializers.CharField(label="código", max_length=20)
    name = serializers.CharField(label="nome", max_length=200)
    segments = SegmentIn(many=True)
    schedule = ScheduleIn(required=False)


class ItineraryChangeIn(serializers.Serializer):
    segments = SegmentIn(many=True)
    schedule = ScheduleIn(required=False)
    reason = serializers.CharField(label="justificativa")


class ApproveIn(serializers.Serializer):
    amendment_reference = serializers.CharField(label="termo aditivo", max_length=100)
    announced_on = serializers.DateField(label="anunciada em")
    effective_from = serializers.DateField(label="vigora a partir de")


class FareIn(serializers.Serializer):
    zone = serializers.ChoiceField(label="trecho", choices=FareZone.choices)
    amount = serializers.DecimalField(label="valor", max_digits=8, decimal_places=2)
    decree = serializers.CharField(label="decreto", max_length=100)
    announced_on = serializers.DateField(label="anunciada em")
    effective_from = serializers.DateField(label="vigora a partir de")


class BusIn(serializers.Serializer):
    plate = serializers.CharField(label="placa", max_length=8)
    category = serializers.CharField(label="categoria", max_length=20)
    seated = serializers.IntegerField(label="lugares sentados", min_value=0, max_value=200)
    standing = serializers.IntegerField(label="lugares em pé", min_value=0, max_value=200, default=0)
    make = serializers.CharField(max_length=60, required=False, allow_blank=True)
    model = serializers.CharField(max_length=80, required=False, allow_blank=True)
    manufacture_year = serializers.IntegerField(required=False, allow_null=True, min_value=1950, max_value=2100)


class InterventionIn(serializers.Serializer):
    decree = serializers.CharField(label="decreto", max_length=100)
    declared_on = serializers.DateField(label="declarada em")
    interventor = serializers.CharField(label="interventor", max_length=200)
    term_days = serializers.IntegerField(label="prazo (dias)", min_value=1, max_value=3650)
    objectives = serializers.CharField(label="objetivos e limites")
    grounds = serializers.ListField(child=serializers.CharField(max_length=5), required=False, default=list)


class ProcedureIn(serializers.Serializer):
    opened_on = serializers.DateField(label="instaurado em")
    reference = serializers.CharField(label="número do procedimento", max_length=100)


class ConcludeIn(serializers.Serializer):
    concluded_on = serializers.DateField(label="concluído em")
    upheld = serializers.BooleanField(label="causas comprovadas")
    conclusion = serializers.CharField(label="conclusão")


class DefaultIn(serializers.Serializer):
    grounds = serializers.ListField(label="fundamentos", child=serializers.CharField(max_length=5), min_length=1)
    details = serializers.CharField(label="descumprimentos")
    notified_on = serializers.DateField(label="comunicada em")
    cure_days = serializers.IntegerField(label="prazo para correção (dias)", min_value=1, max_value=365)


class CureIn(serializers.Serializer):
    reason = serializers.CharField(label="correção")


class DefaultConcludeIn(serializers.Serializer):
    proven = serializers.BooleanField(label="inadimplência comprovada")
    decision = serializers.CharField(label="decisão")
    concluded_on = serializers.DateField(label="decidido em")


class ComplaintIn(serializers.Serializer):
    text = serializers.CharField(label="reclamação", max_length=5000)
    name = serializers.CharField(label="nome", max_length=200, required=False, allow_blank=True)
    contact = serializers.CharField(label="contato", max_length=200, required=False, allow_blank=True)
    occurred_on = serializers.DateField(label="data do ocorrido", required=False, allow_null=True)


class AnswerIn(serializers.Serializer):
    answer = serializers.CharField(label="resposta", max_length=5000)


class ReasonIn(serializers.Serializer):
    reason = serializers.CharField(label="motivo", required=False, allow_blank=True)
