"""Staff API of collective transport: concessions, lines, buses, interventions, defaults."""


from __future__ import annotations

from abc import ABC, abstractmethod

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response

from licensing.transit import selectors as sel
from licensing.transit import services as svc
from licensing.transit.api import responses as R
from licensing.transit.api._base import TransitAPIView, _valid
from licensing.transit.api.serializers import (
    AnswerIn,
    ApproveIn,
    BusIn,
    ClausesIn,
    ConcessionaireIn,
    ConcessionIn,
    ConcludeIn,
    ContractIn,
    CureIn,
    DefaultConcludeIn,
    DefaultIn,
    ExtinguishIn,
    FareIn,
    InterventionIn,
    ItineraryChangeIn,
    LineIn,
    ProcedureIn,
    ReasonIn,
    StartIn,
    _segments,
    bus_json,
    company_json,
    complaint_json,
    concession_json,
    default_json,
    fare_json,
    intervention_json,
    itinerary_json,
    line_json,
)
from licensing.transit.models import (
    Bus,
    BusLine,
    Complaint,
    Concession,
    Concessionaire,
    DefaultProceeding,
    Intervention,
    Itinerary,
)
from portal.api import role_permission
from portal.roles import Role

TransitStaff = role_permission(Role.CLERK, Role.JUDGE, Role.ADMIN)
TransitClerk = role_permission(Role.CLERK, Role.ADMIN)
TransitJudge = role_permission(Role.JUDGE, Role.ADMIN)



# --- staff ---------------------------------------------------------------------------------
class ConcessionaireListView(TransitAPIView):
    def get_permissions(self):
        return [TransitClerk()] if self.request.method == "POST" else [TransitStaff()]

    @extend_schema(responses=R.CONCESSIONAIRE_PAGE, operation_id="transit_concessionaires_list")
    def get(self, request):
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(sel.concessionaires(), request, view=self)
        return paginator.get_paginated_response([company_json(c, staff=True) for c in page])

    @extend_schema(request=ConcessionaireIn, responses={201: R.CONCESSIONAIRE})
    def post(self, request):
        company = svc.concessionaire_create(actor=request.user, **_valid(ConcessionaireIn, request))
        return Response(company_json(company, staff=True), status=201)


class ConcessionaireDetailView(TransitAPIView):
    permission_classes = [TransitStaff]

    @extend_schema(responses=R.CONCESSIONAIRE)
    def get(self, request, pk: int):
        return Response(company_json(get_object_or_404(Concessionaire, pk=pk), staff=True))


class ConcessionListView(TransitAPIView):
    def get_permissions(self):
        return [TransitClerk()] if self.request.method == "POST" else [TransitStaff()]

    @extend_schema(responses=R.CONCESSION_PAGE, operation_id="transit_concessions_list",
                   parameters=[OpenApiParameter("status", str)])
    def get(self, request):
        paginator = PageNumberPagination()
        qs = sel.concessions(status=request.query_params.get("status") or None)
        page = paginator.paginate_queryset(qs, request, view=self)
        return paginator.get_paginated_response([concession_json(c) for c in page])

    @extend_schema(request=ConcessionIn, responses={201: R.CONCESSION})
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

    @extend_schema(responses=R.CONCESSION)
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


@extend_schema_view(post=extend_schema(responses={200: R.CONCESSION}))
class ContractSignView(_Action):
    serializer_class = ContractIn

    def act(self, obj, data, user):
        return svc.concession_contract_sign(actor=user, concession=obj, **data)


@extend_schema_view(post=extend_schema(responses={200: R.CONCESSION}))
class CallNextView(_Action):
    serializer_class = ReasonIn

    def act(self, obj, data, user):
        svc.concession_call_next(actor=user, concession=obj, reason=data.get("reason", ""))
        return obj


@extend_schema_view(post=extend_schema(responses={200: R.CONCESSION}))
class ServiceStartView(_Action):
    serializer_class = StartIn

    def act(self, obj, data, user):
        return svc.concession_service_start(actor=user, concession=obj, **data)


@extend_schema_view(post=extend_schema(responses={200: R.CONCESSION}))
class RenewView(_Action):
    def act(self, obj, data, user):
        return svc.concession_renew(actor=user, concession=obj)


@extend_schema_view(post=extend_schema(responses={200: R.CONCESSION}))
class ClausesView(_Action):
    serializer_class = ClausesIn

    def act(self, obj, data, user):
        svc.concession_clauses_record(actor=user, concession=obj, checked=data["clauses"])
        return obj


@extend_schema_view(post=extend_schema(responses={200: R.CONCESSION}))
class ExtinguishView(_Action):
    permission_classes = [TransitJudge]
    serializer_class = ExtinguishIn

    def act(self, obj, data, user):
        return svc.concession_extinguish(actor=user, concession=obj, **data)


