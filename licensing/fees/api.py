"""API v1 of fees."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from licensing.fees import selectors as sel
from licensing.fees import services as svc
from licensing.fees.models import Fee, PaymentImport
from licensing.grants import selectors as grants_selectors
from licensing.grants.models import Authorization
from licensing.requests import api_responses as R
from licensing.requests.api import Pagination, SeesFees, _money
from portal.api import IsClerk
from portal.schema import pdf


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


class FeeListView(APIView):
    """GET /api/v1/fees/ — the clerk sees all (filters status, kind, q); a holder their own."""

    permission_classes = [SeesFees]

    @extend_schema(parameters=[OpenApiParameter("status", str), OpenApiParameter("kind", str), OpenApiParameter("q", str), OpenApiParameter("page", int)], responses=R.FEE_PAGE)
    def get(self, request):
        if grants_selectors.is_desk(request.user):
            qs = sel.fees_for_desk(status=request.query_params.get("status", ""),
                                   kind=request.query_params.get("kind", ""), q=request.query_params.get("q", ""))
        else:
            qs = sel.fees_visible_to(request.user).order_by("-issued_at", "-id")
        paginator = Pagination()
        page = paginator.paginate_queryset(qs, request, view=self)
        return paginator.get_paginated_response([fee_json(f) for f in page])


class FeeDetailView(APIView):
    permission_classes = [SeesFees]

    @extend_schema(responses=R.FEE_DETAIL)
    def get(self, request, pk: int):
        from licensing.fees.documents import fee_barcode, fee_pix

        fee = sel.fee_for(request.user, pk)
        pix = fee_pix(fee)
        bar = fee_barcode(fee)
        return Response({**fee_json(fee), "pix": pix.get("payload"), "pix_payload": pix.get("payload"),
                         "barcode": bar.get("barcode"), "digitable_line": bar.get("digitable_line"),
                         "barcode_is_example": bar.get("is_example", False)})


class PaySerializer(serializers.Serializer):
    paid_on = serializers.DateField(required=False, label="data do pagamento")
    reference = serializers.CharField(required=False, allow_blank=True, max_length=80, label="referência")


class FeePayView(APIView):
    """POST /api/v1/fees/{id}/pay/ {"paid_on", "reference"} — the clerk records the payment."""

    permission_classes = [IsClerk]

    @extend_schema(request=PaySerializer, responses=R.FEE)
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

    @extend_schema(responses=pdf("O DAM em PDF, com código de barras e Pix."))
    def get(self, request, pk: int):
        from licensing.fees.documents import render_dam

        fee = sel.fee_for(request.user, pk)
        response = HttpResponse(render_dam(fee), content_type="application/pdf")
        response["Content-Disposition"] = f'inline; filename="dam-{fee.number.replace("/", "-")}.pdf"'
        return response


class TffSerializer(serializers.Serializer):
    year = serializers.IntegerField(required=False, min_value=2000, max_value=2100, label="exercício")


class TffIssueView(APIView):
    """POST /api/v1/authorizations/{id}/fees/tff/ — issue the grant's TFF for a year."""

    permission_classes = [IsClerk]

    @extend_schema(request=TffSerializer, responses={201: R.FEE})
    def post(self, request, pk: int):
        auth = get_object_or_404(Authorization.objects.select_related("holder"), pk=pk)
        serializer = TffSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        fee = svc.tff_issue(actor=request.user, authorization=auth, year=serializer.validated_data.get("year"))
        return Response(fee_json(fee), status=status.HTTP_201_CREATED)


class BankReturnView(APIView):
    """POST /api/v1/fees/bank-return/ (multipart ``file``) — import a FEBRABAN collection return
    file or a Pix statement; the report of each line (201 new, 200 when the file was imported before)."""

    permission_classes = [IsClerk]

    @extend_schema(request={"multipart/form-data": R.BANK_RETURN_UPLOAD}, responses=R.BANK_RETURN)
    def post(self, request):
        from licensing.fees import reconciliation

        upload = request.FILES.get("file")
        if upload is None:
            return Response({"errors": {"file": ["Envie o arquivo do banco no campo file."]}}, status=400)
        imp, new = reconciliation.payments_import(actor=request.user, content=upload.read(), file_name=upload.name)
        return Response(reconciliation.import_report(imp, new=new), status=201 if new else 200)


class PaymentImportView(APIView):
    """GET /api/v1/fees/imports/{id}/ — the report of an import."""

    permission_classes = [IsClerk]

    def get(self, request, pk: int):
        from licensing.fees import reconciliation

        return Response(reconciliation.import_report(get_object_or_404(PaymentImport, pk=pk)))
