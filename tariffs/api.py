"""Public fare API: the tariff in force and a fare quote (same rules as the /tarifas/ page)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions
from rest_framework.response import Response
from rest_framework.views import APIView

from portal import regulation
from portal.exceptions import RuleViolation
from portal.public.http import api_cache
from portal.refusals import refusal_response
from tariffs import api_responses as R
from tariffs import selectors
from tariffs.forms import QuoteForm
from tariffs.models import TariffModality


def _errors(form) -> dict:
    out: dict[str, list[str]] = {}
    for field, errors in form.errors.items():
        key = "non_field_errors" if field == "__all__" else field
        out.setdefault(key, []).extend(str(e) for e in errors)
    return out


class TariffsView(APIView):
    """GET /api/v1/fares/tariffs/?modality= — the tariff table in force (all modalities without it)."""

    authentication_classes: list = []
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        parameters=[
            OpenApiParameter("modality", OpenApiTypes.STR, enum=[m.value for m in TariffModality]),
            OpenApiParameter("at", OpenApiTypes.DATETIME, description="momento (padrão: agora)"),
            OpenApiParameter("line", OpenApiTypes.INT, description="ônibus: id da linha"),
        ],
        responses={200: R.TARIFFS, 404: R.NO_TARIFF},
    )
    def get(self, request):
        pack = regulation.current()
        tables = selectors.all_tables(pack)
        form = QuoteForm({"at": request.query_params.get("at", "")})
        if not form.is_valid() and "at" in form.errors:
            return Response({"errors": {"at": form.errors["at"]}}, status=400)
        moment = selectors.local_moment(pack, form.cleaned_data.get("at"))
        modality = request.query_params.get("modality")
        if request.query_params.get("line") not in (None, ""):
            return self.line_tariff(request.query_params, modality, moment.date())
        if modality is None:
            out = []
            for m in selectors.modalities_with_tables(tables):
                table = selectors.table_at(tables, m, moment.date())
                if table is not None:
                    out.append(selectors.tariff_api(pack, table))
            return api_cache(Response(out), 300)
        if modality not in TariffModality.values:
            return Response(
                {"errors": {"modality": ["Serviço inválido: use taxi, mototaxi ou bus."]}},
                status=400,
            )
        table = selectors.table_at(tables, modality, moment.date())
        if table is None:
            message = selectors.missing_table_message(pack, tables, modality, moment.date())
            return Response({"errors": {"modality": [message]}}, status=404)
        return api_cache(Response(selectors.tariff_api(pack, table)), 300)


    def line_tariff(self, params, modality, on):
        if modality not in (None, "", "bus"):
            return Response(
                {"errors": {"line": ["Linha só se aplica ao serviço de ônibus (modality=bus)."]}},
                status=400,
            )
        try:
            pk = int(params.get("line"))
        except (TypeError, ValueError):
            pk = None
        transit = selectors.bus_fares()
        line = transit.public_lines().filter(pk=pk).first() if pk and selectors.bus_enabled() else None
        if line is None:
            return Response(
                {"errors": {"line": ["Linha de ônibus não encontrada: escolha uma das linhas em operação."]}},
                status=404,
            )
        found = transit.line_tariff_api(line, on)
        if found is None:
            return Response(
                {"errors": {"line": ["Não há tarifa desta linha em vigor nesta data."]}}, status=404
            )
        return api_cache(Response(found), 300)


class QuoteView(APIView):
    """GET /api/v1/fares/quote/?modality=taxi&km=10&at=...&waiting_minutes=0&student=false."""

    authentication_classes: list = []
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        parameters=[
            OpenApiParameter("modality", OpenApiTypes.STR, enum=[m.value for m in TariffModality]),
            OpenApiParameter("km", OpenApiTypes.DECIMAL, required=True),
            OpenApiParameter("at", OpenApiTypes.DATETIME),
            OpenApiParameter("waiting_minutes", OpenApiTypes.INT),
            OpenApiParameter("student", OpenApiTypes.BOOL),
            OpenApiParameter("zone", OpenApiTypes.STR, enum=["urban", "rural"]),
            OpenApiParameter("line", OpenApiTypes.INT,
                             description="ônibus: id da linha (tarifa da linha fixada por decreto)"),
        ],
        responses={200: R.QUOTE, 409: R.CONFLICT},
    )
    def get(self, request):
        pack = regulation.current()
        tables = selectors.all_tables(pack)
        modalities = selectors.modalities_with_tables(tables)
        params = request.query_params.copy()
        if params.get("line") not in (None, ""):
            return self.line_quote(params)
        modality = params.get("modality") or (modalities[0] if modalities else "taxi")
        if modality not in TariffModality.values:
            return Response(
                {"errors": {"modality": ["Serviço inválido: use taxi, mototaxi ou bus."]}},
                status=400,
            )
        if modality not in modalities:
            message = selectors.missing_table_message(
                pack, tables, modality, selectors.local_moment(pack, None).date()
            )
            return Response({"errors": {"modality": [message]}}, status=400)
        params["modality"] = modality
        student = _bool_param(params.get("student"))
        if student is None:
            return Response(
                {"errors": {"student": ["Use student=true ou student=false."]}}, status=400
            )
        params["student"] = "on" if student else ""
        if "km" not in params:
            params["km"] = ""
        form = QuoteForm(params, modalities=modalities, km_optional_for=("bus",))
        if not form.is_valid():
            return Response({"errors": _errors(form)}, status=400)
        try:
            quote = selectors.compute_quote(pack, tables, form.cleaned_data)
        except RuleViolation as exc:
            return refusal_response(exc)
        return api_cache(Response(quote.as_api()), 60)

    def line_quote(self, params):
        """modality=bus&line=<id>: the line's fare by decree in force at ``at`` (art. 16–17)."""
        if params.get("modality") not in (None, "", "bus"):
            return Response(
                {"errors": {"line": ["Linha só se aplica ao serviço de ônibus (modality=bus)."]}},
                status=400,
            )
        form = QuoteForm({"at": params.get("at", "")})
        form.is_valid()
        if "at" in form.errors:
            return Response({"errors": {"at": form.errors["at"]}}, status=400)
        student = _bool_param(params.get("student"))
        if student is None:
            return Response(
                {"errors": {"student": ["Use student=true ou student=false."]}}, status=400
            )
        pack = regulation.current()
        moment = selectors.local_moment(pack, form.cleaned_data.get("at"))
        try:
            quote = selectors.bus_fares().line_fare_quote(
                params.get("line"), zone=params.get("zone") or None, student=student, at=moment.date()
            )
        except RuleViolation as exc:
            return refusal_response(exc)
        return api_cache(Response(quote.as_quote_api()), 60)


def _bool_param(raw) -> bool | None:
    value = str(raw or "false").strip().lower()
    if value in ("true", "1", "on", "yes", "sim"):
        return True
    if value in ("false", "0", "off", "no", "nao", "não", ""):
        return False
    return None
