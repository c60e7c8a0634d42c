"""Reads of applications: who sees which, renewals filed in time, the ranking, required documents."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from django.db.models import Q

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
    of validity and is not decided yet (PL 015/2025 art. 18, §6 style: valid until decided) or,
    where the pack says ``publication.extends_validity``, decided after the last publication."""
    from django.db.models import F

    from licensing.applications.models import Application

    undecided = (ApplicationStatus.SUBMITTED, ApplicationStatus.IN_REVIEW, ApplicationStatus.REQUIREMENT,
                 ApplicationStatus.INSPECTION_SCHEDULED)
    in_time = Application.objects.filter(kind=ApplicationKind.RENEWAL, previous_authorization_id__in=authorization_ids,
                                         submitted_at__date__lte=F("previous_authorization__valid_until"))
    held = set(in_time.filter(status__in=undecided).values_list("previous_authorization_id", flat=True))
    pack = regulation.current()
    extends = pack.param("publication.extends_validity")
    if extends is not None and extends.value:
        # decided but the list not yet published: still extended (a granted renewal has already
        # replaced the grant with its successor, so only a refusal leaves a grant to hold)
        from licensing.applications.models import Publication

        last = (Publication.objects.filter(published_on__isnull=False).order_by("-published_on")
                .values_list("published_on", flat=True).first())
        for auth_id, decided_at in in_time.filter(status=ApplicationStatus.REFUSED, decided_at__isnull=False).values_list(
                "previous_authorization_id", "decided_at"):
            decided_on = decided_at.astimezone(pack.tz).date()
            if rules.renewal_held_until_publication(extends=extends, decided_on=decided_on, last_published_on=last):
                held.add(auth_id)
    return held


@dataclass(frozen=True)
class Ranking:
    """The pending requests of a modality in the pack's order, with the free places of the quota.

    Reading of the quota against the priority of renewals (e.g. art. 4, §3 — "não podendo sob
    nenhuma hipótese a quantidade de autorizações vigentes simultaneamente exceder" the
    proportion — against art. 17, §6–7 — renewals first, each group by the criteria, new grants
    only "caso haja saldo de vaga"): where the pack says the quota binds renewals
    (``quota.binds_renewals``), a renewal is no exception to the limit; it only goes first.
    The places open to the pending requests are the slots less the grants in force that no
    pending renewal replaces (a renewal replaces its own grant, and while it is pending that
    grant is extended, not a second place); the requests take them in the ranking's order,
    renewals first, and the ones below the last place are refused. Where the quota does not
    bind renewals, a renewal keeps its own place and only new requests compete for the free
    places (slots less every grant in force)."""

    modality: str
    criteria: list[str]
    entries: list  # rules.RankingEntry, best first; ``key`` is the Application
    slots: int | None
    current: int
    free: int | None  # places open to the requests that compete (see ``renewals_compete``)
    quota_basis: str
    renewals_compete: bool = False

    def _competes(self, entry) -> bool:
        return self.renewals_compete or not entry.renewal

    @property
    def new_requests(self) -> int:
        return sum(1 for e in self.entries if not e.renewal)

    @property
    def competing(self) -> int:
        return sum(1 for e in self.entries if self._competes(e))

    @property
    def exceeds(self) -> bool:
        """More competing requests than free places."""
        return self.free is not None and self.competing > self.free

    def position_of(self, application_id: int) -> int | None:
        return next((i for i, e in enumerate(self.entries, start=1) if e.key.pk == application_id), None)

    @cached_property
    def _competing_rank(self) -> list[int]:
        """For each position, how many competing requests rank at or above it."""
        out, n = [], 0
        for e in self.entries:
            n += 1 if self._competes(e) else 0
            out.append(n)
        return out

    def within(self, position: int) -> bool:
        """Whether the request at ``position`` fits in the free places: a renewal that does not
        compete always does; a competing request does when no more competing requests than the
        free places rank at or above it."""
        if self.free is None or not self._competes(self.entries[position - 1]):
            return True
        return self._competing_rank[position - 1] <= self.free

    def last_within(self):
        """The lowest-ranked competing request that still fits (the one "ahead" of a refused one)."""
        fitting = [e for i, e in enumerate(self.entries, start=1) if self._competes(e) and self.within(i)]
        return fitting[-1] if fitting else None


def proving_items(pack, modality: str) -> dict[str, list[str]]:
    """criterion → codes of the holder's document items that prove it (pack ``[[documents]] proves``)."""
    out: dict[str, list[str]] = {}
    for item in pack.documents(modality, "new", "holder") + pack.documents(modality, "renewal", "holder"):
        for criterion in item.get("proves", []):
            if item["code"] not in out.setdefault(criterion, []):
                out[criterion].append(item["code"])
    return out


