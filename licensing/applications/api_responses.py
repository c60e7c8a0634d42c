"""Success shapes of the applications API for the OpenAPI schema (the dicts of
licensing.applications.api). Fields only the applicant and clerks see are not required (an agent
gets what the vistoria needs)."""

from __future__ import annotations

from rest_framework import serializers

from portal.schema import day, flag, free, integer, moment, money, page, shape, text


def _required_document():
    return shape("RequiredDocument", many=True, code=text(), label=text(), legal_basis=text())


# Nested shapes built once: a component is one class, reused wherever it appears.
_CHECKLIST_ITEMS = shape("ChecklistItem", many=True, code=text(), label=text(), legal_basis=text())
_INSPECTION_RESULT = shape("InspectionResult", null=True, approved=flag(null=True), checklist=free(), notes=text(),
                           recorded_at=moment(null=True), recorded_by=text(null=True))
_INSPECTION_VEHICLE = shape("InspectionVehicle", null=True, plate=text(), make=text(), model=text(), color=text(),
                            manufacture_year=integer())
_TFF_FEE = shape("ApplicationTffFee", null=True, id=integer(), number=text(), amount=money(), due_date=day(),
                 status=text(), paid_on=day(null=True), dam_pdf=text())


def _inspection_fields() -> dict:
    return dict(
        application=integer(), scheduled_for=moment(null=True), agent=integer(null=True), agent_name=text(null=True),
        checklist_items=_CHECKLIST_ITEMS, result=_INSPECTION_RESULT, vehicle=_INSPECTION_VEHICLE,
    )


def _grant_brief(component: str, null: bool = False, required: bool = True, holder: bool = False):
    extra = dict(holder_type=text(), company_name=text(null=True), cnpj=text(null=True)) if holder else {}
    return shape(component, null=null, required=required, id=integer(), number=text(), valid_until=day(),
                 verification_code=text(), **extra)


def _tff(component: str = "ApplicationTff", null: bool = True, required: bool = True):
    return shape(
        component, null=null, required=required, year=integer(), units=money(), legal_basis=text(), amount=money(null=True),
        receipt_document=text(null=True), settled=flag(), receipt_waived=flag(), fee=_TFF_FEE,
    )


def _document(component: str):
    return shape(component, many=True, required=False, id=integer(), type=text(), status=text(), reason=text(),
                 uploaded_at=moment(null=True), reviewed_at=moment(null=True), mime=text(), size=integer(),
                 superseded_by=integer(null=True), valid_until=day(null=True),
                 carried_from=shape(f"{component}Origin", null=True, document=integer(), application=integer(),
                                    protocol=text(null=True)))  # a still-valid document reused by a renewal


APPLICATION_PAGE = page("ApplicationSummary", id=integer(), protocol=text(null=True), kind=text(), modality=text(),
                        status=text(), plate=text(null=True), created_at=moment(), submitted_at=moment(null=True))
APPLICATION_CREATED = shape("ApplicationCreated", id=integer(), status=text(), required_documents=_required_document())
APPLICATION_DETAIL = shape(
    "ApplicationDetail",
    id=integer(), kind=text(), modality=text(), holder_type=text(), company_name=text(null=True),
    cnpj=text(null=True), status=text(), status_label=text(), protocol=text(null=True),
    created_at=moment(null=True), submitted_at=moment(null=True), decided_at=moment(null=True),
    decision_reason=text(),
    vehicle=shape("ApplicationVehicle", null=True, plate=text(), renavam=text(), make=text(), model=text(),
                  color=text(), manufacture_year=integer(), first_registration_date=day(null=True),
                  doors=integer(null=True), seats=integer(null=True), engine_cc=integer(null=True)),
    inspection=shape("ApplicationInspection", **_inspection_fields()),
    applicant=shape("ApplicationApplicant", required=False, id=integer(), name=text()),
    driver=shape("ApplicationDriver", required=False, cnh_number=text(), cnh_category=text(),
                 cnh_first_issued=day(null=True), cnh_ear=flag(), cnh_points=integer(null=True)),
    schooling=integer(null=True, required=False), dependents=integer(null=True, required=False),
    bid_amount=money(null=True, required=False),
    auxiliary_drivers=shape("ApplicationAuxiliaryDriver", many=True, required=False, position=integer(), cpf=text(),
                            name=text(), cnh_category=text(), cnh_first_issued=day(null=True), cnh_ear=flag()),
    required_documents=shape("RequiredDocumentItem", many=True, required=False, code=text(), label=text(),
                             legal_basis=text()),
    documents=_document("ApplicationDocument"),
    previous_documents=_document("ApplicationPreviousDocument"),
    requirements=shape("ApplicationRequirement", many=True, required=False, id=integer(), text=text(),
                       document_type=text(), due_date=day(null=True), created_at=moment(null=True),
                       answered_at=moment(null=True)),
    authorization=_grant_brief("ApplicationAuthorization", null=True, required=False, holder=True),
    tff=_tff(required=False),
    history=shape("ApplicationHistoryEntry", many=True, required=False, at=moment(null=True), action=text(),
                  reason=text(), by=text(null=True), **{"from": text(), "to": text()}),
)
DOCUMENT_UPLOADED = shape("DocumentUploaded", id=integer(), type=text(), status=text())
SUBMITTED = shape("ApplicationSubmitted", id=integer(), status=text(), protocol=text())
TFF = _tff("ApplicationTffIssued", null=False)
STATUS = shape("ApplicationStatus", id=integer(), status=text())
REVIEWED = shape("DocumentReviewed", id=integer(), type=text(), status=text(), reason=text())
ACCEPTED = shape("DocumentsAccepted", accepted=shape("AcceptedDocument", many=True, id=integer(), type=text(),
                                                       status=text()))
REQUIREMENT = shape("RequirementRaised", id=integer(), status=text())
INSPECTION = shape("InspectionPayload", **_inspection_fields())
INSPECTION_SCHEDULED = shape("InspectionScheduled", id=integer(), **_inspection_fields())
APPROVED = shape(
    "ApplicationApproved", status=text(), authorization=_grant_brief("ApprovedAuthorization", holder=True),
    alvara=_grant_brief("ApprovedAlvara", null=True),
    alvaras=shape("ApprovedAlvaraItem", many=True, id=integer(), number=text(), valid_until=day(),
                  verification_code=text(), person=text(), auxiliary=flag()),
)
REJECTED = shape("ApplicationRejected", id=integer(), status=text(), reason=text())

# request bodies read by hand in the views
DOCUMENT_UPLOAD = shape("DocumentUpload", type=text(help_text="o código do item da lista de documentos"),
                        file=serializers.FileField(help_text="PDF, JPEG ou PNG"))
WITHDRAW = shape("ApplicationWithdraw", reason=text(required=False, allow_blank=True, max_length=500))
