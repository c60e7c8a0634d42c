"""API v1 of collective transport (/api/v1/transit/...). 404 when the pack has no such section.

Public: lines with itinerary, schedule, fares in force and operator; the fare of a line
(``?zone=&student=&at=``); complaints about a line. Staff: concessionaires, concessions and
their lifecycle, lines, buses, fares, itinerary changes, interventions, default
proceedings, complaint answers. Writes go through ``licensing.transit.services``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import datetime

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.throttling import AnonRateThrottle
from rest_framework.views import APIView

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


class TransitAPIView(APIView):
    """Base: the whole module answers 404 when the active pack has no collective transport."""

    def initial(self, request, *args, **kwargs):
        if not sel.transit_enabled():
            raise NotFound("Transporte coletivo não disponível neste município.")
        super().initial(request, *args, **kwargs)


class ComplaintThrottle(AnonRateThrottle):
    scope = "transit_complaint"
    rate = "30/hour"


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
        out["clauses"] = [{"code": cl["code"], "label": cl["label"], "legal_basis": cl["legal_basis"],
                           "present": bool((c.clauses or {}).get(cl["code"]))}
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


def _valid(serializer_class, request) -> dict:
    s = serializer_class(data=request.data)
    s.is_valid(raise_exception=True)
    return s.validated_data


# --- public --------------------------------------------------------------------------------
class LineListView(TransitAPIView):
    """GET /api/v1/transit/lines/ — lines in operation, with operator and fares in force."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(responses=OpenApiTypes.OBJECT, operation_id="transit_lines_list")
    def get(self, request):
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(sel.public_lines(), request, view=self)
        return paginator.get_paginated_response([line_json(ln) for ln in page])


class LineDetailView(TransitAPIView):
    """GET /api/v1/transit/lines/{id}/ — itinerary (stops, segments), schedule, fares, operator."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, pk: int):
        line = get_object_or_404(sel.public_lines(), pk=pk)
        return Response(line_json(line, detail=True))


class LineFareView(TransitAPIView):
    """GET /api/v1/transit/lines/{id}/fare/?zone=urban|rural&student=true|false&at=ISO."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(responses=OpenApiTypes.OBJECT, parameters=[
        OpenApiParameter("zone", str, enum=["urban", "rural"]), OpenApiParameter("student", bool),
        OpenApiParameter("at", str, description="data ou data-hora ISO 8601; padrão: agora"),
    ])
    def get(self, request, pk: int):
        line = get_object_or_404(sel.public_lines(), pk=pk)
        zone = request.query_params.get("zone") or FareZone.URBAN
        if zone not in FareZone.values:
            return Response({"errors": {"zone": ["Use zone=urban (urbano) ou zone=rural."]}}, status=400)
        raw_student = (request.query_params.get("student") or "false").lower()
        if raw_student not in ("true", "false", "1", "0", "sim", "nao", "não"):
            return Response({"errors": {"student": ["Use student=true ou student=false."]}}, status=400)
        student = raw_student in ("true", "1", "sim")
        pack = regulation.current()
        at = pack.today()
        raw_at = request.query_params.get("at")
        if raw_at:
            try:
                parsed = datetime.fromisoformat(raw_at.replace("Z", "+00:00"))
            except ValueError:
                return Response({"errors": {"at": ["Data inválida: use AAAA-MM-DD ou data-hora ISO 8601."]}},
                                status=400)
            at = parsed.astimezone(pack.tz).date() if parsed.tzinfo else parsed.date()
        try:
            quote = sel.fare_quote(line, zone=zone, student=student, at=at)
        except sel.FareNotFound as exc:
            return Response({"errors": {"zone": [str(exc)]}}, status=404)
        return Response(quote.as_dict())


class LineComplaintView(TransitAPIView):
    """POST /api/v1/transit/lines/{id}/complaints/ — anyone records a complaint (art. 11, VII)."""

    permission_classes = [permissions.AllowAny]
    throttle_classes = [ComplaintThrottle]

    @extend_schema(request=ComplaintIn, responses={201: OpenApiTypes.OBJECT})
    def post(self, request, pk: int):
        line = get_object_or_404(sel.public_lines(), pk=pk)
        data = _valid(ComplaintIn, request)
        complaint = svc.complaint_file(actor=request.user, line=line, **data)
        return Response({"protocol": complaint.protocol, "status": complaint.status, "id": complaint.pk},
                        status=status.HTTP_201_CREATED)


