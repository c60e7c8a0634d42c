"""Reads of applications: who sees which, renewals filed in time, the ranking, required documents."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from fleet import rules as fleet_rules
from licensing.applications import rules
from licensing.applications.models import (
    OPEN_APPLICATION_STATUSES,
    Application,
    ApplicationAuxiliary,
    ApplicationDocument,
    ApplicationKind,
    ApplicationStatus,
    DocumentStatus,
)
from licensing.fees.services import application_tff
from licensing.grants.models import (
    CURRENT_STATUSES,
    Authorization,
)
from portal import regulation
from portal.roles import Role

# --- applications ----------------------------------------------------------------------------------


def applications_visible_to(user):
    """Applications a person may see: clerks all, agents those they inspect, applicants their own."""
    from licensing.applications.models import Application
    from portal.roles import has_role

    qs = Application.objects.all()
    if has_role(user, Role.CLERK, Role.ADMIN):
        return qs
    if has_role(user, Role.AGENT):
        return qs.filter(inspections__agent=user).distinct()
    return qs.filter(applicant=user)


def renewals_filed_in_time(authorization_ids: list[int]) -> set[int]:
    """Grants among ``authorization_ids`` whose renewal was filed (protocolled) by the last day
    of validity and is not decided yet (PL 015/2025 art. 18, §6 style: valid until decided)."""
    from django.db.models import F

    from licensing.applications.models import Application

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
    from licensing.applications.models import Application, ApplicationStatus
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
        cnh_years=fleet_rules.full_years_between(a.cnh_first_issued, today) if a.cnh_first_issued else 0,
        vehicle_year=a.vehicle.manufacture_year if a.vehicle else 0, cnh_points=a.cnh_points,
        schooling=a.schooling, dependents=a.dependents, bid=a.bid_amount, submitted_at=a.submitted_at)
        for a in apps]
    return Ranking(modality, criteria, rules.rank(entries, criteria), slots, current, free, basis)


# --- required documents ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RequiredDocument:
    code: str          # the upload's type: pack code, or "code:auxN" for an auxiliary driver
    base_code: str
    label: str
    legal_basis: str
    auxiliary: ApplicationAuxiliary | None = None

    def as_dict(self) -> dict:
        return {"code": self.code, "label": self.label, "legal_basis": self.legal_basis}


def required_documents(application: Application, auxiliaries: list | None = None) -> list[RequiredDocument]:
    """The pack's checklist for the holder and for each auxiliary driver of the application."""
    pack = regulation.current()
    out = [
        RequiredDocument(d["code"], d["code"], d["label"], d["legal_basis"])
        for d in pack.documents(application.modality, application.kind, "holder")
        if _applies_to_holder_type(d)
    ]
    auxiliaries = auxiliaries if auxiliaries is not None else list(application.auxiliaries.all())
    aux_docs = pack.documents(application.modality, application.kind, "auxiliary")
    for aux in auxiliaries:
        for d in aux_docs:
            out.append(RequiredDocument(
                f"{d['code']}:{aux.code_suffix}", d["code"],
                f"{d['label']} — condutor auxiliar {aux.position}: {aux.name}", d["legal_basis"], aux,
            ))
    return out


def document_label(application: Application, code: str, items: list[RequiredDocument] | None = None) -> str:
    """The checklist label of an upload's type ("cnh_ear:aux1" -> "CNH com EAR — condutor auxiliar 1: …"),
    for notices and histories; a code no longer in the checklist still gets the pack's label."""
    for item in items if items is not None else required_documents(application):
        if item.code == code:
            return item.label
    base, _, suffix = (code or "").partition(":")
    labels = {d["code"]: d["label"] for d in regulation.current().data.get("documents", [])}
    label = labels.get(base, base.replace("_", " "))
    return f"{label} — condutor auxiliar {suffix[3:]}" if suffix.startswith("aux") else label


def _applies_to_holder_type(item: dict) -> bool:
    """Items marked for a kind of holder (pf / pj) apply only to it; applicants here are natural persons."""
    kinds = item.get("holder_types")
    return not kinds or "pf" in kinds


def current_documents(application: Application) -> dict[str, ApplicationDocument]:
    return {d.type: d for d in application.documents.filter(superseded_by__isnull=True)}


def _receipt_waived_by_paid_tff(application: Application) -> str:
    """The code of the TFF receipt item when the DAM of the TFF is paid (the portal knows it)."""
    tff = application_tff(application)
    return tff.receipt_code if tff is not None and tff.settlement.receipt_waived else ""


def approval_blockers(application: Application) -> list[str]:
    """Why the application cannot be granted yet (empty = it can)."""
    out = []
    sent = current_documents(application)
    tff = application_tff(application)
    for item in required_documents(application):
        doc = sent.get(item.code)
        if tff is not None and item.code == tff.receipt_code:
            if not tff.settlement.settled:
                out.append(f"{tff.settlement.violation.message} ({tff.settlement.violation.legal_basis})")
            continue
        if doc is None or doc.status != DocumentStatus.ACCEPTED:
            out.append(f"Documento não aceito: {item.label}.")
    inspection = application.inspections.order_by("-scheduled_for", "-id").first()
    if inspection is None or not inspection.has_result:
        out.append("A vistoria do veículo não foi realizada.")
    elif not inspection.approved:
        out.append("A vistoria do veículo foi reprovada.")
    return out


# --- plate conflicts --------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlateConflict:
    """Other people's claims on the plate an application declares: their open applications and a
    grant in force. Vehicle rows are one per (plate, owner), so a second declaration never
    overwrites the first; the clerk settles which is true against the CRLV."""

    plate: str
    applications: list  # Application, oldest first
    grant: Authorization | None

    def __bool__(self) -> bool:
        return bool(self.applications) or self.grant is not None


def plate_conflict(application: Application) -> PlateConflict | None:
    if application.vehicle_id is None:
        return None
    plate = application.vehicle.plate
    others = list(Application.objects.filter(vehicle__plate=plate, status__in=OPEN_APPLICATION_STATUSES)
                  .exclude(applicant_id=application.applicant_id).select_related("applicant", "vehicle")
                  .order_by("submitted_at", "id"))
    grant = (Authorization.objects.filter(vehicle__plate=plate, status__in=CURRENT_STATUSES)
             .exclude(holder_id=application.applicant_id).select_related("holder").first())
    found = PlateConflict(application.vehicle.display_plate, others, grant)
    return found if found else None
