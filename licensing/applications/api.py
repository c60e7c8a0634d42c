"""API v1 for applications, reviews, inspections and decisions (API.md), with the JSON shapes
of applications and inspections."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from fleet.forms import CNH_NUMBER_INPUT_MAX
from licensing.applications import api_responses as R
from licensing.applications import review as applications_review
from licensing.applications import selectors as applications_selectors
from licensing.applications import services
from licensing.applications.models import Application, ApplicationKind, Inspection
from licensing.applications.selectors import applications_visible_to
from licensing.grants.models import HolderType, Modality
from portal import regulation
from portal.api import flatten_errors, request_object, role_permission
from portal.audit import history_for
from portal.roles import Role, has_role, staff_users
from portal.validators import (
    CNH_NUMBER_MESSAGE,
    normalize_cnh_number,
    normalize_plate,
    only_digits,
    validate_plate,
    validate_renavam,
)

IsClerk = role_permission(Role.CLERK, Role.ADMIN)
IsAgentOrClerk = role_permission(Role.CLERK, Role.ADMIN, Role.AGENT)
IsAgent = role_permission(Role.AGENT)
IsApplicant = role_permission(Role.APPLICANT)
CanSeeApplications = role_permission(Role.APPLICANT, Role.CLERK, Role.ADMIN, Role.AGENT)


def validated(serializer_class, data):
    serializer = serializer_class(data=data)
    if not serializer.is_valid():
        raise DjangoValidationError(flatten_errors(serializer.errors))
    return serializer.validated_data


# --- input serializers ---------------------------------------------------------------------------------


class VehicleIn(serializers.Serializer):
    plate = serializers.CharField(label="placa", max_length=10)
    renavam = serializers.CharField(label="RENAVAM", max_length=15)
    make = serializers.CharField(label="marca", max_length=60)
    model = serializers.CharField(label="modelo", max_length=80)
    color = serializers.CharField(label="cor", max_length=40)
    manufacture_year = serializers.IntegerField(label="ano de fabricação", min_value=1950, max_value=2100)
    first_registration_date = serializers.DateField(label="data do primeiro licenciamento", required=False,
                                                    allow_null=True)
    doors = serializers.IntegerField(label="portas", min_value=0, max_value=10, required=False, allow_null=True)
    seats = serializers.IntegerField(label="lugares", min_value=1, max_value=60, required=False, allow_null=True)
    engine_cc = serializers.IntegerField(label="cilindrada", min_value=0, max_value=20000, required=False,
                                         allow_null=True)
    registration_category = serializers.CharField(label="categoria no CRLV", max_length=30, required=False,
                                                  allow_blank=True)

    def validate_plate(self, value):
        try:
            validate_plate(value)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.messages) from exc
        return normalize_plate(value)

    def validate_renavam(self, value):
        try:
            validate_renavam(value)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.messages) from exc
        return only_digits(value)


def _cnh_number(value: str) -> str:
    """The same rule as the forms' (fleet.forms.cnh_fields): 11 digits, punctuation dropped."""
    try:
        digits = normalize_cnh_number(value)
    except DjangoValidationError as exc:
        raise serializers.ValidationError(exc.messages) from exc
    if not digits:
        raise serializers.ValidationError(CNH_NUMBER_MESSAGE)
    return digits


class DriverIn(serializers.Serializer):
    cnh_number = serializers.CharField(label="número da CNH", max_length=CNH_NUMBER_INPUT_MAX)
    cnh_category = serializers.CharField(label="categoria da CNH", max_length=5)
    cnh_first_issued = serializers.DateField(label="primeira habilitação")
    cnh_ear = serializers.BooleanField(label="CNH com EAR", default=False)
    cnh_points = serializers.IntegerField(label="pontos na CNH", min_value=0, max_value=100, required=False,
                                          allow_null=True)

    def validate_cnh_number(self, value):
        return _cnh_number(value)


