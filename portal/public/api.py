"""Public API (no login): quotas, verification by code, open data of current grants."""

from __future__ import annotations

import io

from defusedcsv import csv
from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions, renderers
from rest_framework.exceptions import NotFound
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from portal import regulation
from portal.public import api_responses as R
from portal.public import selectors
from portal.public.http import api_cache
from portal.throttling import WindowScopedRateThrottle

OPEN_DATA_FIELDS = (
    "number",
    "modality",
    "holder_name",
    "plate",
    "valid_until",
    "status",
    "act",
    "valid_from",
    "stand",
)


CSV_SEPARATORS = {",": ",", ";": ";"}


def _lead_whitespace(value):
    """defusedcsv leaves a leading tab or CR alone; spreadsheets may still read what follows
    as a formula (OWASP CSV injection), so such a cell is neutralised the same way."""
    if isinstance(value, str) and value[:1] in ("\t", "\r"):
        return "'" + value
    return value


class CSVRenderer(renderers.BaseRenderer):
    """CSV in UTF-8 with BOM, so that spreadsheets open the accents intact.

    Cells that a spreadsheet would run as a formula (starting with =, +, -, @, tab or CR) are
    neutralised by defusedcsv (a leading apostrophe): a holder named "=HYPERLINK(…)" is data.
    ``?sep=;`` gives the separator of spreadsheets set to Brazilian Portuguese, where the
    comma is the decimal mark.
    """

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        rows = data if isinstance(data, list) else (data or {}).get("results", [])
        request = (renderer_context or {}).get("request")
        sep = CSV_SEPARATORS.get(request.query_params.get("sep", ",") if request is not None else ",", ",")
        return b"".join(csv_chunks(rows, sep))


def csv_chunks(rows, sep: str = ",", chunk: int = 500, fields: tuple[str, ...] = OPEN_DATA_FIELDS):
    """The CSV of CSVRenderer, row by row: BOM and header first, then ``chunk`` rows at a time,
    so that the export of every grant is streamed in constant memory."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=fields, extrasaction="ignore", lineterminator="\r\n",
                            delimiter=sep)
    writer.writeheader()
    yield b"\xef\xbb\xbf" + _drain(buf)
    pending = 0
    for row in rows:
        writer.writerow({k: _lead_whitespace(v) for k, v in row.items()})
        pending += 1
        if pending == chunk:
            yield _drain(buf)
            pending = 0
    if pending:
        yield _drain(buf)


def _drain(buf: io.StringIO) -> bytes:
    out = buf.getvalue().encode("utf-8")
    buf.seek(0)
    buf.truncate()
    return out


class QuotasView(APIView):
    """GET /api/v1/quotas/ — slots per modality: population ÷ inhabitants per slot, or fixed."""

    authentication_classes: list = []
    permission_classes = [permissions.AllowAny]

    @extend_schema(responses=R.QUOTAS)
    def get(self, request):
        return api_cache(Response(selectors.quotas(regulation.current())), 300)


class VerifyView(APIView):
    """GET /api/v1/verify/{code}/ — validity of an authorization or alvará (holder name only)."""

    authentication_classes: list = []
    permission_classes = [permissions.AllowAny]
    throttle_classes = [WindowScopedRateThrottle]
    throttle_scope = "verify"

    @extend_schema(responses={200: R.VERIFICATION, 404: R.NOT_VERIFIED})
    def get(self, request, code: str):
        status, data = verification_answer(code)
        return api_cache(Response(data, status=status), 60)


def verification_answer(code: str) -> tuple[int, dict]:
    """What GET /api/v1/verify/{code}/ answers: the status and the body's data."""
    found = selectors.verify_by_code(code, regulation.current())
    return (404, {"valid": False}) if found is None else (200, found.as_api())


# What the stack negotiates to JSON (DRF's first renderer): no Accept, any type, or JSON itself.
_JSON_ACCEPTS = frozenset(("", "*/*", "application/json"))


def direct_verification(request, code: str) -> tuple[int, bytes] | None:
    """VerifyView's answer for portal.page_cache's direct lane: the same throttle (a refused
    client goes through the stack, which answers the 429), the same data, rendered by the same
    JSON renderer; None for whatever else the stack would negotiate (the browsable API)."""
    if request.META.get("HTTP_ACCEPT", "") not in _JSON_ACCEPTS or regulation.current(required=False) is None:
        return None
    allowed = WindowScopedRateThrottle().allow_request_later(request, VerifyView)
    try:  # the lookup runs while the throttle's hit is on its way (one wait for the two)
        status, data = verification_answer(code)
    finally:
        refused = not allowed()
    if refused:
        return None
    return status, renderers.JSONRenderer().render(data)


class OpenDataPagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500


class OpenAuthorizationsView(APIView):
    """GET /api/v1/authorizations/ — open data of current grants; ``?format=csv`` for CSV."""

    authentication_classes: list = []
    permission_classes = [permissions.AllowAny]
    renderer_classes = [renderers.JSONRenderer, renderers.BrowsableAPIRenderer, CSVRenderer]

    @extend_schema(
        parameters=[
            OpenApiParameter("format", OpenApiTypes.STR, enum=["json", "csv"]),
            OpenApiParameter("sep", OpenApiTypes.STR, enum=[",", ";"],
                             description="Separador do CSV (';' para planilhas em português)."),
            OpenApiParameter("q", OpenApiTypes.STR),
            OpenApiParameter("modality", OpenApiTypes.STR),
            OpenApiParameter("page", OpenApiTypes.INT),
            OpenApiParameter("page_size", OpenApiTypes.INT),
        ],
        responses=R.OPEN_DATA,
    )
    def get(self, request):
        q, modality = (
            request.query_params.get("q", "")[:60],
            request.query_params.get("modality", ""),
        )
        if getattr(request.accepted_renderer, "format", "") == "csv":
            sep = CSV_SEPARATORS.get(request.query_params.get("sep", ","), ",")
            response = StreamingHttpResponse(csv_chunks(selectors.open_data_stream(q, modality), sep),
                                             content_type="text/csv; charset=utf-8")
            response["Content-Disposition"] = 'attachment; filename="outorgas-vigentes.csv"'
            return api_cache(response, 300)
        paginator = OpenDataPagination()
        rows = paginator.paginate_queryset(selectors.CountedRows(q, modality), request, view=self)
        return api_cache(paginator.get_paginated_response(list(rows)), 300)


def direct_open_data_page(request, page: int = 1) -> tuple[int, bytes] | None:
    """OpenAuthorizationsView's answer for portal.page_cache's direct lane: a page of the whole
    list (``?page=N`` or none) through the view's own paginator (its count, rows and links) and
    JSON renderer; None for whatever else the stack would answer (the browsable API, a page past
    the end: its 404)."""
    if request.META.get("HTTP_ACCEPT", "") not in _JSON_ACCEPTS or regulation.current(required=False) is None:
        return None
    paginator = OpenDataPagination()
    try:
        rows = paginator.paginate_queryset(selectors.CountedRows("", ""), Request(request))
    except NotFound:
        return None
    return 200, renderers.JSONRenderer().render(paginator.get_paginated_response(list(rows)).data)
