"""Gap-free sequential numbers (portal.numbering): a ledger row per number, taken inside the
issuing transaction, given back by its rollback, waited for by a concurrent issuer."""

import contextvars
import threading

import pytest
from django.db import DatabaseError, connection, connections, transaction

from portal import tenancy
from portal.models import IssuedNumber
from portal.numbering import document_number, next_number


@pytest.mark.django_db(transaction=True)
def test_numbers_follow_each_other_and_a_rollback_gives_them_back(alegre):
    with transaction.atomic():
        assert next_number("bench", 2026) == 1
        assert next_number("bench", 2026) == 2
        assert document_number("bench", 2026) == "003/2026"
    with pytest.raises(RuntimeError), transaction.atomic():
        assert next_number("bench", 2026) == 4
        raise RuntimeError("desfaz")
    with transaction.atomic():
        assert next_number("bench", 2026) == 4  # no gap: the rolled-back number came back
        try:
            with transaction.atomic():  # a savepoint rolled back gives its number back too
                assert next_number("bench", 2026) == 5
                raise ValueError("desfaz só o ponto de salvamento")
        except ValueError:
            pass
        assert next_number("bench", 2026) == 5
        assert next_number("bench", 2027) == 1  # a series per (kind, year)
        assert next_number("alvara", 2026) == 1  # and per kind
    assert list(IssuedNumber.objects.filter(kind="bench", year=2026).order_by("number")
                .values_list("number", flat=True)) == [1, 2, 3, 4, 5]


@pytest.mark.django_db(transaction=True)
def test_each_municipality_numbers_its_own_series(alegre):
    from portal import regulation
    from portal.models import Municipality

    first = Municipality.objects.get(pk=alegre.municipality_id)
    other = Municipality.objects.get(pk=regulation.load_pack("itagiba").municipality_id)
    with tenancy.activate(first), transaction.atomic():
        assert next_number("ato", 2026) == 1
        assert next_number("ato", 2026) == 2
    with tenancy.activate(other), transaction.atomic():
        assert next_number("ato", 2026) == 1


@pytest.mark.django_db
def test_a_number_costs_the_same_statements_however_many_came_before(alegre, django_assert_num_queries):
    # one row per number read backwards on the unique index, where one counter row updated per
    # number made PostgreSQL walk the versions the batch had left (quadratic in savepoints)
    per_number = 2 if connection.vendor == "postgresql" else 1  # the series lock, the INSERT
    with transaction.atomic():
        for _ in range(200):
            with transaction.atomic():
                next_number("ato", 2026)
        with django_assert_num_queries(per_number):
            assert next_number("ato", 2026) == 201


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_is_refused():
    with pytest.raises(RuntimeError, match="transação"):
        next_number("ato", 2026)


@pytest.mark.django_db(transaction=True)
def test_a_number_given_is_never_changed_nor_taken_back(alegre):
    if connection.vendor != "postgresql":
        pytest.skip("gatilhos do PostgreSQL")
    with transaction.atomic():
        next_number("ato", 2026)
    row = IssuedNumber.objects.get(kind="ato")
    for sql in (f"UPDATE {IssuedNumber._meta.db_table} SET number = 7 WHERE id = %s",  # noqa: S608
                f"DELETE FROM {IssuedNumber._meta.db_table} WHERE id = %s"):  # noqa: S608
        with pytest.raises(DatabaseError, match="(?i)cannot"), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, [row.pk])
    with pytest.raises(DatabaseError), transaction.atomic():  # the same number twice, by any client
        IssuedNumber.objects.create(kind="ato", year=2026, number=1)
    assert IssuedNumber.objects.get(pk=row.pk).number == 1


@pytest.mark.django_db(transaction=True)
def test_two_issuers_at_once_wait_for_each_other_and_leave_no_gap(alegre):
    if connection.vendor != "postgresql":
        pytest.skip("concorrência real entre transações só no PostgreSQL (o SQLite serializa escritas)")
    first_holds, second_took, results = threading.Event(), threading.Event(), {}

    def second() -> None:
        try:
            with transaction.atomic():
                first_holds.wait(5)
                results["second"] = next_number("ato", 2026)  # waits for the first transaction
                second_took.set()
        finally:
            connections.close_all()

    thread = threading.Thread(target=contextvars.copy_context().run, args=(second,))  # the same scope
    thread.start()
    with pytest.raises(RuntimeError), transaction.atomic():
        assert next_number("ato", 2026) == 1
        first_holds.set()
        assert not second_took.wait(0.5)  # still waiting for this transaction to end
        raise RuntimeError("o primeiro desiste")  # its number 1 goes back
    thread.join(10)
    assert results["second"] == 1  # the number the first gave back, not 2
    with transaction.atomic():
        assert next_number("ato", 2026) == 2