class AuxiliaryIn(DriverIn):
    cpf = serializers.CharField(label="CPF", max_length=20)
    name = serializers.CharField(label="nome", max_length=200)
    birth_date = serializers.DateField(label="data de nascimento", required=False, allow_null=True)


class ApplicationIn(serializers.Serializer):
    kind = serializers.ChoiceField(label="tipo", choices=ApplicationKind.choices, default=ApplicationKind.NEW)
    modality = serializers.ChoiceField(label="modalidade", choices=Modality.choices)
    vehicle = VehicleIn()
    driver = DriverIn()
    auxiliary_drivers = AuxiliaryIn(many=True, required=False, default=list)
    bid_amount = serializers.DecimalField(label="oferta", max_digits=12, decimal_places=2, min_value=0,
                                          required=False, allow_null=True)
    schooling = serializers.IntegerField(label="escolaridade", min_value=0, max_value=7, required=False,
                                         allow_null=True)
    dependents = serializers.IntegerField(label="dependentes", min_value=0, max_value=30, required=False,
                                          allow_null=True)
    # a company applies only where the pack's grant.holder_types admits "pj" (judged by the service)
    holder_type = serializers.ChoiceField(label="tipo de titular", choices=HolderType.choices, default=HolderType.PF)
    company_name = serializers.CharField(label="razão social", max_length=200, required=False, allow_blank=True,
                                         allow_null=True)
    cnpj = serializers.CharField(label="CNPJ", max_length=18, required=False, allow_blank=True, allow_null=True)


class ReviewIn(serializers.Serializer):
    accepted = serializers.BooleanField(label="aceito")
    reason = serializers.CharField(label="motivo", required=False, allow_blank=True, max_length=2000)
    valid_until = serializers.DateField(label="válido até", required=False, allow_null=True, default=None)


@extend_schema_serializer(component_name="InspectionScheduleIn")  # transit has a ScheduleIn of its own
class ScheduleIn(serializers.Serializer):
    scheduled_for = serializers.DateTimeField(label="data e hora")
    agent = serializers.CharField(label="agente", max_length=150)
    location = serializers.CharField(label="local", max_length=200, required=False, allow_blank=True)


class ResultIn(serializers.Serializer):
    approved = serializers.BooleanField(label="aprovada")
    checklist = serializers.DictField(label="itens", child=serializers.BooleanField(), required=False, default=dict)
    notes = serializers.CharField(label="observações", required=False, allow_blank=True, max_length=4000)


class RejectIn(serializers.Serializer):
    reason = serializers.CharField(label="motivo", max_length=4000)


class RequirementIn(serializers.Serializer):
    text = serializers.CharField(label="exigência", max_length=4000)
    document_type = serializers.CharField(label="item de documento", max_length=80, required=False, allow_blank=True)
    due_date = serializers.DateField(label="prazo", required=False, allow_null=True)


def _agent_user(value: str):
    query = staff_users(Role.AGENT)  # the agents of this municipality
    if str(value).isdigit():
        found = query.filter(pk=int(value)).first()
        if found:
            return found
    found = query.filter(username=value).first() or query.filter(registration_number=value).first()
    if found is None:
        raise DjangoValidationError({"agent": ["Agente de fiscalização não encontrado."]})
    return found


# --- views ---------------------------------------------------------------------------------------------


def _visible(request, pk: int) -> Application:
    return get_object_or_404(applications_visible_to(request.user), pk=pk)


