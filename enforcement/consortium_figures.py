"""The enforcement figure of the consortium page: autos de infração lavrados this year, per
municipality (this year in each one's time zone), in one query per distinct year."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db.models import Count


def autos_this_year(municipalities: list[tuple[int, int]]) -> dict[int, int]:
    from enforcement.models import Infraction
    from portal.models import Municipality

    zones = dict(Municipality.objects.filter(pk__in=[pk for pk, _ in municipalities])
                 .values_list("pk", "time_zone"))
    out: dict[int, int] = {}
    # one query per (year, zone): the year starts at midnight of 1 January where the auto was lavrado
    groups: dict[tuple[int, str], list[int]] = defaultdict(list)
    for pk, year in municipalities:
        groups[(year, zones.get(pk) or "America/Sao_Paulo")].append(pk)
    for (year, zone), ids in groups.items():
        tz = ZoneInfo(zone)
        start, end = datetime(year, 1, 1, tzinfo=tz), datetime(year + 1, 1, 1, tzinfo=tz)
        rows = (Infraction.all_tenants.using(settings.ADMIN_DATABASE).filter(municipality_id__in=ids, created_at__gte=start, created_at__lt=end)
                .values("municipality_id").annotate(n=Count("id")).order_by())
        out.update({row["municipality_id"]: row["n"] for row in rows})
    return out


def register() -> None:
    from portal import registry

    registry.register_figure("autos_this_year", "Autos de infração lavrados no ano", autos_this_year, order=30)
