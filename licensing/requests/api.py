"""API v1 of a grant's requests: filing, decisions, the vistoria of a substitute vehicle and
leave returns. Thin: parse, call a service or selector, answer."""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.views import APIView

from licensing.grants import selectors as grants_selectors
from licensing.requests import api_responses as R
from licensing.requests import selectors as sel
from licensing.requests import services as svc
from licensing.requests.models import LeaveOfAbsence, LifecycleRequest, RequestKind
from portal.api import IsClerk, request_object, role_permission
from portal.audit import history_for
from portal.roles import Role, has_role

CanFile = role_permission(Role.APPLICANT, Role.CLERK, Role.ADMIN)
CanInspect = role_permission(Role.CLERK, Role.ADMIN, Role.AGENT)
SeesRequests = role_permission(Role.APPLICANT, Role.CLERK, Role.ADMIN, Role.AGENT)
SeesFees = role_permission(Role.APPLICANT, Role.CLERK, Role.ADMIN)


class Pagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


def _money(value) -> str | None:
    return None if value is None else f"{value:.2f}"


def request_json(req: LifecycleRequest, *, history: bool = False) -> dict:
    out = {
        "id": req.pk,
        "protocol": req.protocol,
        "authorization": {"id": req.authorization_id, "number": req.authorization.number},
        "kind": req.kind,
        "kind_label": req.get_kind_display(),
        "status": req.status,
        "data": req.data,
        "filed_on": req.filed_on.isoformat(),
        "filed_at": req.filed_at.isoformat(),
        "legal_basis": req.legal_basis,
        "late": req.late,
        "late_note": req.late_note,
        "inspection": None if req.kind != RequestKind.SUBSTITUTION else {
            "approved": req.inspection_approved, "checklist": req.inspection_checklist,
            "notes": req.inspection_notes, "at": req.inspection_at.isoformat() if req.inspection_at else None,
        },
        "decided_at": req.decided_at.isoformat() if req.decided_at else None,
        "decision_reason": req.decision_reason,
        "result": req.result,
    }
    if history:
        out["history"] = [
            {"at": e.at.isoformat(), "action": e.action, "from": e.from_state, "to": e.to_state, "reason": e.reason,
             "actor": e.actor_label}
            for e in history_for(req)
        ]
    return out


class FileRequestSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=RequestKind.choices, label="tipo")
    data = serializers.DictField(required=False, label="dados")


class AuthorizationRequestsView(APIView):
    """GET/POST /api/v1/authorizations/{id}/requests/ — the grant's requests; file one."""

    permission_classes = [CanFile]

    @extend_schema(responses=R.REQUESTS)
    def get(self, request, pk: int):
        auth = grants_selectors.authorization_for(request.user, pk)
        reqs = sel.requests_base().filter(authorization=auth).order_by("-filed_at", "-id")
        return Response([request_json(r) for r in reqs])

    @extend_schema(request=FileRequestSerializer)
    @extend_schema(responses={201: R.REQUEST})
    def post(self, request, pk: int):
        request_object(request)
        kind = str(request.data.get("kind") or "")
        auth = sel.authorization_for_filing(request.user, pk, kind)
        serializer = FileRequestSerializer(data={"kind": request.data.get("kind"),
                                                 **({"data": request.data["data"]} if isinstance(request.data.get("data"), dict) else {})})
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data.get("data")
        if data is None:
            data = {k: (request.data.getlist(k) if k == "documents" and hasattr(request.data, "getlist") else v)
                    for k, v in request.data.items() if k != "kind"}
        if not grants_selectors.is_desk(request.user) and auth.holder_id != request.user.pk:
            # an auxiliary driver re-registers only themself
            own = auth.auxiliary_drivers.filter(person=request.user, status="active").values_list("pk", flat=True).first()
            data = {**data, "auxiliary": own, "cpf": ""}
        req = svc.request_file(actor=request.user, authorization=auth, kind=serializer.validated_data["kind"], data=data)
        req = sel.requests_base().get(pk=req.pk)
        return Response(request_json(req), status=status.HTTP_201_CREATED)


