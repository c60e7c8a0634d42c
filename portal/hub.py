"""The page of an address that serves no municipality (``http://127.0.0.1:8000/``): the list
of the municipalities in service, each a link to its own portal (``portal.tenant_hosts``)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string

from portal.models import Municipality
from portal.tenant_hosts import host_of


def hub(request: HttpRequest) -> HttpResponse:
    municipalities = [
        {"name": m.name, "uf": m.uf, "url": host_of(m.slug, request)}
        for m in Municipality.objects.filter(is_active=True).order_by("name")
    ]
    html = render_to_string("portal/hub.html", {"municipalities": municipalities}, request=None)
    return HttpResponse(html)


def not_served(request: HttpRequest) -> HttpResponse:
    html = render_to_string("portal/hub_404.html", {}, request=None)
    return HttpResponse(html, status=404)
