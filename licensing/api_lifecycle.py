"""API v1 of a grant's life: requests, decisions, vistoria of a substitute vehicle, stands,
fees (DAM) and leave returns. Thin: parse, call a service or selector, answer."""

from __future__ import annotations

from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.views import APIView

from licensing import selectors_lifecycle as sel
from licensing import services_lifecycle as svc
from licensing.models import Authorization
from licensing.models_lifecycle import (
    AssignmentStatus,
    Fee,
    LeaveOfAbsence,
    LifecycleRequest,
    RequestKind,
    StandAssignment,
    TaxiStand,
)
from portal.api import IsClerk, request_object, role_permission
from portal.audit import history_for
from portal.roles import Role, has_role
from portal.validators import MAX_ID

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


def fee_json(fee: Fee) -> dict:
    return {
        "id": fee.pk, "number": fee.number, "kind": fee.kind, "description": fee.description,
        "authorization": {"id": fee.authorization_id, "number": fee.authorization.number} if fee.authorization_id else None,
        "holder": fee.holder.display_name, "reference_year": fee.reference_year,
        "units": _money(fee.units), "unit_name": fee.unit_name, "unit_value": _money(fee.unit_value),
        "amount": _money(fee.amount), "legal_basis": fee.legal_basis, "due_date": fee.due_date.isoformat(),
        "status": fee.status, "paid_on": fee.paid_on.isoformat() if fee.paid_on else None,
        "payment_reference": fee.payment_reference,
    }


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


class FileRequestSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=RequestKind.choices, label="tipo")
    data = serializers.DictField(required=False, label="dados")


class AuthorizationRequestsView(APIView):
    """GET/POST /api/v1/authorizations/{id}/requests/ — the grant's requests; file one."""

    permission_classes = [CanFile]

    def get(self, request, pk: int):
        auth = sel.authorization_for(request.user, pk)
        reqs = sel.requests_base().filter(authorization=auth).order_by("-filed_at", "-id")
        return Response([request_json(r) for r in reqs])

    @extend_schema(request=FileRequestSerializer)
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
        if not sel.is_desk(request.user) and auth.holder_id != request.user.pk:
            # an auxiliary driver re-registers only themself
            own = auth.auxiliary_drivers.filter(person=request.user, status="active").values_list("pk", flat=True).first()
            data = {**data, "auxiliary": own, "cpf": ""}
        req = svc.request_file(actor=request.user, authorization=auth, kind=serializer.validated_data["kind"], data=data)
        req = sel.requests_base().get(pk=req.pk)
        return Response(request_json(req), status=status.HTTP_201_CREATED)


class RequestListView(APIView):
    """GET /api/v1/requests/ — the clerk's queue (a holder: their own); filters status, kind, q."""

    permission_classes = [SeesRequests]

    def get(self, request):
        if sel.is_desk(request.user):
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

    def get(self, request, pk: int):
        return Response(request_json(sel.request_for(request.user, pk), history=True))


class DecideSerializer(serializers.Serializer):
    approved = serializers.BooleanField(label="deferido")
    reason = serializers.CharField(label="fundamentação", required=False, allow_blank=True, max_length=4000)


class RequestDecideView(APIView):
    """POST /api/v1/requests/{id}/decide/ {"approved", "reason"} — the clerk decides."""

    permission_classes = [IsClerk]

    @extend_schema(request=DecideSerializer)
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

    @extend_schema(request=InspectionSerializer)
    def post(self, request, pk: int):
        req = sel.request_for(request.user, pk)
        serializer = InspectionSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        req = svc.request_record_inspection(actor=request.user, request=req, **serializer.validated_data)
        return Response(request_json(sel.requests_base().get(pk=req.pk)))


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

    def get(self, request):
        return Response([stand_json(s) for s in sel.stands_with_occupancy()])

    @extend_schema(request=StandCreateSerializer)
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

    @extend_schema(request=CapacitySerializer)
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

    @extend_schema(request=AssignSerializer)
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

    @extend_schema(request=SwapSerializer)
    def post(self, request):
        serializer = SwapSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        v = serializer.validated_data
        a = get_object_or_404(StandAssignment, pk=v["assignment_a"], status=AssignmentStatus.ACTIVE)
        b = get_object_or_404(StandAssignment, pk=v["assignment_b"], status=AssignmentStatus.ACTIVE)
        new_a, new_b = svc.stand_swap(actor=request.user, first=a, second=b, consent_first=v["consent_a"],
                                      consent_second=v["consent_b"])
        return Response({"assignments": [assignment_json(new_a), assignment_json(new_b)]})


