"""Reads over grants shared by views, API and other apps."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from functools import cached_property

from django.db.models import Q

from licensing.models import CURRENT_STATUSES, Alvara, Authorization, GrantBar
from portal.validators import normalize_plate, only_digits


def current_authorization_for_plate(plate: str) -> Authorization | None:
    return (
        Authorization.objects.select_related("holder", "vehicle")
        .filter(vehicle__plate=normalize_plate(plate), status__in=CURRENT_STATUSES)
        .first()
    )


def latest_authorization_for_plate(plate: str) -> Authorization | None:
    return (
        Authorization.objects.select_related("holder", "vehicle")
        .filter(vehicle__plate=normalize_plate(plate))
        .order_by("-issued_at", "-id")
        .first()
    )


def current_alvaras(authorization: Authorization):
    return authorization.alvaras.filter(status__in=["active", "suspended", "retained"]).select_related("person")


def active_bar(cpf: str, on: date) -> GrantBar | None:
    digits = only_digits(cpf)
    if not digits:
        return None
    return (
        GrantBar.objects.filter(cpf=digits, lifted_on__isnull=True)
        .filter(Q(until__isnull=True) | Q(until__gte=on))
        .order_by("-until")
        .first()
    )


def count_current_grants(modality: str) -> int:
    return Authorization.objects.filter(modality=modality, status__in=CURRENT_STATUSES).count()


def find_document_by_code(code: str):
    """An issued authorization or alvará by its verification code (None if unknown)."""
    auth = Authorization.objects.select_related("holder", "vehicle").filter(verification_code=code).first()
    if auth:
        return auth
    return Alvara.objects.select_related("authorization", "person", "vehicle", "authorization__vehicle").filter(
        verification_code=code
    ).first()


# --- applications ----------------------------------------------------------------------------------


def applications_visible_to(user):
    """Applications a person may see: clerks all, agents those they inspect, applicants their own."""
    from licensing.models import Application
    from portal.roles import Role, has_role

    qs = Application.objects.all()
    if has_role(user, Role.CLERK, Role.ADMIN):
        return qs
    if has_role(user, Role.AGENT):
        return qs.filter(inspections__agent=user).distinct()
    return qs.filter(applicant=user)


def can_see_grant(user, authorization) -> bool:
    """The grant act: the holder and staff only (an auxiliary driver sees their own alvará)."""
    from portal.roles import STAFF_ROLES, has_role

    if not getattr(user, "is_authenticated", False):
        return False
    return has_role(user, *STAFF_ROLES) or authorization.holder_id == user.pk


def can_see_alvara(user, alvara) -> bool:
    """An alvará: staff, the holder of its grant, and the driver it names."""
    return can_see_grant(user, alvara.authorization) or (
        getattr(user, "is_authenticated", False) and alvara.person_id == user.pk)


def renewals_filed_in_time(authorization_ids: list[int]) -> set[int]:
    """Grants among ``authorization_ids`` whose renewal was filed (protocolled) by the last day
    of validity and is not decided yet (PL 015/2025 art. 18, §6 style: valid until decided)."""
    from django.db.models import F

    from licensing.models import Application, ApplicationKind, ApplicationStatus

    undecided = (ApplicationStatus.SUBMITTED, ApplicationStatus.IN_REVIEW, ApplicationStatus.REQUIREMENT,
                 ApplicationStatus.INSPECTION_SCHEDULED)
    return set(
        Application.objects.filter(
            kind=ApplicationKind.RENEWAL, status__in=undecided, previous_authorization_id__in=authorization_ids,
            submitted_at__date__lte=F("previous_authorization__valid_until"),
        ).values_list("previous_authorization_id", flat=True)
    )


@dataclass(frozen=True)
class Ranking:
    """The pending requests of a modality in the pack's order, with the free places of the quota."""

    modality: str
    criteria: list[str]
    entries: list  # rules.RankingEntry, best first; ``key`` is the Application
    slots: int | None
    current: int
    free: int | None
    quota_basis: str

    @property
    def new_requests(self) -> int:
        return sum(1 for e in self.entries if not e.renewal)

    @property
    def exceeds(self) -> bool:
        """More new requests than free places (a renewal keeps its own place, outside the count)."""
        return self.free is not None and self.new_requests > self.free

    def position_of(self, application_id: int) -> int | None:
        return next((i for i, e in enumerate(self.entries, start=1) if e.key.pk == application_id), None)

    @cached_property
    def _new_rank(self) -> list[int]:
        """For each position, how many new requests rank at or above it."""
        out, n = [], 0
        for e in self.entries:
            n += 0 if e.renewal else 1
            out.append(n)
        return out

    def within(self, position: int) -> bool:
        """Whether the request at ``position`` fits in the free places: renewals always do; a new
        request does when fewer new requests than the free places rank ahead of it."""
        if self.free is None or self.entries[position - 1].renewal:
            return True
        return self._new_rank[position - 1] <= self.free


def pending_ranking(modality: str) -> Ranking:
    """Rank the protocolled, undecided requests of a modality by the pack's criteria."""
    from licensing import rules
    from licensing.models import OPEN_APPLICATION_STATUSES, Application, ApplicationStatus
    from portal import regulation

    pack = regulation.current()
    today = pack.today()
    criteria = list(pack.value("ranking.criteria", modality) or ["registration_oldest"])
    slots, basis = rules.grant_slots(pack.population, pack.param("quota.inhabitants_per_slot", modality),
                                     pack.param("quota.fixed_slots", modality))
    current = Authorization.objects.filter(modality=modality, status__in=CURRENT_STATUSES).count()
    free = None if slots is None else max(slots - current, 0)
    apps = list(Application.objects.filter(modality=modality, status__in=OPEN_APPLICATION_STATUSES)
                .exclude(status=ApplicationStatus.DRAFT).select_related("applicant", "vehicle"))
    entries = [rules.RankingEntry(
        key=a, renewal=a.kind == "renewal",
        cnh_years=rules.full_years_between(a.cnh_first_issued, today) if a.cnh_first_issued else 0,
        vehicle_year=a.vehicle.manufacture_year if a.vehicle else 0, cnh_points=a.cnh_points,
        schooling=a.schooling, dependents=a.dependents, bid=a.bid_amount, submitted_at=a.submitted_at)
        for a in apps]
    return Ranking(modality, criteria, rules.rank(entries, criteria), slots, current, free, basis)
