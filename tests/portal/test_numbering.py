"""Gap-free numbers taken in one statement (issue 20: one UPDATE … RETURNING per block)."""

import pytest
from django.db import transaction

from portal.models import NumberSequence
from portal.numbering import document_number, next_number, reserve_numbers


@pytest.mark.django_db(transaction=True)
def test_numbers_follow_each_other_and_a_rollback_gives_them_back(alegre):
    with transaction.atomic():
        assert next_number("bench", 2026) == 1
        assert reserve_numbers("bench", 2026, 3) == range(2, 5)
        assert document_number("bench", 2026) == "005/2026"
    with pytest.raises(RuntimeError), transaction.atomic():
        assert reserve_numbers("bench", 2026, 10) == range(6, 16)
        raise RuntimeError("desfaz")
    with transaction.atomic():
        assert next_number("bench", 2026) == 6  # no gap: the rolled-back block came back
        assert next_number("bench", 2027) == 1  # a counter per (kind, year)
    assert NumberSequence.objects.get(kind="bench", year=2026).last_number == 6


@pytest.mark.django_db
def test_one_statement_per_block(alegre, django_assert_num_queries):
    with transaction.atomic():
        next_number("ato", 2026)
        with django_assert_num_queries(1):
            assert reserve_numbers("ato", 2026, 1000) == range(2, 1002)


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_is_refused():
    with pytest.raises(RuntimeError, match="transação"):
        next_number("ato", 2026)
