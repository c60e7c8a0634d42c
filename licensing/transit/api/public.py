"""Public API of collective transport: lines, fares, complaints."""


from __future__ import annotations

from datetime import datetime

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response

from licensing.transit import selectors as sel
from licensing.transit import services as svc
from licensing.transit.api import responses as R
from licensing.transit.api._base import ComplaintThrottle, TransitAPIView, _valid
from licensing.transit.api.serializers import (
    ComplaintIn,
    line_json,
)
from licensing.transit.models import (
    FareZone,
)
from portal import regulation
from portal.api import role_permission
from portal.roles import Role
from portal.schema import NOT_FOUND

TransitStaff = role_permission(Role.CLERK, Role.JUDGE, Role.ADMIN)
TransitClerk = role_permission(Role.CLERK, Role.ADMIN)
TransitJudge = role_permission(Role.JUDGE, Role.ADMIN)



# --- public --------------------------------------------------------------------------------
class LineListView(TransitAPIView):
    """GET /api/v1/transit/lines/ — lines in operation, with operator and fares in force."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(responses=R.LINE_PAGE, operation_id="transit_lines_list")
    def get(self, request):
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(sel.public_lines(), request, view=self)
        return paginator.get_paginated_response([line_json(ln) for ln in page])


class LineDetailView(TransitAPIView):
    """GET /api/v1/transit/lines/{id}/ — itinerary (stops, segments), schedule, fares, operator."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(responses=R.LINE)
    def get(self, request, pk: int):
        line = get_object_or_404(sel.public_lines(), pk=pk)
        return Response(line_json(line, detail=True))


class LineFareView(TransitAPIView):
    """GET /api/v1/transit/lines/{id}/fare/?zone=urban|rural&student=true|false&at=ISO."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(responses={200: R.LINE_FARE, 404: NOT_FOUND}, parameters=[
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

    @extend_schema(request=ComplaintIn, responses={201: R.COMPLAINT_FILED})
    def post(self, request, pk: int):
        line = get_object_or_404(sel.public_lines(), pk=pk)
        data = _valid(ComplaintIn, request)
        complaint = svc.complaint_file(actor=request.user, line=line, **data)
        return Response({"protocol": complaint.protocol, "status": complaint.status, "id": complaint.pk},
                        status=status.HTTP_201_CREATED)
