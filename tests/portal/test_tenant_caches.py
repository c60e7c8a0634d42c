"""The per-process caches of the municipalities (issue 17): every pack and the host table stay in
memory, checked by one query over every municipality's revision (portal.tenant_revisions).

A change made in another process is seen within CHECK_SECONDS; one made here at once; only the
municipality that changed is rebuilt; no cached value ever answers for another municipality.
"""

from __future__ import annotations

import time
from contextlib import contextmanager

import pytest
from django.db import transaction

from portal import regulation, tenancy, tenant_hosts, tenant_revisions
from portal.models import Municipality, MunicipalityHost, RegulationParameter


@contextmanager
def in_another_process():
    """Whatever the block changes, this process's caches are left as they were before it: the
    change was made by another process (its receivers bump the revision in the database, but
    nothing here is forgotten)."""
    packs = dict(regulation._cached)
    snapshot, checked_at = tenant_revisions._snapshot, tenant_revisions._checked_at
    directory = tenant_hosts._directory
    yield
    regulation._cached.clear()
    regulation._cached.update(packs)
    tenant_revisions._snapshot, tenant_revisions._checked_at = snapshot, checked_at
    tenant_hosts._directory = directory


def check_is_due():
    """CHECK_SECONDS have passed since the last check."""
    tenant_revisions._checked_at = time.monotonic() - tenant_revisions.CHECK_SECONDS - 0.1


def _a_parameter(municipality_id: int) -> RegulationParameter:
    return RegulationParameter.objects.filter(municipality_id=municipality_id).order_by("key").first()


@pytest.mark.django_db
def test_a_parameter_changed_in_another_process_is_seen_within_the_check(two_municipalities):
    town = two_municipalities
    param = _a_parameter(town.a.id)
    before = regulation.pack_of(town.a.id).params[param.key][0].value
    with in_another_process():
        param.value = {"changed": "elsewhere"}
        param.save()
    assert regulation.pack_of(town.a.id).params[param.key][0].value == before  # until the check is due
    check_is_due()
    assert regulation.pack_of(town.a.id).params[param.key][0].value == {"changed": "elsewhere"}


@pytest.mark.django_db
def test_a_change_made_in_this_process_is_seen_at_once(two_municipalities):
    """The receiver that bumps the revision also has this process read the revisions again."""
    town = two_municipalities
    param = _a_parameter(town.b.id)
    regulation.pack_of(town.b.id)
    param.value = 12345
    param.save()
    assert regulation.pack_of(town.b.id).params[param.key][0].value == 12345


@pytest.mark.django_db
def test_only_the_municipality_that_changed_is_rebuilt(two_municipalities):
    town = two_municipalities
    pack_a, pack_b = regulation.pack_of(town.a.id), regulation.pack_of(town.b.id)
    with in_another_process():
        param = _a_parameter(town.b.id)
        param.legal_basis = "Decreto novo"
        param.save()
    check_is_due()
    assert regulation.pack_of(town.a.id) is pack_a
    rebuilt = regulation.pack_of(town.b.id)
    assert rebuilt is not pack_b and rebuilt.params[param.key][0].legal_basis == "Decreto novo"
    assert (rebuilt.slug, regulation.pack_of(town.a.id).slug) == (town.b.slug, town.a.slug)


@pytest.mark.django_db
def test_a_pack_of_a_rolled_back_change_is_dropped_at_the_next_check(two_municipalities):
    town = two_municipalities
    param = _a_parameter(town.a.id)
    before = regulation.pack_of(town.a.id).params[param.key][0].value
    with pytest.raises(RuntimeError), transaction.atomic():
        param.value = "desfeito"
        param.save()
        regulation.invalidate(town.a.id)
        assert regulation.pack_of(town.a.id).params[param.key][0].value == "desfeito"
        raise RuntimeError
    check_is_due()
    assert regulation.pack_of(town.a.id).params[param.key][0].value == before


