"""Success shapes of the requests, fees and stands APIs for the OpenAPI schema."""

from __future__ import annotations

from rest_framework import serializers

from portal.schema import day, flag, free, integer, moment, money, page, shape, text, texts

_AUTH_REF = shape("AuthorizationRef", id=integer(), number=text())
_REQUEST_INSPECTION = shape("RequestInspection", null=True, approved=flag(null=True), checklist=free(null=True),
                            notes=text(), at=moment(null=True))
_HISTORY = shape("RequestHistoryEntry", many=True, required=False, at=moment(), action=text(), reason=text(),
                 actor=text(), **{"from": text(), "to": text()})


def _request_fields() -> dict:
    return dict(
        id=integer(), protocol=text(), authorization=_AUTH_REF, kind=text(), kind_label=text(), status=text(),
        data=free(help_text="o que o tipo de pedido pede"), filed_on=day(), filed_at=moment(), legal_basis=text(),
        late=flag(), late_note=text(), inspection=_REQUEST_INSPECTION, decided_at=moment(null=True),
        decision_reason=text(), result=free(null=True),
    )


REQUEST = shape("LifecycleRequest", **_request_fields())
REQUESTS = shape("LifecycleRequestItem", many=True, **_request_fields())
REQUEST_PAGE = page("LifecycleRequestSummary", **_request_fields())
REQUEST_DETAIL = shape("LifecycleRequestDetail", **_request_fields(), history=_HISTORY)
LEAVE_RETURNED = shape("LeaveReturned", id=integer(), status=text(), returned_on=day())


_FEE_AUTH = shape("FeeAuthorization", null=True, id=integer(), number=text())
_STAND_VEHICLES = shape("StandVehicle", many=True, holder=text(), plate=text(null=True))


def _fee_fields() -> dict:
    return dict(
        id=integer(), number=text(), kind=text(), description=text(),
        authorization=_FEE_AUTH, holder=text(),
        reference_year=integer(null=True), units=money(null=True), unit_name=text(), unit_value=money(null=True),
        amount=money(null=True), legal_basis=text(), due_date=day(), status=text(), paid_on=day(null=True),
        payment_reference=text(),
    )


FEE = shape("Fee", **_fee_fields())
FEE_PAGE = page("FeeSummary", **_fee_fields())
FEE_DETAIL = shape("FeeDetail", **_fee_fields(), pix=text(null=True), pix_payload=text(null=True),
                   barcode=text(null=True, help_text="44 dígitos, arrecadação FEBRABAN"),
                   digitable_line=text(null=True, help_text="48 dígitos"), barcode_is_example=flag())
BANK_RETURN = shape("BankReturnImported", paid=texts(help_text="números dos DAM baixados"),
                    errors=shape("BankReturnError", many=True, line=integer(), error=text()))
BANK_RETURN_UPLOAD = shape("BankReturnUpload", file=serializers.FileField(help_text="arquivo de retorno do banco"))


def _stand_fields() -> dict:
    return dict(
        id=integer(), name=text(), location=text(), capacity=integer(), modality=text(null=True),
        occupied=integer(), waiting=integer(), available=integer(),
        vehicles=_STAND_VEHICLES,
    )


STAND = shape("Stand", **_stand_fields())
STANDS = shape("StandItem", many=True, **_stand_fields())
_ASSIGNMENT = dict(id=integer(), stand=integer(), authorization=integer(), status=text(), registered_on=day(),
                   vehicle_year=integer(null=True))
ASSIGNMENT = shape("StandAssignment", **_ASSIGNMENT)
SWAPPED = shape("StandSwap", assignments=shape("StandAssignmentItem", many=True, **_ASSIGNMENT))
CAPACITY = shape("StandCapacityChanged", capacity=integer(),
                 moved_out=serializers.ListField(child=serializers.IntegerField(), help_text="designações retiradas"),
                 moved_in=serializers.ListField(child=serializers.IntegerField(), help_text="designações da fila"),
                 stand=shape("StandAfterChange", **_stand_fields()))
