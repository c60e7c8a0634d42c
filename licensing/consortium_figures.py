"""The licensing figures of the consortium page (portal.consortium), for every municipality
in one query each: grants in force per modality, applications waiting, fees collected.

Counts and sums only; across municipalities on purpose (``all_tenants``)."""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal

from django.conf import settings
from django.db.models import Count, Sum

PENDING_APPLICATION_STATUSES = ("submitted", "in_review", "requirement", "inspection_scheduled")


def _ids(municipalities: list[tuple[int, int]]) -> list[int]:
    return [pk for pk, _ in municipalities]


def grants_in_force(municipalities: list[tuple[int, int]]) -> dict[int, dict[str, int]]:
    from licensing.grants.models import CURRENT_STATUSES, Authorization, Modality

    labels = dict(Modality.choices)
    out: dict[int, dict[str, int]] = defaultdict(dict)
    rows = (Authorization.all_tenants.using(settings.ADMIN_DATABASE).filter(municipality_id__in=_ids(municipalities),
                                             status__in=[str(s) for s in CURRENT_STATUSES])
            .values("municipality_id", "modality").annotate(n=Count("id")).order_by())
    for row in rows:
        out[row["municipality_id"]][str(labels.get(row["modality"], row["modality"]))] = row["n"]
    return dict(out)


def applications_pending(municipalities: list[tuple[int, int]]) -> dict[int, int]:
    from licensing.applications.models import Application

    rows = (Application.all_tenants.using(settings.ADMIN_DATABASE).filter(municipality_id__in=_ids(municipalities),
                                           status__in=PENDING_APPLICATION_STATUSES)
            .values("municipality_id").annotate(n=Count("id")).order_by())
    return {row["municipality_id"]: row["n"] for row in rows}


def fees_collected(municipalities: list[tuple[int, int]]) -> dict[int, Decimal]:
    """DAMs paid this year (fees and the fines issued through the fees room)."""
    from licensing.fees.models import Fee, FeeStatus

    by_year: dict[int, list[int]] = defaultdict(list)
    for pk, year in municipalities:
        by_year[year].append(pk)
    out: dict[int, Decimal] = {}
    for year, ids in by_year.items():
        rows = (Fee.all_tenants.using(settings.ADMIN_DATABASE).filter(municipality_id__in=ids, status=FeeStatus.PAID, paid_on__year=year)
                .values("municipality_id").annotate(total=Sum("amount")).order_by())
        out.update({row["municipality_id"]: row["total"] or Decimal("0") for row in rows})
    return out


def register() -> None:
    from portal import registry

    registry.register_figure("grants_in_force", "Outorgas vigentes", grants_in_force, order=10)
    registry.register_figure("applications_pending", "Requerimentos em andamento", applications_pending, order=20)
    registry.register_figure("fees_collected", "Arrecadado no ano (DAM)", fees_collected, order=40, money=True)
