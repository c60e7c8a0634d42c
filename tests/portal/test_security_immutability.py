"""Issue #16, database immutability (PostgreSQL triggers): an issued auto keeps what it said
(only its workflow columns change), and grants, alvarás, judgements and numbers given are
never deleted (nor truncated, nor changed) — whatever client talks to the database.
The test runner's flush alone may truncate them (tests/conftest.py)."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.utils import timezone

from enforcement.models import INFRACTION_ISSUED_FIELDS, Infraction, Judgement
from licensing.models import Alvara, Authorization
from portal.models import IssuedNumber
from tests.ops.transactional import restore_roles  # noqa: F401  (fixture)

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def world(restore_roles, agent, judge):  # noqa: F811
    if connection.vendor != "postgresql":
        pytest.skip("gatilhos do PostgreSQL")
    from enforcement import services
    from portal import regulation
    from tests.factories import issue_authorization
    from tests.ops.transactional import ensure_roles

    ensure_roles()
    regulation.load_pack("itagiba")  # a pack with alvarás
    auth, alvaras = issue_authorization()
    inf, _ = services.infraction_issue(actor=agent, plate=auth.vehicle.plate, infraction_code="19-I",
                                       occurred_at=timezone.now() - timezone.timedelta(minutes=5),
                                       location="Praça", description="Constatado.")
    judgement = Judgement.objects.create(infraction=inf, number="1/2026", judge=judge, upheld=True,
                                         grounds="Procedente.", decided_on=timezone.localdate())
    return {"auth": auth, "alvara": alvaras[0], "inf": inf, "judgement": judgement}


def _refused(sql: str, params=()) -> None:
    with pytest.raises(Exception, match="(?i)cannot|recusado"):  # noqa: B017 - the driver's error class varies
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, params)


def _accepted(sql: str, params=()) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)


def test_an_issued_auto_keeps_every_issued_column_and_its_workflow_columns_move(world):
    table, pk = Infraction._meta.db_table, world["inf"].pk
    columns = {f.name: f.column for f in Infraction._meta.fields}
    for name in ("plate", "driver_cpf", "occurred_at", "infraction_code", "catalogue", "holder", "number"):
        column = columns[name]
        _refused(f'UPDATE {table} SET "{column}" = NULL WHERE id = %s', [pk])  # noqa: S608
    _refused(f"UPDATE {table} SET description = 'outra', status = 'cancelled' WHERE id = %s", [pk])  # noqa: S608
    _accepted(f"UPDATE {table} SET status = 'cancelled', cancel_reason = 'x', status_changed_at = now(), "  # noqa: S608
              "penalty = '{}'::jsonb, defense_deadline = current_date WHERE id = %s", [pk])
    inf = Infraction.objects.get(pk=pk)
    assert inf.status == "cancelled" and inf.plate == world["inf"].plate
    inf.save()  # a full save that changes nothing issued is not an edit
    assert set(INFRACTION_ISSUED_FIELDS) <= set(columns)


def test_grants_alvaras_judgements_and_counters_are_never_deleted(world):
    for model, pk in ((Authorization, world["auth"].pk), (Alvara, world["alvara"].pk),
                      (Judgement, world["judgement"].pk), (IssuedNumber, IssuedNumber.objects.first().pk)):
        _refused(f"DELETE FROM {model._meta.db_table} WHERE id = %s", [pk])  # noqa: S608
        _refused(f"TRUNCATE {model._meta.db_table} CASCADE")
        assert model.objects.filter(pk=pk).exists()
    _refused(f"UPDATE {Judgement._meta.db_table} SET grounds = 'outra' WHERE id = %s",  # noqa: S608
             [world["judgement"].pk])
    # a grant and an alvará change status through the services (not deleted, not frozen)
    _accepted(f"UPDATE {Authorization._meta.db_table} SET status_reason = 'x' WHERE id = %s",  # noqa: S608
              [world["auth"].pk])


def test_a_number_given_is_never_changed(world):
    row = IssuedNumber.objects.first()
    table = IssuedNumber._meta.db_table
    _refused(f"UPDATE {table} SET number = number + 1 WHERE id = %s", [row.pk])  # noqa: S608
    _refused(f"UPDATE {table} SET year = year + 1 WHERE id = %s", [row.pk])  # noqa: S608
    assert IssuedNumber.objects.get(pk=row.pk).number == row.number


def test_the_test_runners_flush_still_empties_the_protected_tables(world):
    from django.core.management import call_command

    call_command("flush", interactive=False, verbosity=0)
    assert not Authorization.objects.exists() and not Judgement.objects.exists()
    assert not IssuedNumber.objects.exists() and not Infraction.objects.exists()