class ApplicationCreateView(APIView):
    """POST /api/v1/applications/ — a draft application, judged against every entry rule.
    GET — the applications the caller may see (own; all for clerks; inspected ones for agents), paginated."""

    def get_permissions(self):
        return [IsApplicant()] if self.request.method == "POST" else [CanSeeApplications()]

    @extend_schema(parameters=[OpenApiParameter("status", str), OpenApiParameter("page", int)], responses=R.APPLICATION_PAGE)
    def get(self, request):
        from rest_framework.pagination import PageNumberPagination

        qs = applications_visible_to(request.user).select_related("vehicle").order_by("-created_at", "-id")
        if request.query_params.get("status"):
            qs = qs.filter(status=request.query_params["status"])
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(qs, request, view=self)
        return paginator.get_paginated_response([
            {"id": a.pk, "protocol": a.protocol, "kind": a.kind, "modality": a.modality, "status": a.status,
             "plate": a.vehicle.plate if a.vehicle else None, "created_at": a.created_at.isoformat(),
             "submitted_at": a.submitted_at.isoformat() if a.submitted_at else None} for a in page])

    @extend_schema(request=ApplicationIn, responses={201: R.APPLICATION_CREATED})
    def post(self, request):
        data = validated(ApplicationIn, request.data)
        application = services.application_create(
            actor=request.user, applicant=request.user, kind=data["kind"], modality=data["modality"],
            vehicle=dict(data["vehicle"]), driver=dict(data["driver"]),
            auxiliaries=[dict(a) for a in data.get("auxiliary_drivers", [])], bid_amount=data.get("bid_amount"),
            extra={"schooling": data.get("schooling"), "dependents": data.get("dependents"),
                   "cnh_points": data["driver"].get("cnh_points")},
            holder={"holder_type": data["holder_type"], "company_name": data.get("company_name"),
                    "cnpj": data.get("cnpj")},
        )
        return Response({"id": application.pk, "status": application.status,
                         "required_documents": [d.as_dict() for d in applications_selectors.required_documents(application)]},
                        status=status.HTTP_201_CREATED)


class ApplicationDetailView(APIView):
    """GET /api/v1/applications/{id}/ — status, protocol, documents with their review, history."""

    permission_classes = [CanSeeApplications]

    @extend_schema(responses=R.APPLICATION_DETAIL)
    def get(self, request, pk: int):
        application = _visible(request, pk)
        return Response(application_detail(application, request.user))


class DocumentUploadView(APIView):
    """POST /api/v1/applications/{id}/documents/ (multipart type, file)."""

    permission_classes = [IsApplicant]
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(request={"multipart/form-data": R.DOCUMENT_UPLOAD}, responses={201: R.DOCUMENT_UPLOADED})
    def post(self, request, pk: int):
        application = get_object_or_404(Application, pk=pk, applicant=request.user)
        errors = {}
        if not request.data.get("type"):
            errors["type"] = ["Informe o item (type) da lista de documentos exigidos."]
        upload = request.FILES.get("file")
        if upload is None:
            errors["file"] = ["Escolha o arquivo (PDF, JPEG ou PNG)."]
        if errors:
            raise DjangoValidationError(errors)
        document = services.document_upload(actor=request.user, application=application,
                                            doc_type=request.data["type"], file=upload)
        return Response({"id": document.pk, "type": document.type, "status": document.status},
                        status=status.HTTP_201_CREATED)


class SubmitView(APIView):
    permission_classes = [IsApplicant]

    @extend_schema(request=None, responses=R.SUBMITTED)
    def post(self, request, pk: int):
        application = get_object_or_404(Application, pk=pk, applicant=request.user)
        application = services.application_submit(actor=request.user, application=application)
        return Response({"id": application.pk, "status": application.status, "protocol": application.protocol})