def pending_ranking(modality: str) -> Ranking:
    """Rank the protocolled, undecided requests of a modality by the pack's criteria."""
    from licensing.applications.models import Application, ApplicationStatus
    from portal import regulation

    pack = regulation.current()
    today = pack.today()
    criteria = list(pack.value("ranking.criteria", modality) or ["registration_oldest"])
    slots, basis = rules.grant_slots(pack.population, pack.param("quota.inhabitants_per_slot", modality),
                                     pack.param("quota.fixed_slots", modality))
    in_force = Authorization.objects.filter(modality=modality, status__in=CURRENT_STATUSES)
    current = in_force.count()
    apps = list(Application.objects.filter(modality=modality, status__in=OPEN_APPLICATION_STATUSES)
                .exclude(status=ApplicationStatus.DRAFT).select_related("applicant", "vehicle"))
    binds = bool(pack.value("quota.binds_renewals", modality, False))
    if slots is None:
        free = None
    elif binds:
        renewed = {a.previous_authorization_id for a in apps if a.kind == "renewal" and a.previous_authorization_id}
        held = current - (in_force.filter(pk__in=renewed).count() if renewed else 0)
        free = max(slots - held, 0)
    else:
        free = max(slots - current, 0)

    def cnh(a):
        return rules.held_for(a.cnh_first_issued, today) if a.cnh_first_issued else (0, 0, 0)

    proving = proving_items(pack, modality)
    codes = {code for items in proving.values() for code in items}
    statuses: dict[int, dict[str, str]] = {}
    if codes and apps:  # one query for the current version of every proving item of every request
        for app_id, code, doc_status in ApplicationDocument.objects.filter(
                application__in=apps, superseded_by__isnull=True, type__in=codes).values_list(
                "application_id", "type", "status"):
            statuses.setdefault(app_id, {})[code] = doc_status
    judged = list(dict.fromkeys([*criteria, *proving]))
    entries = []
    for a in apps:
        years, months, days = cnh(a)
        mine = statuses.get(a.pk, {})
        proofs = tuple((c, rules.criterion_proof(c, proving.get(c, []), mine)) for c in judged)
        entries.append(rules.RankingEntry(
            key=a, renewal=a.kind == "renewal", cnh_years=years, cnh_months=months, cnh_days=days,
            vehicle_year=a.vehicle.manufacture_year if a.vehicle else 0, cnh_points=a.cnh_points,
            schooling=a.schooling, dependents=a.dependents, bid=a.bid_amount, submitted_at=a.submitted_at,
            proofs=proofs))
    return Ranking(modality, criteria, rules.rank(entries, criteria), slots, current, free, basis,
                   renewals_compete=binds)


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
        if _applies_to_holder_type(d, application.holder_type)
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


def _applies_to_holder_type(item: dict, holder_type: str) -> bool:
    """Items marked for a kind of holder (pf / pj) apply only to it (e.g. Lei 724/2008, art. 4 §1 for a natural
    person, §2 for a company); unmarked items apply to both."""
    kinds = item.get("holder_types")
    return not kinds or (holder_type or "pf") in kinds


def current_documents(application: Application) -> dict[str, ApplicationDocument]:
    return {d.type: d for d in application.documents.filter(superseded_by__isnull=True).select_related(
        "carried_from__application", "carried_from__reviewed_by")}


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


def approval_preview(app) -> dict:
    """What the act issued by approving ``app`` will say (the clerk confirms it first): act,
    holder, vehicle, modality, term and article, and the alvarás that go with it."""
    from datetime import timedelta

    from licensing.grants.rules import add_years

    pack = regulation.current()
    today = pack.today()
    modality = app.modality
    years = int(pack.value("grant.validity_years", modality))
    until = None
    previous = app.previous_authorization if app.kind == ApplicationKind.RENEWAL else None
    if previous is not None:
        until = rules.renewal_valid_until(previous.valid_until, today, years,
                                          pack.param("renewal.extends_term", modality))
    act, alvara = pack.act("authorization"), pack.act("alvara")
    scope = alvara.get("scope", "none")
    auxiliaries = [a.name for a in app.auxiliaries.all()]
    return {"act_name": act.get("name", "Autorização"), "legal_basis": act.get("legal_basis", ""),
            "term_basis": pack.basis("grant.validity_years", modality), "holder": app.applicant.display_name,
            "vehicle": app.vehicle, "modality": pack.modality_label(modality), "valid_from": today,
            "valid_until": until or add_years(today, years) - timedelta(days=1), "years": years,
            "renewal_of": previous, "auxiliaries": auxiliaries,
            "alvaras": [] if scope == "none" else [alvara.get("name", "Alvará")] * (
                1 + (len(auxiliaries) if scope == "driver" else 0))}


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


def accepted_photos(person_ids: list[int], codes: list[str]) -> dict[int, ApplicationDocument]:
    """Each person's latest accepted photograph: a current, not purged file of one of the pack's
    photo items (``codes``), sent for them as holder (their own application) or as an auxiliary
    driver named in an application. Keyed by person id; people without one are absent."""
    if not person_ids or not codes:
        return {}
    docs = (ApplicationDocument.objects
            .filter(code__in=codes, status=DocumentStatus.ACCEPTED, superseded_by__isnull=True, purged_at__isnull=True)
            .filter(Q(auxiliary__isnull=True, application__applicant_id__in=person_ids)
                    | Q(auxiliary__person_id__in=person_ids))
            .exclude(file="")
            .select_related("application", "auxiliary")
            .order_by("-reviewed_at", "-id"))
    out: dict[int, ApplicationDocument] = {}
    for doc in docs:
        person_id = doc.auxiliary.person_id if doc.auxiliary_id else doc.application.applicant_id
        out.setdefault(person_id, doc)
    return out
