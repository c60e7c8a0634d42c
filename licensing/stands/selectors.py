"""Reads of stands."""

from __future__ import annotations

from django.db.models import Count, Prefetch, Q, QuerySet

from licensing.stands.models import AssignmentStatus, StandAssignment, TaxiStand


def stands_with_occupancy() -> QuerySet[TaxiStand]:
    active = StandAssignment.objects.filter(status=AssignmentStatus.ACTIVE).select_related(
        "authorization__holder", "authorization__vehicle").order_by("registered_on", "id")
    return (
        TaxiStand.objects.filter(is_active=True)
        .annotate(occupied=Count("assignments", filter=Q(assignments__status=AssignmentStatus.ACTIVE)),
                  waiting=Count("assignments", filter=Q(assignments__status=AssignmentStatus.WAITING)))
        .prefetch_related(Prefetch("assignments", queryset=active, to_attr="active_assignments"))
        .order_by("name")
    )


def stand_waiting(stand: TaxiStand) -> QuerySet[StandAssignment]:
    return stand.assignments.filter(status=AssignmentStatus.WAITING).select_related(
        "authorization__holder", "authorization__vehicle").order_by("registered_on", "id")