@pytest.mark.django_db
def test_a_host_added_in_another_process_answers_within_the_check(two_municipalities):
    town = two_municipalities
    assert tenant_hosts.resolve_host("taxi.itagiba.example") is None
    with in_another_process():
        MunicipalityHost.objects.create(municipality_id=town.b.id, hostname="taxi.itagiba.example")
    assert tenant_hosts.resolve_host("taxi.itagiba.example") is None  # until the check is due
    check_is_due()
    assert tenant_hosts.resolve_host("taxi.itagiba.example") == town.b
    with in_another_process():
        MunicipalityHost.objects.filter(hostname="taxi.itagiba.example").get().delete()
    check_is_due()
    assert tenant_hosts.resolve_host("taxi.itagiba.example") is None


@pytest.mark.django_db
def test_a_bulk_update_of_a_municipality_is_seen_too(two_municipalities):
    """``Municipality.objects.update()`` sends no signal: it bumps the revision itself."""
    town = two_municipalities
    assert tenant_hosts.resolve_host("itagiba.localhost") == town.b
    with in_another_process():
        Municipality.objects.filter(pk=town.b.id).update(is_active=False)
    check_is_due()
    # out of service: its hosts are no longer its own (the only one in service answers every host)
    assert tenant_hosts.resolve_host("itagiba.localhost") == town.a
    assert tenant_hosts.resolve_host("b.localhost") == town.a


@pytest.mark.django_db
def test_every_change_a_pack_is_built_from_bumps_the_revision(two_municipalities, admin_user):
    from datetime import date

    from portal.models import FiscalUnitValue, ModalityDecree

    town = two_municipalities

    def revision() -> int:
        return Municipality.objects.get(pk=town.a.id).revision

    changes = [
        lambda: Municipality.objects.get(pk=town.a.id).save(),
        lambda: _a_parameter(town.a.id).save(),
        lambda: FiscalUnitValue.objects.create(municipality_id=town.a.id, name="UFX", value=1,
                                               effective_from=date(2030, 1, 1), legal_basis="art. 1"),
        lambda: ModalityDecree.objects.create(municipality_id=town.a.id, modality="x", number="1",
                                              act_date=date(2026, 1, 1), effective_from=date(2026, 1, 1),
                                              recorded_by=admin_user),
        lambda: MunicipalityHost.objects.create(municipality_id=town.a.id, hostname="c.localhost"),
        lambda: MunicipalityHost.objects.get(hostname="c.localhost").delete(),
        lambda: Municipality.objects.filter(pk=town.a.id).update(name="Alegre"),
    ]
    other = Municipality.objects.get(pk=town.b.id).revision
    for change in changes:
        seen = revision()
        change()
        assert revision() > seen, change
    assert Municipality.objects.get(pk=town.b.id).revision == other  # another municipality's is its own


@pytest.mark.django_db
def test_a_request_costs_no_query_for_the_caches_between_checks(two_municipalities, django_assert_num_queries):
    """The steady state: between checks a pack or a host costs nothing; a due check is one
    query for every municipality together, whichever municipality asks."""
    town = two_municipalities
    regulation.pack_of(town.a.id), regulation.pack_of(town.b.id), tenant_hosts.resolve_host("a.localhost")
    with django_assert_num_queries(0):
        for _ in range(3):
            assert tenant_hosts.resolve_host("itagiba.localhost") == town.b
            assert regulation.pack_of(town.b.id).slug == town.b.slug
            assert regulation.pack_of(town.a.id).slug == town.a.slug
    check_is_due()
    with django_assert_num_queries(1):
        assert tenant_hosts.resolve_host("b.localhost") == town.b
        assert regulation.pack_of(town.a.id).slug == town.a.slug
        assert regulation.pack_of(town.b.id).slug == town.b.slug


@pytest.mark.django_db
def test_a_municipality_loaded_in_another_process_is_found(alegre):
    """A pack asked for a municipality the last check did not know reads the revisions again."""
    from portal.regulation import load_pack

    with in_another_process():
        itagiba = load_pack("itagiba")
    tenancy.set_current(alegre)
    assert regulation.pack_of(itagiba.municipality_id).slug == "itagiba"
