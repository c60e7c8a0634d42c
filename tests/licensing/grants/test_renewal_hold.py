"""A renewal filed in time keeps the grant valid until decided (PL 015/2025 art. 18, §6)."""

from datetime import timedelta

import pytest

from licensing.grants import jobs
from licensing.models import Application, Authorization
from tests.licensing.applications.helpers import (
    create_and_submit,
    open_call,
    review_all_and_inspect,
)


@pytest.mark.django_db
@pytest.mark.parametrize("filed_days_before_expiry,kept", [(0, True), (-1, False)])
def test_renewal_filed_by_the_last_day_keeps_the_grant(itagiba, api, applicant, clerk, agent,
                                                       filed_days_before_expiry, kept):
    open_call("taxi")
    first = create_and_submit(api, applicant)
    review_all_and_inspect(api, clerk, agent, first["id"])
    granted = api(clerk).post(f"/api/v1/applications/{first['id']}/approve/").json()["authorization"]
    plate = Application.objects.get(pk=first["id"]).vehicle.plate
    from tests.factories import backdate_issue

    backdate_issue(Authorization.objects.get(pk=granted["id"]), itagiba.today() - timedelta(days=365))
    renewal = create_and_submit(api, applicant, kind="renewal", vehicle={"plate": plate})
    auth = Authorization.objects.get(pk=granted["id"])
    # the grant ended yesterday; the renewal was protocolled on its last day (or the day after)
    yesterday = itagiba.today() - timedelta(days=1)
    Authorization.objects.filter(pk=auth.pk).update(valid_from=yesterday - timedelta(days=364), valid_until=yesterday)
    filed = yesterday - timedelta(days=filed_days_before_expiry)
    Application.objects.filter(pk=renewal["id"]).update(
        submitted_at=auth.issued_at.replace(year=filed.year, month=filed.month, day=filed.day, hour=15))
    jobs.expire_grants()
    auth.refresh_from_db()
    assert auth.status == ("active" if kept else "expired")