class TffView(APIView):
    """POST /api/v1/applications/{id}/tff/ — the applicant's DAM of the TFF of the year (201 when
    issued now, 200 with the one already issued). Only where the law sets a TFF."""

    permission_classes = [IsApplicant]

    @extend_schema(request=None, responses={200: R.TFF, 201: R.TFF})
    def post(self, request, pk: int):
        from licensing.fees.services import application_tff_issue

        application = get_object_or_404(Application, pk=pk, applicant=request.user)
        _fee, created = application_tff_issue(actor=request.user, application=application)
        application.refresh_from_db()
        return Response(application_tff_payload(application),
                        status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class WithdrawView(APIView):
    """POST /api/v1/applications/{id}/withdraw/ — the applicant's desistência."""

    permission_classes = [IsApplicant]

    @extend_schema(request=R.WITHDRAW, responses=R.STATUS)
    def post(self, request, pk: int):
        application = get_object_or_404(Application, pk=pk, applicant=request.user)
        application = services.application_withdraw(actor=request.user, application=application,
                                                     reason=str(request_object(request).get("reason", ""))[:500])
        return Response({"id": application.pk, "status": application.status})


class DocumentReviewView(APIView):
    permission_classes = [IsClerk]

    @extend_schema(request=ReviewIn, responses=R.REVIEWED)
    def post(self, request, pk: int, doc_id: int):
        application = get_object_or_404(Application, pk=pk)
        document = get_object_or_404(application.documents, pk=doc_id)
        data = validated(ReviewIn, request.data)
        document = applications_review.document_review(actor=request.user, document=document, accepted=data["accepted"],
                                            reason=data.get("reason", ""), valid_until=data.get("valid_until"))
        return Response({"id": document.pk, "type": document.type, "status": document.status,
                         "reason": document.reason})


class AcceptManyIn(serializers.Serializer):
    documents = serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=2**63 - 1),
                                      allow_empty=False, max_length=500)


class DocumentsAcceptView(APIView):
    """POST /api/v1/applications/{id}/documents/accept/ {"documents": [ids]} — accept the checked
    documents in one action (all or none)."""

    permission_classes = [IsClerk]

    @extend_schema(request=AcceptManyIn, responses=R.ACCEPTED)
    def post(self, request, pk: int):
        application = get_object_or_404(Application, pk=pk)
        data = validated(AcceptManyIn, request.data)
        accepted = applications_review.documents_accept(actor=request.user, application=application,
                                             document_ids=data["documents"])
        return Response({"accepted": [{"id": d.pk, "type": d.type, "status": d.status} for d in accepted]})


class RequirementView(APIView):
    permission_classes = [IsClerk]

    @extend_schema(request=RequirementIn, responses={201: R.REQUIREMENT})
    def post(self, request, pk: int):
        application = get_object_or_404(Application, pk=pk)
        data = validated(RequirementIn, request.data)
        req = applications_review.requirement_raise(actor=request.user, application=application, text=data["text"],
                                         document_type=data.get("document_type", ""), due_date=data.get("due_date"))
        return Response({"id": req.pk, "status": "requirement"}, status=status.HTTP_201_CREATED)


class InspectionView(APIView):
    """GET (clerk, agent) the scheduled vistoria and the pack's checklist; POST (clerk) schedule it."""

    def get_permissions(self):
        return [IsClerk()] if self.request.method == "POST" else [IsAgentOrClerk()]

    @extend_schema(responses=R.INSPECTION)
    def get(self, request, pk: int):
        application = _visible(request, pk)
        return Response(inspection_payload(application))

    @extend_schema(request=ScheduleIn, responses={201: R.INSPECTION_SCHEDULED})
    def post(self, request, pk: int):
        application = get_object_or_404(Application, pk=pk)
        data = validated(ScheduleIn, request.data)
        inspection = applications_review.inspection_schedule(actor=request.user, application=application,
                                                  scheduled_for=data["scheduled_for"], agent=_agent_user(data["agent"]),
                                                  location=data.get("location", ""))
        return Response({"id": inspection.pk, **inspection_payload(application)}, status=status.HTTP_201_CREATED)


class InspectionResultView(APIView):
    permission_classes = [IsAgent]

    @extend_schema(request=ResultIn, responses=R.INSPECTION)
    def post(self, request, pk: int):
        application = _visible(request, pk)
        inspection = application.inspections.filter(agent=request.user).order_by("-scheduled_for", "-id").first()
        if inspection is None:
            raise Http404
        data = validated(ResultIn, request.data)
        applications_review.inspection_record(actor=request.user, inspection=inspection, approved=data["approved"],
                                   checklist=data.get("checklist") or {}, notes=data.get("notes", ""))
        return Response(inspection_payload(application))