# --- staff ---------------------------------------------------------------------------------
class ConcessionaireListView(TransitAPIView):
    def get_permissions(self):
        return [TransitClerk()] if self.request.method == "POST" else [TransitStaff()]

    @extend_schema(responses=OpenApiTypes.OBJECT, operation_id="transit_concessionaires_list")
    def get(self, request):
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(sel.concessionaires(), request, view=self)
        return paginator.get_paginated_response([company_json(c, staff=True) for c in page])

    @extend_schema(request=ConcessionaireIn, responses={201: OpenApiTypes.OBJECT})
    def post(self, request):
        company = svc.concessionaire_create(actor=request.user, **_valid(ConcessionaireIn, request))
        return Response(company_json(company, staff=True), status=201)


class ConcessionaireDetailView(TransitAPIView):
    permission_classes = [TransitStaff]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, pk: int):
        return Response(company_json(get_object_or_404(Concessionaire, pk=pk), staff=True))


class ConcessionListView(TransitAPIView):
    def get_permissions(self):
        return [TransitClerk()] if self.request.method == "POST" else [TransitStaff()]

    @extend_schema(responses=OpenApiTypes.OBJECT, operation_id="transit_concessions_list",
                   parameters=[OpenApiParameter("status", str)])
    def get(self, request):
        paginator = PageNumberPagination()
        qs = sel.concessions(status=request.query_params.get("status") or None)
        page = paginator.paginate_queryset(qs, request, view=self)
        return paginator.get_paginated_response([concession_json(c) for c in page])

    @extend_schema(request=ConcessionIn, responses={201: OpenApiTypes.OBJECT})
    def post(self, request):
        data = _valid(ConcessionIn, request)
        ids = data.pop("classified")
        found = Concessionaire.objects.in_bulk(ids)
        missing = [i for i in ids if i not in found]
        if missing:
            return Response({"errors": {"classified": [f"Empresa não cadastrada: {missing}."]}}, status=400)
        concession = svc.concession_create(actor=request.user, classified=[found[i] for i in ids], **data)
        return Response(concession_json(sel.concession_for_staff(concession.pk), detail=True), status=201)


class ConcessionDetailView(TransitAPIView):
    permission_classes = [TransitStaff]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, pk: int):
        try:
            concession = sel.concession_for_staff(pk)
        except Concession.DoesNotExist as exc:
            raise NotFound("Concessão não encontrada.") from exc
        return Response(concession_json(concession, detail=True))


class _Action(TransitAPIView, ABC):
    """POST an action on one object; answers with the object's fresh representation."""

    permission_classes = [TransitClerk]
    model = Concession
    serializer_class: type[serializers.Serializer] | None = None
    created = False

    @abstractmethod
    def act(self, obj, data: dict, user):
        """Carry out the action through its service (each subclass names one)."""

    def represent(self, result):
        return concession_json(sel.concession_for_staff(result.pk), detail=True)

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def post(self, request, pk: int):
        obj = get_object_or_404(self.model, pk=pk)
        data = _valid(self.serializer_class, request) if self.serializer_class else {}
        result = self.act(obj, data, request.user)
        return Response(self.represent(result), status=201 if self.created else 200)


class ContractSignView(_Action):
    serializer_class = ContractIn

    def act(self, obj, data, user):
        return svc.concession_contract_sign(actor=user, concession=obj, **data)


class CallNextView(_Action):
    serializer_class = ReasonIn

    def act(self, obj, data, user):
        svc.concession_call_next(actor=user, concession=obj, reason=data.get("reason", ""))
        return obj


class ServiceStartView(_Action):
    serializer_class = StartIn

    def act(self, obj, data, user):
        return svc.concession_service_start(actor=user, concession=obj, **data)


class RenewView(_Action):
    def act(self, obj, data, user):
        return svc.concession_renew(actor=user, concession=obj)


class ClausesView(_Action):
    serializer_class = ClausesIn

    def act(self, obj, data, user):
        return svc.concession_clauses_record(actor=user, concession=obj, checked=data["clauses"])


class ExtinguishView(_Action):
    permission_classes = [TransitJudge]
    serializer_class = ExtinguishIn

    def act(self, obj, data, user):
        return svc.concession_extinguish(actor=user, concession=obj, **data)


class LineCreateView(_Action):
    serializer_class = LineIn
    created = True

    def act(self, obj, data, user):
        return svc.busline_create(actor=user, concession=obj, code=data["code"], name=data["name"],
                                  segments=_segments(data["segments"]), schedule=dict(data.get("schedule") or {}))

    def represent(self, result):
        return line_json(sel.staff_lines().get(pk=result.pk), detail=True)


