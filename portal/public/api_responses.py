"""Success shapes of the public API for the OpenAPI schema."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse

from portal.schema import day, flag, integer, page, shape, text, texts

QUOTAS = shape(
    "Quota", many=True, modality=text(), modality_label=text(), population=integer(), population_source=text(),
    population_year=integer(null=True), inhabitants_per_slot=integer(null=True), fixed_slots=integer(null=True),
    slots=integer(null=True), active=integer(), available=integer(null=True), legal_basis=text(), is_example=flag(),
)
VERIFICATION = shape(
    "Verification", valid=flag(), status=text(), status_label=text(), document=text(), kind=text(), number=text(),
    plate=text(), modality=text(), valid_until=day(null=True), holder=text(help_text="só o nome; nunca o CPF"),
    driver=text(required=False, null=True), suspended_until=day(required=False),
    vehicle=shape("VerifiedVehicle", required=False, null=True, make=text(), model=text(), color=text()),
    drivers=texts(required=False),
    superseded_by=shape("SupersedingDocument", required=False, null=True, document=text(), number=text(), code=text()),
    sha256=text(required=False, null=True, help_text="SHA-256 do PDF emitido"),
)
NOT_VERIFIED = OpenApiResponse(shape("NotVerified", valid=flag()), description='Código desconhecido: {"valid": false}.')
_OPEN_DATA = dict(number=text(), act=text(), modality=text(), holder=text(), holder_name=text(), plate=text(),
                  valid_from=day(), valid_until=day(), status=text(), stand=text())
OPEN_DATA = {
    (200, "application/json"): page("OpenDataGrant", **_OPEN_DATA),
    (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="As mesmas outorgas em CSV (UTF-8 com BOM)."),
}