class RequestListView(APIView):
    """GET /api/v1/requests/ — the clerk's queue (a holder: their own); filters status, kind, q."""

    permission_classes = [SeesRequests]

    @extend_schema(parameters=[OpenApiParameter("status", str), OpenApiParameter("kind", str), OpenApiParameter("q", str), OpenApiParameter("page", int)], responses=R.REQUEST_PAGE)
    def get(self, request):
        if grants_selectors.is_desk(request.user):
            qs = sel.requests_for_queue(status=request.query_params.get("status", ""),
                                        kind=request.query_params.get("kind", ""), q=request.query_params.get("q", ""))
        else:
            qs = sel.requests_visible_to(request.user).order_by("-filed_at", "-id")
            if request.query_params.get("status"):
                qs = qs.filter(status=request.query_params["status"])
        paginator = Pagination()
        page = paginator.paginate_queryset(qs, request, view=self)
        return paginator.get_paginated_response([request_json(r) for r in page])


class RequestDetailView(APIView):
    permission_classes = [SeesRequests]

    @extend_schema(responses=R.REQUEST_DETAIL)
    def get(self, request, pk: int):
        return Response(request_json(sel.request_for(request.user, pk), history=True))


class DecideSerializer(serializers.Serializer):
    approved = serializers.BooleanField(label="deferido")
    reason = serializers.CharField(label="fundamentação", required=False, allow_blank=True, max_length=4000)


class RequestDecideView(APIView):
    """POST /api/v1/requests/{id}/decide/ {"approved", "reason"} — the clerk decides."""

    permission_classes = [IsClerk]

    @extend_schema(request=DecideSerializer, responses=R.REQUEST)
    def post(self, request, pk: int):
        req = get_object_or_404(LifecycleRequest, pk=pk)
        serializer = DecideSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        req = svc.request_decide(actor=request.user, request=req, approved=serializer.validated_data["approved"],
                                 reason=serializer.validated_data.get("reason", ""))
        return Response(request_json(sel.requests_base().get(pk=req.pk)))


class InspectionSerializer(serializers.Serializer):
    approved = serializers.BooleanField(label="aprovada")
    checklist = serializers.DictField(child=serializers.BooleanField(), required=False, label="itens")
    notes = serializers.CharField(required=False, allow_blank=True, max_length=2000, label="observações")


class RequestInspectionView(APIView):
    """POST /api/v1/requests/{id}/inspection/ — vistoria of the substitute vehicle."""

    permission_classes = [CanInspect]

    @extend_schema(request=InspectionSerializer, responses=R.REQUEST)
    def post(self, request, pk: int):
        req = sel.request_for(request.user, pk)
        serializer = InspectionSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        req = svc.request_record_inspection(actor=request.user, request=req, **serializer.validated_data)
        return Response(request_json(sel.requests_base().get(pk=req.pk)))


class ReturnSerializer(serializers.Serializer):
    returned_on = serializers.DateField(required=False, label="data do retorno")


class LeaveReturnView(APIView):
    """POST /api/v1/leaves/{id}/return/ — the holder (or the clerk) records the return."""

    permission_classes = [CanFile]

    @extend_schema(request=ReturnSerializer, responses=R.LEAVE_RETURNED)
    def post(self, request, pk: int):
        leave = LeaveOfAbsence.objects.select_related("authorization").filter(pk=pk).first()
        if leave is None or not (grants_selectors.is_desk(request.user) or leave.authorization.holder_id == request.user.pk):
            raise Http404("Afastamento não encontrado.")
        if not has_role(request.user, Role.APPLICANT, Role.CLERK, Role.ADMIN):
            raise PermissionDenied()
        serializer = ReturnSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        leave = svc.leave_record_return(actor=request.user, leave=leave,
                                        returned_on=serializer.validated_data.get("returned_on"))
        return Response({"id": leave.pk, "status": leave.status, "returned_on": leave.returned_on.isoformat()})
