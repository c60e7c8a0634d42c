"""Links and QR codes follow the municipality's host (issue 17)."""

from __future__ import annotations

import pytest

from portal.pdf import verification_url
from portal.site_url import site_url

pytestmark = pytest.mark.django_db


def test_without_a_base_domain_the_site_url_is_the_address(settings, itagiba):
    settings.SITE_URL = "https://taxi.prefeitura.example/"
    settings.TENANT_BASE_DOMAIN = ""
    assert site_url() == "https://taxi.prefeitura.example"


def test_with_a_base_domain_each_municipality_has_its_host_with_the_scheme_and_port_of_site_url(settings, load_pack):
    settings.SITE_URL = "http://127.0.0.1:8000"
    settings.TENANT_BASE_DOMAIN = "localhost"
    load_pack("itagiba")
    assert verification_url("ABC123") == "http://itagiba.localhost:8000/verificar/ABC123/"
    assert site_url("arapora") == "http://arapora.localhost:8000"
    settings.SITE_URL = "https://portal.consorcio.example"
    settings.TENANT_BASE_DOMAIN = ".consorcio.example"
    assert site_url() == "https://itagiba.consorcio.example"


def test_localhost_subdomains_are_allowed_hosts_in_development():
    from django.conf import settings
    from django.http.request import validate_host

    assert validate_host("arapora.localhost", settings.ALLOWED_HOSTS)
