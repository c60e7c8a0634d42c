"""One installation, many municipalities (issue 17): the municipality is the tenant of every record.

A record of municipality A is invisible from B's scope and host; every rule (numbering,
quota, recidivism) counts within the municipality whose law applies; a query with no
municipality in scope fails loudly; loading a second pack leaves the first untouched.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from portal import regulation, tenancy
from portal.tenancy import TenantMissing
from tests.factories import UserFactory, VehicleFactory, issue_authorization


# --- the scope ---------------------------------------------------------------------------------
def test_activate_sets_and_restores_the_scope():
    assert tenancy.current_id_or_none() is None
    with tenancy.activate((7, "sete")):
        assert (tenancy.current_id(), tenancy.current_slug()) == (7, "sete")
        with tenancy.activate((8, "oito")):
            assert tenancy.current_id() == 8
        assert tenancy.current_id() == 7
    assert tenancy.current_id_or_none() is None
    with pytest.raises(TenantMissing):
        tenancy.current_id()


@pytest.mark.django_db
def test_a_tenant_query_without_a_municipality_in_scope_raises(alegre):
    from licensing.grants.models import Authorization
    from portal.models import AuditEntry, Notification

    issue_authorization()
    with tenancy.activate(None):
        with pytest.raises(TenantMissing):
            list(Authorization.objects.all())
        with pytest.raises(TenantMissing):
            Authorization.objects.filter(modality="taxi").count()
        with pytest.raises(TenantMissing):
            AuditEntry.objects.exists()
        with pytest.raises(TenantMissing):
            Notification.objects.create(recipient=UserFactory(), subject="s", body="b")
        # the explicit way across municipalities
        assert Authorization.all_tenants.count() == 1


@pytest.mark.django_db
def test_a_queryset_built_before_any_scope_takes_the_scope_that_runs_it(two_municipalities):
    from fleet.models import Vehicle

    town = two_municipalities
    with tenancy.activate(None):
        early = Vehicle.objects.filter(kind="car")  # as a form field's queryset built at import time
    with tenancy.activate(town.a):
        in_a = VehicleFactory()
    with tenancy.activate(town.b):
        in_b = VehicleFactory()
    with tenancy.activate(town.a):
        assert list(early.all()) == [in_a]
    with tenancy.activate(town.b):
        assert list(early.all()) == [in_b]


# --- isolation ---------------------------------------------------------------------------------
@pytest.mark.django_db
def test_records_of_a_are_invisible_from_b(two_municipalities):
    from django.http import Http404
    from django.shortcuts import get_object_or_404

    from fleet.models import Vehicle
    from licensing.grants.models import Alvara, Authorization
    from portal.models import AuditEntry, IssuedDocument

    town = two_municipalities
    holder = UserFactory()  # one account across the installation
    with tenancy.activate(town.a):
        auth, alvaras = issue_authorization(holder=holder)
        assert auth.municipality_id == town.a.id and all(a.municipality_id == town.a.id for a in alvaras)
        assert AuditEntry.objects.filter(object_id=str(auth.pk), object_type="licensing.authorization").exists()
    with tenancy.activate(town.b):
        assert not Authorization.objects.filter(pk=auth.pk).exists()
        assert not Alvara.objects.exists() and not Vehicle.objects.exists()
        assert not AuditEntry.objects.filter(object_type="licensing.authorization").exists()
        assert not IssuedDocument.objects.exists()
        assert not holder.authorizations.exists()  # reverse relations are scoped too
        with pytest.raises(Http404):
            get_object_or_404(Authorization, pk=auth.pk)
    with tenancy.activate(town.a):
        assert holder.authorizations.get() == auth


@pytest.mark.django_db
def test_a_document_of_a_does_not_verify_on_bs_host(two_municipalities):
    town = two_municipalities
    with tenancy.activate(town.a):
        auth, _ = issue_authorization()
    url = f"/api/v1/verify/{auth.verification_code}/"
    assert town.client_a.get(url).json()["valid"] is True
    found_on_b = town.client_b.get(url)
    assert found_on_b.status_code == 404 and found_on_b.json() == {"valid": False}


@pytest.mark.django_db
def test_the_holder_on_bs_host_gets_404_for_the_act_of_as_grant(two_municipalities):
    from django.urls import reverse

    town = two_municipalities
    holder = UserFactory()
    with tenancy.activate(town.a):
        auth, _ = issue_authorization(holder=holder)
    url = reverse("api-authorization-act-pdf", args=[auth.pk])
    town.client_a.force_login(holder)
    town.client_b.force_login(holder)
    assert town.client_a.get(url).status_code == 200
    assert town.client_b.get(url).status_code == 404


@pytest.mark.django_db
def test_the_open_data_list_of_b_is_not_read_from_as_page_index(two_municipalities):
    """The page index of the open-data list is kept in the process and the data stamp is one
    for the installation: asked on B's host right after A's, with no change in between, B's
    list must still be B's own (empty), not A's index."""
    town = two_municipalities
    with tenancy.activate(town.a):
        issue_authorization()
        issue_authorization()
    assert town.client_a.get("/api/v1/authorizations/").json()["count"] == 2
    on_b = town.client_b.get("/api/v1/authorizations/").json()
    assert on_b["count"] == 0 and on_b["results"] == []


# --- onboarding --------------------------------------------------------------------------------
@pytest.mark.django_db
def test_loading_a_second_pack_leaves_the_first_untouched(db, settings):
    from licensing.grants.models import Authorization
    from licensing.grants.selectors import quota_states
    from portal.models import IssuedNumber, Municipality, RegulationParameter

    first = regulation.load_pack("alegre")
    a = Municipality.objects.get(pk=first.municipality_id)
    with tenancy.activate(a):
        auth, _ = issue_authorization()
        numbers = sorted(Authorization.objects.values_list("number", flat=True))
        counters = sorted(IssuedNumber.objects.values_list("kind", "year", "number"))
        quota = [(q.modality, q.slots, q.current) for q in quota_states()]
    params = sorted(RegulationParameter.objects.filter(municipality=a).values_list("key", "value", "effective_from"))
    row = Municipality.objects.filter(pk=a.pk).values("version", "pack_digest", "population", "is_active", "loaded_at")[0]

    for slug in ("itagiba", "arapora"):
        regulation.load_pack(slug)
    with tenancy.activate(a):
        assert sorted(Authorization.objects.values_list("number", flat=True)) == numbers
        assert sorted(IssuedNumber.objects.values_list("kind", "year", "number")) == counters
        assert [(q.modality, q.slots, q.current) for q in quota_states()] == quota
        assert regulation.current().slug == "alegre"
    assert sorted(RegulationParameter.objects.filter(municipality=a).values_list("key", "value", "effective_from")) == params
    assert Municipality.objects.filter(pk=a.pk).values("version", "pack_digest", "population", "is_active", "loaded_at")[0] == row
    assert Municipality.objects.filter(is_active=True).count() == 3


# --- rules count within the municipality -----------------------------------------------------------
@pytest.mark.django_db(transaction=True)
def test_numbering_runs_per_municipality(two_municipalities):
    from portal.numbering import next_number

    town = two_municipalities
    with tenancy.activate(town.a), transaction.atomic():
        assert [next_number("ato", 2026), next_number("ato", 2026)] == [1, 2]
    with tenancy.activate(town.b), transaction.atomic():
        assert next_number("ato", 2026) == 1
    with tenancy.activate(town.a), transaction.atomic():
        assert next_number("ato", 2026) == 3


@pytest.mark.django_db
def test_grant_numbers_and_quota_count_per_municipality(two_municipalities):
    from licensing.grants.selectors import count_current_grants

    town = two_municipalities
    with tenancy.activate(town.a):
        first_a, _ = issue_authorization()
        second_a, _ = issue_authorization()
    with tenancy.activate(town.b):
        first_b, _ = issue_authorization()
        assert count_current_grants("taxi") == 1
    assert first_a.number.split("/")[0] == first_b.number.split("/")[0]  # each series starts at its first number
    assert first_a.number != second_a.number
    with tenancy.activate(town.a):
        assert count_current_grants("taxi") == 2


def _upheld_auto(holder, agent, number: str, day):
    from enforcement.models import Infraction, InfractionStatus

    when = timezone.make_aware(timezone.datetime.combine(day, timezone.datetime.min.time().replace(hour=10)))
    return Infraction.objects.create(
        number=number, plate="ABC1D23", holder=holder, agent=agent, infraction_code="X", occurred_at=when,
        occurred_on=day, location="Praça", description="Constatado.", status=InfractionStatus.UPHELD,
        penalty={"kinds": ["fine"], "amount": "100.00"},
    )


@pytest.mark.django_db
def test_recidivism_counts_only_autos_of_the_same_municipality(two_municipalities, agent):
    """An auto judged under Alegre's law is no prior offence under Itagibá's (issue 17)."""
    from enforcement.services.penalty import prior_fines

    town = two_municipalities
    holder = UserFactory()
    today = timezone.localdate()
    with tenancy.activate(town.a):
        earlier = _upheld_auto(holder, agent, "001/2026", today - timedelta(days=30))
        later_in_a = _upheld_auto(holder, agent, "002/2026", today)
        assert [p.ref for p in prior_fines(later_in_a)] == [earlier.number]
    with tenancy.activate(town.b):
        in_b = _upheld_auto(holder, agent, "001/2026", today)  # same number: B's own series
        assert prior_fines(in_b) == []


# --- which municipality: the host -------------------------------------------------------------------
@pytest.mark.django_db
def test_the_host_names_the_municipality(two_municipalities, settings):
    from portal.tenant_hosts import resolve_host

    town = two_municipalities
    assert resolve_host("alegre.localhost") == town.a  # <slug>.<TENANT_BASE_DOMAIN>
    assert resolve_host("itagiba.localhost") == town.b
    assert resolve_host("b.localhost") == town.b  # an extra hostname (MunicipalityHost)
    assert resolve_host("nowhere.localhost") is None and resolve_host("127.0.0.1") is None
    settings.DEFAULT_MUNICIPALITY = "itagiba"
    regulation.invalidate()
    assert resolve_host("127.0.0.1") == town.b  # a one-city installation's default
    assert resolve_host("alegre.localhost") == town.a  # the host still wins
    settings.TENANT_BASE_DOMAIN = "portal.example"
    regulation.invalidate()
    assert resolve_host("alegre.portal.example") == town.a


def test_the_host_is_checked_once_per_request_and_a_refused_one_every_time(rf, settings):
    """request_host(): the tenant middleware and the page cache's key share one check of
    ALLOWED_HOSTS per request; a host not allowed is refused on every call, never remembered."""
    from django.core.exceptions import DisallowedHost

    from portal.tenant_hosts import request_host

    settings.ALLOWED_HOSTS = [".localhost"]
    request = rf.get("/", HTTP_HOST="alegre.localhost")
    assert request_host(request) == "alegre.localhost"
    settings.ALLOWED_HOSTS = []  # the check is not made again for the same request
    assert request_host(request) == "alegre.localhost"
    refused = rf.get("/", HTTP_HOST="evil.example")
    for _ in range(2):
        with pytest.raises(DisallowedHost):
            request_host(refused)


@pytest.mark.django_db
def test_the_only_municipality_in_service_answers_any_host(alegre):
    from django.test import Client

    from portal.tenant_hosts import resolve_host

    assert resolve_host("127.0.0.1").slug == "alegre"
    response = Client(HTTP_HOST="127.0.0.1").get("/")
    assert response.status_code == 200 and "Alegre" in response.content.decode()


@pytest.mark.django_db
def test_an_address_of_no_municipality_is_the_hub_and_nothing_else(two_municipalities):
    from django.test import Client

    client = Client(HTTP_HOST="127.0.0.1")
    hub = client.get("/")
    html = hub.content.decode()
    assert hub.status_code == 200
    assert 'href="http://a.localhost/"' in html and 'href="http://b.localhost/"' in html  # their own hosts
    assert "Alegre" in html and "Itagibá" in html
    for path in ("/painel/", "/api/v1/authorizations/", "/conta/entrar/", "/verificar/"):
        assert client.get(path).status_code == 404, path
    assert client.get("/healthz/").status_code == 200  # the probes need no municipality


@pytest.mark.django_db
def test_each_host_serves_its_own_pack(two_municipalities):
    home_a = two_municipalities.client_a.get("/").content.decode()
    home_b = two_municipalities.client_b.get("/").content.decode()
    assert "Alegre" in home_a and "Itagibá" not in home_a
    assert "Itagibá" in home_b and "Alegre" not in home_b


# --- tasks ----------------------------------------------------------------------------------------
@pytest.mark.django_db
def test_a_task_carries_the_municipality_of_the_code_that_sent_it(two_municipalities):
    from celery.signals import before_task_publish
    from django.core.cache import cache

    from portal.tasks import ping

    town = two_municipalities
    headers: dict = {}
    with tenancy.activate(town.b):
        before_task_publish.send(sender="portal.tasks.ping", body=(), exchange="", routing_key="", headers=headers,
                                 properties={}, declare=[], retry_policy=None)
    assert headers["municipality"] == [town.b.id, "itagiba"]
    with tenancy.activate(None):
        ping.apply(args=["t17"], headers=headers)  # the worker side: task_prerun puts it in scope
        assert tenancy.current() is None  # and task_postrun takes it out
    with tenancy.activate(town.b):
        assert cache.get("ping:t17:done") == 1  # the task's cache keys were B's
    with tenancy.activate(town.a):
        assert cache.get("ping:t17:done") is None


@pytest.mark.django_db
def test_a_periodic_job_runs_once_per_municipality_in_service(two_municipalities):
    from portal.jobs import run_job
    from portal.models import JobRun

    seen = []

    def job() -> int:
        seen.append((tenancy.current_slug(), str(timezone.get_current_timezone())))
        return 1

    with tenancy.activate(None):
        assert run_job("test.each", job) == 2
    assert sorted(seen) == [("alegre", "America/Sao_Paulo"), ("itagiba", "America/Bahia")]
    assert JobRun.all_tenants.filter(name="test.each").count() == 2
