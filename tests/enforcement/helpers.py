"""Helpers shared by enforcement tests."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from django.utils import timezone

from portal import regulation

# A Tuesday without holidays around it, in the past of any run of these tests.
D = date(2026, 6, 16)


def at(day, hour=10) -> str:
    """ISO datetime with the municipality's offset for a local date."""
    tz = regulation.current().tz
    moment = datetime.combine(day, time(hour, 0), tzinfo=tz)
    now = timezone.now().astimezone(tz)
    if moment > now:  # early in the local day "today at 10:00" is still ahead: use a moment ago
        moment = now - timedelta(minutes=1)
    return moment.isoformat()


def due(start, days: int, key: str = "appeal.days"):
    """The last day of a period of the active pack counted from ``start`` (next business day
    where the pack says so), as the service counts it."""
    from enforcement.services import period

    pack = regulation.current()
    return period(pack, start, days, key=key, modality=None, start_label="ciência")[0]


def regulate_all(day=None):
    """The administrator records the regulations that fix every value the law leaves to them
    (the pack's example values, dated before the infractions of the tests)."""
    from datetime import date
    from decimal import Decimal

    from django.contrib.auth import get_user_model

    from enforcement import services
    from tests.conftest import make_user

    pack = regulation.current()
    username = f"admin-reg-{pack.slug}"
    admin = get_user_model().objects.filter(username=username).first() or make_user(username, "admin")
    for key, _label, _basis in services.regulation_keys(pack):
        if key == "fiscal_unit":
            value = Decimal(str(pack.fiscal_unit["value"]))
        else:
            raw = pack.infraction(key.split(":", 1)[1]).get("penalties") or {}
            if raw.get("fine_amount"):
                value = Decimal(str(raw["fine_amount"]))
            elif raw.get("fine_units") is not None and pack.fiscal_unit:
                value = Decimal(str(raw["fine_units"])) * Decimal(str(pack.fiscal_unit["value"]))
            else:
                value = Decimal("100.00")
        services.regulation_record(actor=admin, key=key, act_number=f"Decreto nº {len(key)}/2020",
                                   act_date=day or date(2020, 1, 1), value=value)


def other_judge(username="julgador2"):
    """Another julgador: the appeal is decided by someone other than the first instance's."""
    from django.contrib.auth import get_user_model

    from tests.conftest import make_user

    return get_user_model().objects.filter(username=username).first() or make_user(username, "julgador")
