"""Reads of a grant's life shared by the HTML views, the API and other apps."""

from __future__ import annotations

from django.db.models import Count, Prefetch, Q, QuerySet
from django.http import Http404

from licensing.models import CURRENT_STATUSES, Authorization
from licensing.models_lifecycle import (
    AssignmentStatus,
    AuxiliaryDriver,
    AuxiliaryStatus,
    Fee,
    FeeKind,
    FeeStatus,
    LeaveOfAbsence,
    LifecycleRequest,
    Preposto,
    RequestKind,
    RequestStatus,
    StandAssignment,
    TaxiStand,
)
from portal.roles import Role, has_role

DESK_ROLES = (Role.CLERK, Role.ADMIN)
INSPECTION_ROLES = (Role.CLERK, Role.ADMIN, Role.AGENT)


def is_desk(user) -> bool:
    return has_role(user, *DESK_ROLES)


def authorizations_visible_to(user) -> QuerySet[Authorization]:
    qs = Authorization.objects.select_related("holder", "vehicle")
    if is_desk(user):
        return qs
    return qs.filter(holder=user)


def authorization_for(user, pk: int) -> Authorization:
    """The grant if the user may act on it (holder or desk); 404 otherwise."""
    auth = authorizations_visible_to(user).filter(pk=pk).first()
    if auth is None:
        raise Http404("Autorização não encontrada.")
    return auth


def requests_base() -> QuerySet[LifecycleRequest]:
    return LifecycleRequest.objects.select_related(
        "authorization", "authorization__holder", "authorization__vehicle", "filed_by", "decided_by"
    )


def requests_visible_to(user) -> QuerySet[LifecycleRequest]:
    qs = requests_base()
    if has_role(user, *DESK_ROLES):
        return qs
    if has_role(user, Role.AGENT):
        return qs.filter(kind=RequestKind.SUBSTITUTION)
    return qs.filter(authorization__holder=user)


def request_for(user, pk: int) -> LifecycleRequest:
    req = requests_visible_to(user).filter(pk=pk).first()
    if req is None:
        raise Http404("Pedido não encontrado.")
    return req


def requests_for_queue(*, status: str = "", kind: str = "", q: str = "", late: bool = False) -> QuerySet[LifecycleRequest]:
    """The clerk's queue: open first, oldest first; filters by status, kind, text."""
    qs = requests_base()
    if status in RequestStatus.values:
        qs = qs.filter(status=status)
    if kind in RequestKind.values:
        qs = qs.filter(kind=kind)
    if late:
        qs = qs.filter(late=True)
    if q:
        q = q.strip()
        qs = qs.filter(Q(protocol__icontains=q) | Q(authorization__number__icontains=q)
                       | Q(authorization__holder__name__icontains=q) | Q(authorization__vehicle__plate__icontains=q.upper()))
    return qs.order_by("filed_at", "id") if status == RequestStatus.FILED else qs.order_by("-filed_at", "-id")


def queue_counts() -> dict[str, int]:
    rows = LifecycleRequest.objects.values("status").annotate(n=Count("id"))
    return {r["status"]: r["n"] for r in rows}


def holder_overview(authorization: Authorization) -> dict:
    """Everything the holder's page shows about one grant (a fixed number of queries)."""
    alvaras = list(authorization.alvaras.select_related("person", "vehicle", "supersedes").order_by("-issued_at", "-id"))
    auxiliaries = list(AuxiliaryDriver.objects.filter(authorization=authorization).select_related("person")
                       .order_by("status", "added_on", "id"))
    assignment = (StandAssignment.objects.filter(authorization=authorization,
                                                 status__in=[AssignmentStatus.ACTIVE, AssignmentStatus.WAITING])
                  .select_related("stand").first())
    return {
        "authorization": authorization,
        "alvaras": alvaras,
        "auxiliaries": auxiliaries,
        "active_auxiliaries": [a for a in auxiliaries if a.status == AuxiliaryStatus.ACTIVE],
        "assignment": assignment,
        "fees": list(Fee.objects.filter(authorization=authorization).order_by("-issued_at", "-id")),
        "requests": list(LifecycleRequest.objects.filter(authorization=authorization).order_by("-filed_at", "-id")),
        "leaves": list(LeaveOfAbsence.objects.filter(authorization=authorization).order_by("-starts_on")),
        "prepostos": list(Preposto.objects.filter(authorization=authorization).select_related("person")),
    }


def holder_authorizations(user) -> list[Authorization]:
    """The user's grants, current first."""
    qs = Authorization.objects.filter(holder=user).select_related("vehicle")
    return sorted(qs, key=lambda a: (a.status not in CURRENT_STATUSES, -a.pk))


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


def fees_visible_to(user) -> QuerySet[Fee]:
    qs = Fee.objects.select_related("holder", "authorization", "paid_marked_by")
    if is_desk(user):
        return qs
    return qs.filter(holder=user)


def fee_for(user, pk: int) -> Fee:
    fee = fees_visible_to(user).filter(pk=pk).first()
    if fee is None:
        raise Http404("DAM não encontrado.")
    return fee


def fees_for_desk(*, status: str = "", kind: str = "", q: str = "") -> QuerySet[Fee]:
    qs = Fee.objects.select_related("holder", "authorization", "paid_marked_by")
    if status in FeeStatus.values:
        qs = qs.filter(status=status)
    if kind in FeeKind.values:
        qs = qs.filter(kind=kind)
    if q:
        qs = qs.filter(Q(number__icontains=q) | Q(holder__name__icontains=q) | Q(authorization__number__icontains=q))
    return qs.order_by("-issued_at", "-id")


def tff_outstanding(authorization: Authorization, year: int | None = None) -> Fee | None:
    """An issued and unpaid TFF of the grant (for the grant/renewal decision: not granted unpaid)."""
    qs = Fee.objects.filter(authorization=authorization, kind=FeeKind.TFF, status=FeeStatus.ISSUED)
    if year:
        qs = qs.filter(reference_year=year)
    return qs.order_by("due_date").first()


def tff_paid(authorization: Authorization, year: int) -> bool:
    return Fee.objects.filter(authorization=authorization, kind=FeeKind.TFF, reference_year=year,
                              status=FeeStatus.PAID).exists()
