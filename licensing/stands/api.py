"""API v1 of stands."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from licensing.grants.models import Authorization
from licensing.requests import api_responses as R
from licensing.stands import selectors as sel
from licensing.stands import services as svc
from licensing.stands.models import AssignmentStatus, StandAssignment, TaxiStand
from portal.api import IsClerk
from portal.schema import NOT_FOUND
from portal.validators import MAX_ID


def stand_json(stand: TaxiStand) -> dict:
    return {
        "id": stand.pk, "name": stand.name, "location": stand.location, "capacity": stand.capacity,
        "modality": stand.modality or None, "occupied": stand.occupied, "waiting": stand.waiting,
        "available": max(stand.capacity - stand.occupied, 0),
        "vehicles": [
            {"holder": a.authorization.holder.display_name,
             "plate": a.authorization.vehicle.display_plate if a.authorization.vehicle else None}
            for a in stand.active_assignments
        ],
    }


class StandCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=120, label="nome")
    location = serializers.CharField(max_length=250, label="localização")
    capacity = serializers.IntegerField(min_value=1, max_value=500, label="vagas")
    modality = serializers.ChoiceField(choices=[("", "qualquer"), ("taxi", "táxi"), ("mototaxi", "mototáxi")],
                                       required=False, default="", label="modalidade")


class StandListView(APIView):
    """GET /api/v1/stands/ (public) — stands with capacity and occupancy; POST (clerk) creates one."""

    def get_permissions(self):
        if self.request.method == "GET":
            return [permissions.AllowAny()]
        return [IsClerk()]

    @extend_schema(responses=R.STANDS)
    def get(self, request):
        return Response([stand_json(s) for s in sel.stands_with_occupancy()])

    @extend_schema(request=StandCreateSerializer)
    @extend_schema(responses={201: R.STAND})
    def post(self, request):
        serializer = StandCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        stand = svc.stand_create(actor=request.user, **serializer.validated_data)
        return Response(stand_json(sel.stands_with_occupancy().get(pk=stand.pk)), status=status.HTTP_201_CREATED)


class CapacitySerializer(serializers.Serializer):
    capacity = serializers.IntegerField(min_value=0, max_value=500, label="vagas")


class StandCapacityView(APIView):
    """POST /api/v1/stands/{id}/capacity/ {"capacity"} — reallocation by the pack's rule."""

    permission_classes = [IsClerk]

    @extend_schema(request=CapacitySerializer, responses=R.CAPACITY)
    def post(self, request, pk: int):
        stand = get_object_or_404(TaxiStand, pk=pk)
        serializer = CapacitySerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        result = svc.stand_set_capacity(actor=request.user, stand=stand, capacity=serializer.validated_data["capacity"])
        return Response({**result, "stand": stand_json(sel.stands_with_occupancy().get(pk=stand.pk))})


class AssignSerializer(serializers.Serializer):
    authorization = serializers.IntegerField(label="autorização", min_value=1, max_value=MAX_ID)


def assignment_json(a: StandAssignment) -> dict:
    return {"id": a.pk, "stand": a.stand_id, "authorization": a.authorization_id, "status": a.status,
            "registered_on": a.registered_on.isoformat(), "vehicle_year": a.vehicle_year}


class StandAssignView(APIView):
    """POST /api/v1/stands/{id}/assignments/ {"authorization"} — designate a holder's stand."""

    permission_classes = [IsClerk]

    @extend_schema(request=AssignSerializer, responses={201: R.ASSIGNMENT})
    def post(self, request, pk: int):
        stand = get_object_or_404(TaxiStand, pk=pk)
        serializer = AssignSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        auth = Authorization.objects.filter(pk=serializer.validated_data["authorization"]).first()
        if auth is None:
            return Response({"errors": {"authorization": ["Autorização não encontrada."]}}, status=400)
        a = svc.stand_assign(actor=request.user, stand=stand, authorization=auth)
        return Response(assignment_json(a), status=status.HTTP_201_CREATED)


class SwapSerializer(serializers.Serializer):
    assignment_a = serializers.IntegerField(label="designação A", min_value=1, max_value=MAX_ID)
    assignment_b = serializers.IntegerField(label="designação B", min_value=1, max_value=MAX_ID)
    consent_a = serializers.BooleanField(default=False, label="anuência do titular A")
    consent_b = serializers.BooleanField(default=False, label="anuência do titular B")


class StandSwapView(APIView):
    """POST /api/v1/stands/swap/ — swap two holders' stands (consent required where the law says)."""

    permission_classes = [IsClerk]

    @extend_schema(request=SwapSerializer, responses={200: R.SWAPPED, 404: NOT_FOUND})
    def post(self, request):
        serializer = SwapSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        v = serializer.validated_data
        a = get_object_or_404(StandAssignment, pk=v["assignment_a"], status=AssignmentStatus.ACTIVE)
        b = get_object_or_404(StandAssignment, pk=v["assignment_b"], status=AssignmentStatus.ACTIVE)
        new_a, new_b = svc.stand_swap(actor=request.user, first=a, second=b, consent_first=v["consent_a"],
                                      consent_second=v["consent_b"])
        return Response({"assignments": [assignment_json(new_a), assignment_json(new_b)]})
