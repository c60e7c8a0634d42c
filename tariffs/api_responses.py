"""Success shapes of the fares API for the OpenAPI schema (tariffs.selectors.tariff_api, Quote.as_api)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse

from portal.schema import (
    ErrorSerializer,
    day,
    flag,
    moment,
    money,
    shape,
    text,
    texts,
)

_STR, _DAY = {"type": "string"}, {"type": "string", "format": "date"}
_TARIFF_OBJECT = {
    "type": "object",
    "required": ["modality", "decree", "published_on", "effective_from", "structure", "components", "legal_basis",
                 "is_example"],
    "properties": {
        "modality": _STR, "decree": _STR, "published_on": _DAY, "effective_from": _DAY,
        "structure": {"type": "string", "description": "forma da tabela (bandeiras, quilômetro, zona, linha)"},
        "components": {"type": "object", "additionalProperties": {}, "description": "os valores, por componente"},
        "legal_basis": _STR, "is_example": {"type": "boolean"}, "adjustment_month": {"type": "integer", "nullable": True},
    },
}
# with ?modality= (or ?line=) one tariff; without it, the tariff in force of every modality
TARIFFS = OpenApiResponse({"oneOf": [_TARIFF_OBJECT, {"type": "array", "items": _TARIFF_OBJECT}]},
                          description="A tarifa em vigor; sem `modality`, a lista das tarifas de cada serviço.")
QUOTE = shape(
    "FareQuote", total=money(), currency=text(), components=shape("FareComponent", many=True, label=text(), amount=money()),
    tariff=shape("FareQuoteTariff", decree=text(), effective_from=day(), published_on=day(), structure=text(),
                 is_example=flag()),
    legal_basis=text(), modality=text(), at=moment(), km=text(required=False), flag=text(required=False, null=True),
    is_maximum=flag(required=False), notes=texts(required=False),
)
NO_TARIFF = OpenApiResponse(ErrorSerializer, description="Não há tarifa (ou linha) em vigor na data pedida.")
CONFLICT = OpenApiResponse(ErrorSerializer, description="O cálculo recusado por uma regra da tabela: `errors` e `rule`.")
