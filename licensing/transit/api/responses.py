"""Success shapes of the transit API for the OpenAPI schema (the *_json helpers of
licensing.transit.api.serializers). Members only staff, or only a detail, see are not required."""

from __future__ import annotations

from rest_framework import serializers

from portal.schema import day, free, integer, moment, money, page, shape, text, texts

_REPRESENTATIVE = shape("LegalRepresentative", required=False, name=text(), cpf=text(), role=text())
_EXTINCTION = shape("ConcessionExtinction", null=True, cause=text(), act=text(), on=day(null=True))
_LINE_CONCESSION = shape("LineConcession", id=integer(), number=text(), status=text(), category=text())


def _company_fields() -> dict:
    return dict(
        id=integer(), legal_name=text(), trade_name=text(), cnpj=text(),
        registry_number=text(required=False), municipal_registration=text(required=False),
        address=text(required=False), email=text(required=False), phone=text(required=False),
        legal_representative=_REPRESENTATIVE,
    )


_COMPANY = shape("Concessionaire", null=True, **_company_fields())
_FARE_FIELDS = dict(id=integer(), zone=text(), amount=money(), decree=text(), announced_on=day(null=True),
                    effective_from=day(null=True), legal_basis=text())
_FARES_IN_FORCE = serializers.DictField(child=shape("FareInForce", **_FARE_FIELDS), help_text="zona → tarifa")
_SEGMENTS = shape("ItinerarySegment", many=True, order=integer(), origin=text(), destination=text(),
                  length_km=text(help_text="km com três casas"), zone=text())
_ITINERARY_FIELDS = dict(
    id=integer(), version=integer(), status=text(), total_km=text(), changed_km=text(), change_ratio=text(),
    amendment_reference=text(), announced_on=day(null=True), effective_from=day(null=True), reason=text(),
    stops=texts(), segments=_SEGMENTS, schedule=free(null=True, help_text="horários por tipo de dia"),
)
_BUS_FIELDS = dict(id=integer(), plate=text(), category=text(), seated=integer(null=True),
                   standing=integer(null=True), make=text(), model=text(), manufacture_year=integer(null=True),
                   status=text())
_DEADLINES = free(help_text="prazo → {label, date, legal_basis}")
_INTERVENTION_FIELDS = dict(
    id=integer(), decree=text(), declared_on=day(null=True), interventor=text(), term_days=integer(null=True),
    objectives=text(), grounds=texts(help_text="motivos (códigos do pacote)"), status=text(),
    procedure_reference=text(), procedure_opened_on=day(null=True),
    concluded_on=day(null=True), conclusion=text(), deadlines=_DEADLINES,
)
_DEFAULT_FIELDS = dict(
    id=integer(), grounds=texts(help_text="fundamentos (códigos do pacote)"), details=text(),
    notified_on=day(null=True), cure_days=integer(null=True),
    cure_deadline=day(null=True), status=text(), opened_on=day(null=True), process_reference=text(),
    concluded_on=day(null=True), decision=text(),
)


def _line_fields() -> dict:
    return dict(
        id=integer(), code=text(), name=text(), operator=_COMPANY,
        concession=_LINE_CONCESSION, fares_in_force=_FARES_IN_FORCE,
    )


def _concession_fields() -> dict:
    return dict(
        id=integer(), number=text(), object=text(), category=text(), status=text(), status_label=text(),
        bidding_reference=text(), bidding_closed_on=day(null=True), concessionaire=_COMPANY,
        contract_number=text(), contract_signed_on=day(null=True), service_started_on=day(null=True),
        term_start=day(null=True), term_end=day(null=True), renewals=integer(),
        extinction=_EXTINCTION,
    )


def _complaint_fields() -> dict:
    return dict(id=integer(), protocol=text(), line=text(), status=text(), created_at=moment(), answer=text(),
                answered_at=moment(null=True), name=text(required=False), contact=text(required=False),
                text=text(required=False), occurred_on=day(required=False, null=True))


CONCESSIONAIRE = shape("ConcessionaireDetail", **_company_fields())
CONCESSIONAIRE_PAGE = page("ConcessionaireItem", **_company_fields())
CONCESSION_PAGE = page("ConcessionSummary", **_concession_fields())
CONCESSION = shape(
    "ConcessionDetail", **_concession_fields(), deadlines=_DEADLINES,
    classified=shape("ClassifiedBidder", many=True, position=integer(), company=_COMPANY, status=text(),
                     called_on=day(null=True)),
    clauses=shape("ConcessionClause", many=True, code=text(), label=text(), legal_basis=text(),
                  present=serializers.BooleanField()),
    lines=shape("ConcessionLine", many=True, id=integer(), code=text(), name=text()),
    buses=shape("ConcessionBus", many=True, **_BUS_FIELDS),
    interventions=shape("ConcessionIntervention", many=True, **_INTERVENTION_FIELDS),
    defaults=shape("ConcessionDefault", many=True, **_DEFAULT_FIELDS),
)
LINE_PAGE = page("BusLineSummary", **_line_fields())
LINE = shape(
    "BusLineDetail", **_line_fields(), itinerary=shape("ItineraryInForce", null=True, **_ITINERARY_FIELDS),
    upcoming_itineraries=shape("UpcomingItinerary", many=True, **_ITINERARY_FIELDS),
    upcoming_fares=shape("UpcomingFare", many=True, **_FARE_FIELDS),
)
LINE_FARE = shape(
    "LineFare", line=shape("LineRef", id=integer(), code=text(), name=text()), zone=text(),
    student=serializers.BooleanField(), at=day(), full_fare=money(), amount=money(), currency=text(),
    student_discount=money(null=True), fare=shape("LineFareDecree", decree=text(), announced_on=day(null=True),
                                                  effective_from=day(null=True)),
    legal_basis=text(),
)
COMPLAINT_FILED = shape("ComplaintFiled", protocol=text(), status=text(), id=integer())
COMPLAINT = shape("Complaint", **_complaint_fields())
COMPLAINT_PAGE = page("ComplaintItem", **_complaint_fields())
BUS = shape("Bus", **_BUS_FIELDS)
INTERVENTION = shape("Intervention", **_INTERVENTION_FIELDS)
DEFAULT = shape("DefaultProceeding", **_DEFAULT_FIELDS)
FARE = shape("BusFare", **_FARE_FIELDS)
ITINERARY = shape("Itinerary", **_ITINERARY_FIELDS)