@extend_schema_view(post=extend_schema(responses={201: R.LINE}))
class LineCreateView(_Action):
    serializer_class = LineIn
    created = True

    def act(self, obj, data, user):
        return svc.busline_create(actor=user, concession=obj, code=data["code"], name=data["name"],
                                  segments=_segments(data["segments"]), schedule=dict(data.get("schedule") or {}))

    def represent(self, result):
        return line_json(sel.staff_lines().get(pk=result.pk), detail=True)


@extend_schema_view(post=extend_schema(responses={201: R.BUS}))
class BusCreateView(_Action):
    serializer_class = BusIn
    created = True

    def act(self, obj, data, user):
        return svc.bus_register(actor=user, concession=obj, **data)

    def represent(self, result):
        return bus_json(result)


@extend_schema_view(post=extend_schema(responses={201: R.INTERVENTION}))
class InterventionCreateView(_Action):
    serializer_class = InterventionIn
    created = True

    def act(self, obj, data, user):
        return svc.intervention_declare(actor=user, concession=obj, **data)

    def represent(self, result):
        return intervention_json(result)


@extend_schema_view(post=extend_schema(responses={201: R.DEFAULT}))
class DefaultCreateView(_Action):
    serializer_class = DefaultIn
    created = True

    def act(self, obj, data, user):
        return svc.default_notify(actor=user, concession=obj, **data)

    def represent(self, result):
        return default_json(result)


@extend_schema_view(post=extend_schema(responses={201: R.FARE}))
class FareCreateView(_Action):
    model = BusLine
    serializer_class = FareIn
    created = True

    def act(self, obj, data, user):
        return svc.fare_set(actor=user, line=obj, **data)

    def represent(self, result):
        return fare_json(result)


@extend_schema_view(post=extend_schema(responses={201: R.ITINERARY}))
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


@extend_schema_view(post=extend_schema(responses={200: R.ITINERARY}))
class ItineraryApproveView(_Action):
    model = Itinerary
    serializer_class = ApproveIn

    def act(self, obj, data, user):
        return svc.itinerary_change_approve(actor=user, itinerary=obj, **data)

    def represent(self, result):
        return itinerary_json(result)


@extend_schema_view(post=extend_schema(responses={200: R.ITINERARY}))
class ItineraryDiscardView(_Action):
    model = Itinerary
    serializer_class = ReasonIn

    def act(self, obj, data, user):
        return svc.itinerary_change_discard(actor=user, itinerary=obj, reason=data.get("reason", ""))

    def represent(self, result):
        return itinerary_json(result)


@extend_schema_view(post=extend_schema(responses={200: R.BUS}))
class BusWithdrawView(_Action):
    model = Bus
    serializer_class = ReasonIn

    def act(self, obj, data, user):
        return svc.bus_withdraw(actor=user, bus=obj, reason=data.get("reason", ""))

    def represent(self, result):
        return bus_json(result)


@extend_schema_view(post=extend_schema(responses={200: R.INTERVENTION}))
class ProcedureOpenView(_Action):
    model = Intervention
    serializer_class = ProcedureIn

    def act(self, obj, data, user):
        return svc.intervention_open_procedure(actor=user, intervention=obj, **data)

    def represent(self, result):
        return intervention_json(result)


@extend_schema_view(post=extend_schema(responses={200: R.INTERVENTION}))
class InterventionConcludeView(_Action):
    model = Intervention
    permission_classes = [TransitJudge]
    serializer_class = ConcludeIn

    def act(self, obj, data, user):
        return svc.intervention_conclude(actor=user, intervention=obj, **data)

    def represent(self, result):
        return intervention_json(result)


@extend_schema_view(post=extend_schema(responses={200: R.DEFAULT}))
class DefaultCureView(_Action):
    model = DefaultProceeding
    serializer_class = CureIn

    def act(self, obj, data, user):
        return svc.default_mark_cured(actor=user, proceeding=obj, **data)

    def represent(self, result):
        return default_json(result)


@extend_schema_view(post=extend_schema(responses={200: R.DEFAULT}))
class DefaultOpenView(_Action):
    model = DefaultProceeding
    serializer_class = ProcedureIn

    def act(self, obj, data, user):
        return svc.default_open(actor=user, proceeding=obj, **data)

    def represent(self, result):
        return default_json(result)


@extend_schema_view(post=extend_schema(responses={200: R.DEFAULT}))
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

    @extend_schema(responses=R.COMPLAINT_PAGE, parameters=[OpenApiParameter("status", str)])
    def get(self, request):
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(sel.complaints(request.query_params.get("status") or None), request,
                                           view=self)
        return paginator.get_paginated_response([complaint_json(c, staff=True) for c in page])


@extend_schema_view(post=extend_schema(responses={200: R.COMPLAINT}))
class ComplaintAnswerView(_Action):
    model = Complaint
    serializer_class = AnswerIn

    def act(self, obj, data, user):
        return svc.complaint_answer(actor=user, complaint=obj, **data)

    def represent(self, result):
        return complaint_json(result, staff=True)
