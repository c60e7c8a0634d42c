"""Links and QR codes follow the municipality's host (issue 17)."""

from __future__ import annotations

import pytest

from portal import tenancy
from portal.pdf import verification_url
from portal.site_url import site_url

pytestmark = pytest.mark.django_db


def test_a_one_city_installation_on_its_own_domain_keeps_its_site_url(settings, itagiba):
    settings.SITE_URL = "https://taxi.prefeitura.example/"
    assert site_url() == "https://taxi.prefeitura.example"
    settings.TENANT_BASE_DOMAIN = "taxi.consorcio.example"
    settings.DEFAULT_MUNICIPALITY = "itagiba"
    settings.SITE_URL = "https://taxi.consorcio.example"
    assert site_url() == "https://taxi.consorcio.example"  # the default municipality answers there


def test_each_municipality_has_its_host_with_the_scheme_and_port_of_site_url(settings, load_pack):
    settings.SITE_URL = "http://127.0.0.1:8000"
    settings.TENANT_BASE_DOMAIN = "localhost"
    load_pack("arapora")
    load_pack("itagiba")
    settings.DEFAULT_MUNICIPALITY = ""
    assert verification_url("ABC123") == "http://itagiba.localhost:8000/verificar/ABC123/"
    assert site_url("arapora") == "http://arapora.localhost:8000"
    settings.SITE_URL = "https://taxi.consorcio.example"
    settings.TENANT_BASE_DOMAIN = "taxi.consorcio.example"
    assert site_url() == "https://itagiba.taxi.consorcio.example"
    assert tenancy.current().slug == "itagiba"


def test_a_municipality_with_its_own_domain_prints_it(settings, load_pack):
    from portal.models import Municipality, MunicipalityHost

    load_pack("itagiba")
    settings.SITE_URL = "https://taxi.consorcio.example"
    settings.TENANT_BASE_DOMAIN = "taxi.consorcio.example"
    MunicipalityHost.objects.create(municipality=Municipality.objects.get(slug="itagiba"),
                                    hostname="taxi.itagiba.ba.gov.br")
    assert verification_url("X1") == "https://taxi.itagiba.ba.gov.br/verificar/X1/"


def test_localhost_subdomains_are_allowed_hosts_in_development():
    from django.conf import settings
    from django.http.request import validate_host

    assert validate_host("arapora.localhost", settings.ALLOWED_HOSTS)
