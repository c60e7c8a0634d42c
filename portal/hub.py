"""The page of an address that serves no municipality (``http://127.0.0.1:8000/``): the list
of the municipalities in service, each a link to its own portal (``portal.tenant_hosts``)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string

from portal.models import Municipality
from portal.tenant_hosts import host_of


def hub(request: HttpRequest) -> HttpResponse:
    municipalities = [_card(m, request) for m in Municipality.objects.filter(is_active=True).order_by("name")]
    html = render_to_string("portal/hub.html", {"municipalities": municipalities}, request=None)
    return HttpResponse(html)


def _card(m: Municipality, request: HttpRequest) -> dict:
    """What the hub says of a municipality, from its pack: the services its law regulates and
    the law, so that a person recognises the portal of their city before following the link."""
    pack = m.pack or {}
    modalities = [str(v.get("label") or k) for k, v in (pack.get("modalities") or {}).items()]
    laws = pack.get("laws") or []
    main = laws[0] if laws else {}  # the pack's main law comes first (regulation.Pack.main_law)
    return {
        "name": m.name, "uf": m.uf, "url": host_of(m.slug, request), "office": m.office,
        "services": modalities, "law": main.get("title") or "",
        "population": m.population, "population_year": m.population_year,
    }


def not_served(request: HttpRequest) -> HttpResponse:
    html = render_to_string("portal/hub_404.html", {}, request=None)
    return HttpResponse(html, status=404)
