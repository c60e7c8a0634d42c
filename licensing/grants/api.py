"""API v1 of grants: the act, amendment and alvará PDFs."""

from __future__ import annotations

from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.views import APIView

from licensing.grants.documents import alvara_pdf, amendment_pdf, authorization_pdf
from licensing.grants.models import Alvara, Amendment, Authorization
from licensing.grants.selectors import can_see_alvara, can_see_grant
from portal.schema import pdf


class AnyContent(BaseContentNegotiation):
    """PDF endpoints answer whatever the client accepts (errors still go out as JSON)."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


def pdf_response(content: bytes, filename: str) -> HttpResponse:
    response = HttpResponse(content, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    response["Cache-Control"] = "private, no-store"
    return response


class AuthorizationPdfView(APIView):
    content_negotiation_class = AnyContent

    @extend_schema(responses=pdf("O ato de autorização (outorga) em PDF."))
    def get(self, request, pk: int):
        authorization = get_object_or_404(Authorization.objects.select_related("holder", "vehicle"), pk=pk)
        if not can_see_grant(request.user, authorization):
            raise Http404
        return pdf_response(authorization_pdf(authorization), f"ato-{authorization.number.replace('/', '-')}.pdf")


class AlvaraPdfView(APIView):
    content_negotiation_class = AnyContent

    @extend_schema(responses=pdf("O alvará em PDF."))
    def get(self, request, pk: int):
        alvara = get_object_or_404(Alvara.objects.select_related("authorization", "person", "vehicle"), pk=pk)
        if not can_see_alvara(request.user, alvara):
            raise Http404
        return pdf_response(alvara_pdf(alvara), f"alvara-{alvara.number.replace('/', '-')}.pdf")


class AmendmentPdfView(APIView):
    content_negotiation_class = AnyContent

    def get(self, request, pk: int):
        amendment = get_object_or_404(Amendment.objects.select_related("authorization", "authorization__holder"), pk=pk)
        if not can_see_grant(request.user, amendment.authorization):
            raise Http404
        return pdf_response(amendment_pdf(amendment), f"alteracao-{amendment.number.replace('/', '-')}.pdf")