class BusCreateView(_Action):
    serializer_class = BusIn
    created = True

    def act(self, obj, data, user):
        return svc.bus_register(actor=user, concession=obj, **data)

    def represent(self, result):
        return bus_json(result)


class InterventionCreateView(_Action):
    serializer_class = InterventionIn
    created = True

    def act(self, obj, data, user):
        return svc.intervention_declare(actor=user, concession=obj, **data)

    def represent(self, result):
        return intervention_json(result)


class DefaultCreateView(_Action):
    serializer_class = DefaultIn
    created = True

    def act(self, obj, data, user):
        return svc.default_notify(actor=user, concession=obj, **data)

    def represent(self, result):
        return default_json(result)


class FareCreateView(_Action):
    model = BusLine
    serializer_class = FareIn
    created = True

    def act(self, obj, data, user):
        return svc.fare_set(actor=user, line=obj, **data)

    def represent(self, result):
        return fare_json(result)


class ItineraryChangeView(_Action):
    model = BusLine
    serializer_class = ItineraryChangeIn
    created = True

    def act(self, obj, data, user):
        schedule = data.get("schedule")
        return svc.itinerary_change_propose(actor=user, line=obj, segments=_segments(data["segments"]),
                                            schedule=dict(schedule) if schedule is not None else None,
                                            reason=data["reason"])

    def represent(self, result):
        return itinerary_json(result)


class ItineraryApproveView(_Action):
    model = Itinerary
    serializer_class = ApproveIn

    def act(self, obj, data, user):
        return svc.itinerary_change_approve(actor=user, itinerary=obj, **data)

    def represent(self, result):
        return itinerary_json(result)


class ItineraryDiscardView(_Action):
    model = Itinerary
    serializer_class = ReasonIn

    def act(self, obj, data, user):
        return svc.itinerary_change_discard(actor=user, itinerary=obj, reason=data.get("reason", ""))

    def represent(self, result):
        return itinerary_json(result)


class BusWithdrawView(_Action):
    model = Bus
    serializer_class = ReasonIn

    def act(self, obj, data, user):
        return svc.bus_withdraw(actor=user, bus=obj, reason=data.get("reason", ""))

    def represent(self, result):
        return bus_json(result)


class ProcedureOpenView(_Action):
    model = Intervention
    serializer_class = ProcedureIn

    def act(self, obj, data, user):
        return svc.intervention_open_procedure(actor=user, intervention=obj, **data)

    def represent(self, result):
        return intervention_json(result)


class InterventionConcludeView(_Action):
    model = Intervention
    permission_classes = [TransitJudge]
    serializer_class = ConcludeIn

    def act(self, obj, data, user):
        return svc.intervention_conclude(actor=user, intervention=obj, **data)

    def represent(self, result):
        return intervention_json(result)


class DefaultCureView(_Action):
    model = DefaultProceeding
    serializer_class = CureIn

    def act(self, obj, data, user):
        return svc.default_mark_cured(actor=user, proceeding=obj, **data)

    def represent(self, result):
        return default_json(result)


class DefaultOpenView(_Action):
    model = DefaultProceeding
    serializer_class = ProcedureIn

    def act(self, obj, data, user):
        return svc.default_open(actor=user, proceeding=obj, **data)

    def represent(self, result):
        return default_json(result)


class DefaultConcludeView(_Action):
    model = DefaultProceeding
    permission_classes = [TransitJudge]
    serializer_class = DefaultConcludeIn

    def act(self, obj, data, user):
        return svc.default_conclude(actor=user, proceeding=obj, **data)

    def represent(self, result):
        return default_json(result)


class ComplaintListView(TransitAPIView):
    permission_classes = [TransitStaff]

    @extend_schema(responses=OpenApiTypes.OBJECT, parameters=[OpenApiParameter("status", str)])
    def get(self, request):
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(sel.complaints(request.query_params.get("status") or None), request,
                                           view=self)
        return paginator.get_paginated_response([complaint_json(c, staff=True) for c in page])


class ComplaintAnswerView(_Action):
    model = Complaint
    serializer_class = AnswerIn

    def act(self, obj, data, user):
        return svc.complaint_answer(actor=user, complaint=obj, **data)

    def represent(self, result):
        return complaint_json(result, staff=True)
