"""The grant core: issue with sequential numbers, status transitions cascading to alvarás."""

from datetime import date

import pytest

from fleet.rules import full_years_between
from licensing.grants.rules import add_years, quota_slots
from licensing.grants.services import authorization_set_status
from licensing.models import AlvaraStatus, AuthorizationStatus
from portal.exceptions import InvalidTransition
from portal.models import AuditEntry
from tests.factories import issue_authorization


def test_add_years_and_full_years():
    assert add_years(date(2024, 2, 29), 1) == date(2025, 2, 28)
    assert full_years_between(date(2005, 6, 10), date(2026, 6, 9)) == 20
    assert full_years_between(date(2005, 6, 10), date(2026, 6, 10)) == 21


@pytest.mark.parametrize("population,per_slot,slots", [(29177, 800, 36), (800, 800, 1), (799, 800, 0), (15310, 1000, 15)])
def test_quota_slots_is_floor(population, per_slot, slots):
    assert quota_slots(population, per_slot) == slots


@pytest.mark.django_db
def test_issue_numbers_are_sequential_per_year(itagiba):
    a1, alv1 = issue_authorization(valid_from=date(2026, 3, 1))
    a2, alv2 = issue_authorization(valid_from=date(2026, 3, 2))
    assert (a1.number, a2.number) == ("001/2026", "002/2026")
    assert a1.valid_until == date(2027, 2, 28)  # 1 year (Itagibá)
    assert [a.number for a in alv1 + alv2] == ["001/2026", "002/2026"]
    assert a1.verification_code != a2.verification_code


@pytest.mark.django_db
def test_alegre_has_no_alvara_and_ten_years(alegre):
    auth, alvaras = issue_authorization(valid_from=date(2026, 1, 10))
    assert alvaras == [] and auth.valid_until == date(2036, 1, 9)


@pytest.mark.django_db
def test_suspension_cascades_and_is_audited(itagiba):
    auth, (alvara,) = issue_authorization()
    authorization_set_status(actor=None, authorization=auth, to=AuthorizationStatus.SUSPENDED, reason="Penalidade",
                             suspended_until=date(2026, 12, 31))
    alvara.refresh_from_db()
    assert alvara.status == AlvaraStatus.SUSPENDED
    authorization_set_status(actor=None, authorization=auth, to=AuthorizationStatus.ACTIVE, reason="Fim da suspensão")
    alvara.refresh_from_db()
    assert alvara.status == AlvaraStatus.ACTIVE
    actions = list(AuditEntry.objects.filter(object_type="licensing.authorization", object_id=str(auth.pk))
                   .values_list("from_state", "to_state"))
    assert ("active", "suspended") in actions and ("suspended", "active") in actions


@pytest.mark.django_db
def test_cassada_is_final(itagiba):
    auth, _ = issue_authorization()
    authorization_set_status(actor=None, authorization=auth, to=AuthorizationStatus.CASSADA, reason="Cassação")
    with pytest.raises(InvalidTransition):
        authorization_set_status(actor=None, authorization=auth, to=AuthorizationStatus.ACTIVE, reason="x")


@pytest.mark.django_db
def test_company_documents_are_not_asked_of_a_natural_person(arapora):
    from licensing.applications.selectors import _applies_to_holder_type

    items = [i for i in arapora.documents("taxi", "new") if _applies_to_holder_type(i, "pf")]
    codes = {i["code"] for i in items}
    assert codes and not any(code.startswith("pj_") for code in codes)
    assert any(i.get("holder_types") == ["pj"] for i in arapora.documents("taxi", "new"))