class FeeListView(APIView):
    """GET /api/v1/fees/ — the clerk sees all (filters status, kind, q); a holder their own."""

    permission_classes = [SeesFees]

    def get(self, request):
        if sel.is_desk(request.user):
            qs = sel.fees_for_desk(status=request.query_params.get("status", ""),
                                   kind=request.query_params.get("kind", ""), q=request.query_params.get("q", ""))
        else:
            qs = sel.fees_visible_to(request.user).order_by("-issued_at", "-id")
        paginator = Pagination()
        page = paginator.paginate_queryset(qs, request, view=self)
        return paginator.get_paginated_response([fee_json(f) for f in page])


class FeeDetailView(APIView):
    permission_classes = [SeesFees]

    def get(self, request, pk: int):
        from licensing.dam_lifecycle import fee_pix

        fee = sel.fee_for(request.user, pk)
        pix = fee_pix(fee)
        return Response({**fee_json(fee), "pix": pix.get("payload")})


class PaySerializer(serializers.Serializer):
    paid_on = serializers.DateField(required=False, label="data do pagamento")
    reference = serializers.CharField(required=False, allow_blank=True, max_length=80, label="referência")


class FeePayView(APIView):
    """POST /api/v1/fees/{id}/pay/ {"paid_on", "reference"} — the clerk records the payment."""

    permission_classes = [IsClerk]

    @extend_schema(request=PaySerializer)
    def post(self, request, pk: int):
        fee = get_object_or_404(Fee, pk=pk)
        serializer = PaySerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        fee = svc.fee_mark_paid(actor=request.user, fee=fee, paid_on=serializer.validated_data.get("paid_on"),
                                reference=serializer.validated_data.get("reference", ""))
        return Response(fee_json(fee))


class FeeDamView(APIView):
    """GET /api/v1/fees/{id}/dam.pdf — the DAM with the Pix QR code."""

    permission_classes = [SeesFees]

    def get(self, request, pk: int):
        from licensing.dam_lifecycle import render_dam

        fee = sel.fee_for(request.user, pk)
        response = HttpResponse(render_dam(fee), content_type="application/pdf")
        response["Content-Disposition"] = f'inline; filename="dam-{fee.number.replace("/", "-")}.pdf"'
        return response


class TffSerializer(serializers.Serializer):
    year = serializers.IntegerField(required=False, min_value=2000, max_value=2100, label="exercício")


class TffIssueView(APIView):
    """POST /api/v1/authorizations/{id}/fees/tff/ — issue the grant's TFF for a year."""

    permission_classes = [IsClerk]

    @extend_schema(request=TffSerializer)
    def post(self, request, pk: int):
        auth = get_object_or_404(Authorization.objects.select_related("holder"), pk=pk)
        serializer = TffSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        fee = svc.tff_issue(actor=request.user, authorization=auth, year=serializer.validated_data.get("year"))
        return Response(fee_json(fee), status=status.HTTP_201_CREATED)


class ReturnSerializer(serializers.Serializer):
    returned_on = serializers.DateField(required=False, label="data do retorno")


class LeaveReturnView(APIView):
    """POST /api/v1/leaves/{id}/return/ — the holder (or the clerk) records the return."""

    permission_classes = [CanFile]

    @extend_schema(request=ReturnSerializer)
    def post(self, request, pk: int):
        leave = LeaveOfAbsence.objects.select_related("authorization").filter(pk=pk).first()
        if leave is None or not (sel.is_desk(request.user) or leave.authorization.holder_id == request.user.pk):
            raise Http404("Afastamento não encontrado.")
        if not has_role(request.user, Role.APPLICANT, Role.CLERK, Role.ADMIN):
            raise PermissionDenied()
        serializer = ReturnSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        leave = svc.leave_record_return(actor=request.user, leave=leave,
                                        returned_on=serializer.validated_data.get("returned_on"))
        return Response({"id": leave.pk, "status": leave.status, "returned_on": leave.returned_on.isoformat()})


class BankReturnView(APIView):
    """POST /api/v1/fees/bank-return/ (multipart ``file``) — record the payments of a bank return file."""

    permission_classes = [IsClerk]

    def post(self, request):
        upload = request.FILES.get("file")
        if upload is None:
            return Response({"errors": {"file": ["Envie o arquivo de retorno no campo file."]}}, status=400)
        return Response(svc.fees_import_bank_return(actor=request.user, content=upload.read()))