class ApproveView(APIView):
    permission_classes = [IsClerk]

    @extend_schema(request=None, responses=R.APPROVED)
    def post(self, request, pk: int):
        application = get_object_or_404(Application, pk=pk)
        authorization, alvaras = services.application_approve(actor=request.user, application=application)
        holder_alvara = next((a for a in alvaras if not a.is_auxiliary), None)

        def brief(obj):
            return {"id": obj.pk, "number": obj.number, "valid_until": obj.valid_until.isoformat(),
                    "verification_code": obj.verification_code}

        return Response({"status": "approved", "authorization": brief(authorization) | holder_fields(authorization),
                         "alvara": brief(holder_alvara) if holder_alvara else None,
                         "alvaras": [brief(a) | {"person": a.person.display_name, "auxiliary": a.is_auxiliary}
                                     for a in alvaras]})


class RejectView(APIView):
    permission_classes = [IsClerk]

    @extend_schema(request=RejectIn, responses=R.REJECTED)
    def post(self, request, pk: int):
        application = get_object_or_404(Application, pk=pk)
        data = validated(RejectIn, request.data)
        application = services.application_reject(actor=request.user, application=application, reason=data["reason"])
        return Response({"id": application.pk, "status": application.status, "reason": application.decision_reason})


def _iso(value):
    return value.isoformat() if value else None


def inspection_result(inspection: Inspection | None) -> dict | None:
    if inspection is None or not inspection.has_result:
        return None
    return {"approved": inspection.approved, "checklist": inspection.checklist, "notes": inspection.notes,
            "recorded_at": _iso(inspection.recorded_at),
            "recorded_by": inspection.recorded_by.display_name if inspection.recorded_by else None}


def inspection_payload(application: Application) -> dict:
    inspection = application.inspections.select_related("agent", "recorded_by").order_by("-scheduled_for", "-id").first()
    items = regulation.current().inspection_items(application.modality)
    return {
        "application": application.pk,
        "scheduled_for": _iso(timezone.localtime(inspection.scheduled_for)) if inspection else None,
        "location": inspection.location if inspection else "",
        "agent": inspection.agent_id if inspection else None,
        "agent_name": inspection.agent.display_name if inspection else None,
        "checklist_items": [{"code": i["code"], "label": i["label"], "legal_basis": i["legal_basis"]} for i in items],
        "result": inspection_result(inspection),
        "vehicle": {"plate": application.vehicle.display_plate, "make": application.vehicle.make,
                    "model": application.vehicle.model, "color": application.vehicle.color,
                    "manufacture_year": application.vehicle.manufacture_year} if application.vehicle else None,
    }


def holder_fields(obj) -> dict:
    """holder_type ("pf"/"pj"), company_name and cnpj (null for a natural person) of an
    application or a grant."""
    company = obj.holder_type == HolderType.PJ
    return {"holder_type": obj.holder_type, "company_name": obj.company_name if company else None,
            "cnpj": obj.cnpj if company else None}


def application_detail(application: Application, viewer) -> dict:
    from licensing.applications.selectors import required_documents

    v = application.vehicle
    data = {
        "id": application.pk,
        "kind": application.kind,
        "modality": application.modality,
        **holder_fields(application),
        "status": application.status,
        "status_label": application.get_status_display(),
        "protocol": application.protocol,
        "created_at": _iso(application.created_at),
        "submitted_at": _iso(application.submitted_at),
        "decided_at": _iso(application.decided_at),
        "decision_reason": application.decision_reason,
        "vehicle": {"plate": v.plate, "renavam": v.renavam, "make": v.make, "model": v.model, "color": v.color,
                    "manufacture_year": v.manufacture_year, "first_registration_date": _iso(v.first_registration_date),
                    "doors": v.doors, "seats": v.seats, "engine_cc": v.engine_cc} if v else None,
        "inspection": inspection_payload(application),
    }
    if has_role(viewer, Role.AGENT) and not has_role(viewer, Role.CLERK, Role.ADMIN) \
            and application.applicant_id != viewer.pk:
        return data  # agents: only what the vistoria needs
    docs = list(application.documents.select_related("auxiliary", "carried_from__application")
                .order_by("type", "-uploaded_at", "-id"))

    def doc(d):
        return {"id": d.pk, "type": d.type, "status": d.status, "reason": d.reason, "uploaded_at": _iso(d.uploaded_at),
                "reviewed_at": _iso(d.reviewed_at), "mime": d.mime, "size": d.size,
                "superseded_by": d.superseded_by_id, "valid_until": _iso(d.valid_until),
                "carried_from": {"document": d.carried_from_id, "application": d.carried_from.application_id,
                                 "protocol": d.carried_from.application.protocol} if d.carried_from_id else None}

    data.update({
        "applicant": {"id": application.applicant_id, "name": application.applicant.display_name},
        "driver": {"cnh_number": application.cnh_number, "cnh_category": application.cnh_category,
                   "cnh_first_issued": _iso(application.cnh_first_issued), "cnh_ear": application.cnh_ear,
                   "cnh_points": application.cnh_points},
        "schooling": application.schooling,
        "dependents": application.dependents,
        "bid_amount": f"{application.bid_amount:.2f}" if application.bid_amount is not None else None,
        "auxiliary_drivers": [{"position": a.position, "cpf": a.cpf, "name": a.name, "cnh_category": a.cnh_category,
                               "cnh_first_issued": _iso(a.cnh_first_issued), "cnh_ear": a.cnh_ear}
                              for a in application.auxiliaries.all()],
        "required_documents": [d.as_dict() for d in required_documents(application)],
        "documents": [doc(d) for d in docs if d.superseded_by_id is None],
        "previous_documents": [doc(d) for d in docs if d.superseded_by_id is not None],
        "requirements": [{"id": r.pk, "text": r.text, "document_type": r.document_type, "due_date": _iso(r.due_date),
                          "created_at": _iso(r.created_at), "answered_at": _iso(r.answered_at)}
                         for r in application.requirements.all()],
        "authorization": ({"id": application.authorization.pk, "number": application.authorization.number,
                           "valid_until": _iso(application.authorization.valid_until),
                           "verification_code": application.authorization.verification_code,
                           **holder_fields(application.authorization)}
                          if application.authorization else None),
        "tff": application_tff_payload(application),
        "history": [{"at": _iso(e.at), "action": e.action, "from": e.from_state, "to": e.to_state, "reason": e.reason,
                     "by": e.actor.display_name if e.actor else e.actor_label} for e in history_for(application)],
    })
    return data


def application_tff_payload(application: Application) -> dict | None:
    """The TFF of the application's year where the law sets one: the DAM (if issued) and
    whether it is settled for the grant (DAM paid, or receipt accepted by the clerk)."""
    from licensing.fees.services import application_tff

    tff = application_tff(application)
    if tff is None:
        return None
    fee = tff.fee
    return {
        "year": tff.year, "units": f"{tff.units.value:.2f}", "legal_basis": tff.legal_basis,
        "amount": f"{tff.amount:.2f}" if tff.amount is not None else None,
        "receipt_document": tff.receipt_code or None, "settled": tff.settlement.settled,
        "receipt_waived": tff.settlement.receipt_waived,
        "fee": {"id": fee.pk, "number": fee.number, "amount": f"{fee.amount:.2f}", "due_date": _iso(fee.due_date),
                "status": fee.status, "paid_on": _iso(fee.paid_on),
                "dam_pdf": f"/api/v1/fees/{fee.pk}/dam.pdf"} if fee else None,
    }
