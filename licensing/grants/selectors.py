"""Reads of grants and alvarás, and who may see them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime

from django.db.models import Q, QuerySet
from django.http import Http404

from fleet.rules import admissible_until, over_max_age, vehicle_age_years
from licensing.grants.models import (
    CURRENT_STATUSES,
    Alvara,
    AlvaraStatus,
    Authorization,
    AuthorizationStatus,
    GrantBar,
)
from licensing.grants.rules import add_years, slots_for
from portal import regulation
from portal.models import JobRun
from portal.roles import Role, has_role
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


def authorization_for_plate_at(plate: str, at: datetime, on: date) -> Authorization | None:
    """The grant that held the plate at the moment ``at`` (local date ``on``): within its term
    and in force then — still current, or ended (cancelled, expired, cassada...) only after
    ``at``. Without one, the latest grant on the plate whose term had begun by then (an expired
    or ended grant whose holder kept the vehicle on the street); and for a moment before any
    grant on the plate began, the grant in force now (the vehicle the agent found in service
    under it). Several people may have declared the plate (one vehicle row each); only a grant
    says whose vehicle it is, never a declaration."""
    plate = normalize_plate(plate)
    begun = Authorization.objects.select_related("holder", "vehicle").filter(
        vehicle__plate=plate, valid_from__lte=on).order_by("-valid_from", "-issued_at", "-id")
    in_force = begun.filter(valid_until__gte=on).filter(
        Q(status__in=CURRENT_STATUSES) | Q(status_changed_at__gt=at)).first()
    return in_force or begun.first() or current_authorization_for_plate(plate)


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


def holder_authorizations(user) -> list[Authorization]:
    """The user's grants, current first."""
    qs = Authorization.objects.filter(holder=user).select_related("vehicle")
    return sorted(qs, key=lambda a: (a.status not in CURRENT_STATUSES, -a.pk))


def current_job_run(name: str) -> JobRun | None:
    """The run of ``name`` in progress (created by ``portal.jobs.run_job``)."""
    return JobRun.objects.filter(name=name, finished_at__isnull=True).order_by("-id").first()


# --- vehicle age -----------------------------------------------------------------------------
@dataclass(frozen=True)
class AgedVehicle:
    authorization: Authorization
    age: int
    max_age: int
    basis: str
    legal_basis: str

    @property
    def vehicle(self):
        return self.authorization.vehicle

    @property
    def over(self) -> bool:
        """Past the maximum age: refused at every door, the job orders its replacement."""
        return over_max_age(self.age, self.max_age)

    @property
    def substitute_by(self) -> date | None:
        """Last day the vehicle is admissible (a timely substitution is made by then)."""
        v = self.vehicle
        return admissible_until(self.basis, v.manufacture_year, v.first_registration_date, self.max_age)


def _age_filter(pack, today: date, *, over_only: bool = False) -> Q | None:
    """Current grants whose vehicle reached the pack's maximum age (one Q per modality); with
    ``over_only``, those past it (what the entry rule refuses: fleet.rules.over_max_age)."""
    clauses = Q()
    any_rule = False
    for modality in pack.modalities:
        max_age = pack.value("vehicle.max_age_years", modality)
        if max_age is None:
            continue
        any_rule = True
        basis = pack.value("vehicle.age_basis", modality, default="manufacture_year")
        limit = int(max_age) + (1 if over_only else 0)
        by_year = Q(vehicle__manufacture_year__lte=today.year - limit)
        if basis == "first_registration":
            cutoff = add_years(today, -limit)
            by_basis = Q(vehicle__first_registration_date__lte=cutoff) | (
                Q(vehicle__first_registration_date__isnull=True) & by_year
            )
        else:
            by_basis = by_year
        clauses |= Q(modality=modality) & by_basis
    return clauses if any_rule else None


def aged_vehicles_queryset(today: date | None = None, *, over_only: bool = False):
    """Current grants whose vehicle reached the maximum age (the clerk's list: substitution
    due by ``substitute_by``); with ``over_only``, those past it (the job's orders)."""
    pack = regulation.current()
    today = today or pack.today()
    condition = _age_filter(pack, today, over_only=over_only)
    # The vehicle's own municipality as a condition: the tenancy scope bounds the grants only,
    # and the age filter on the vehicles made PostgreSQL read every municipality's vehicles
    # (row-level security drops the others' only after reading them).
    qs = Authorization.objects.select_related("vehicle").filter(
        status__in=CURRENT_STATUSES, vehicle__isnull=False, vehicle__municipality_id=pack.municipality_id
    )
    if condition is None:
        return qs.none()
    return qs.filter(condition).order_by("vehicle__manufacture_year", "vehicle__first_registration_date", "pk")


def describe_aged(authorizations: Iterable[Authorization], today: date | None = None) -> list[AgedVehicle]:
    pack = regulation.current()
    today = today or pack.today()
    out = []
    for auth in authorizations:
        param = pack.param("vehicle.max_age_years", auth.modality)
        basis = pack.value("vehicle.age_basis", auth.modality, default="manufacture_year")
        vehicle = auth.vehicle
        age = vehicle_age_years(basis, vehicle.manufacture_year, vehicle.first_registration_date, today)
        out.append(AgedVehicle(auth, age, int(param.value), basis, param.legal_basis))
    return out


# --- quota -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class QuotaState:
    modality: str
    label: str
    population: int
    slots: int
    current: int
    legal_basis: str

    @property
    def exceeded(self) -> bool:
        return self.current > self.slots


def quota_states() -> list[QuotaState]:
    pack = regulation.current()
    out = []
    for modality in pack.in_force_modalities:  # a modality waiting for its decree has no slots yet
        found = slots_for(pack, modality)
        if found is None:
            continue
        slots, basis = found
        out.append(QuotaState(modality, pack.modality_label(modality), pack.population, slots,
                              count_current_grants(modality), basis))
    return out


# --- the chain of acts of a grant ----------------------------------------------------------------
@dataclass(frozen=True)
class ChainLink:
    """One issued document of a grant: the act, an act of amendment or an alvará."""

    kind: str  # "authorization" | "amendment" | "alvara"
    document: str
    number: str
    issued_at: object
    what: str
    status: str
    in_force: bool
    pdf_url: str


def _grant_status_words(auth: Authorization) -> tuple[str, bool]:
    if auth.status == AuthorizationStatus.ACTIVE:
        return "em vigor", True
    if auth.status == AuthorizationStatus.SUSPENDED:
        return "em vigor (suspensa)", True
    return auth.get_status_display(), False


def act_chain(authorization: Authorization) -> list[ChainLink]:
    """The act, each act of amendment and each alvará of the grant, oldest first, each with what it
    did and whether it is in force (an issued document is never edited: changes are new links)."""
    from django.urls import reverse

    status, current = _grant_status_words(authorization)
    links = [ChainLink("authorization", authorization.act_name, authorization.number, authorization.issued_at,
                       f"Outorga ({authorization.get_modality_display()}, de {authorization.valid_from:%d/%m/%Y} "
                       f"a {authorization.valid_until:%d/%m/%Y})", status, current,
                       reverse("api-authorization-act-pdf", args=[authorization.pk]))]
    for a in authorization.amendments.order_by("issued_at", "id"):
        changes = "; ".join(f"{c['label']}: {c.get('before') or '—'} → {c.get('after') or '—'}" for c in a.changes)
        links.append(ChainLink("amendment", a.act_name, a.number, a.issued_at,
                               f"{a.get_kind_display().capitalize()}" + (f" — {changes}" if changes else ""),
                               status, current, reverse("api-amendment-pdf", args=[a.pk])))
    for al in authorization.alvaras.select_related("person", "supersedes").order_by("issued_at", "id"):
        what = f"{'Condutor auxiliar' if al.is_auxiliary else 'Titular'}: {al.person.display_name}"
        if al.supersedes_id:
            what += f"; substitui o nº {al.supersedes.number}"
        in_force = al.status == AlvaraStatus.ACTIVE and current
        words = "em vigor" if in_force else al.get_status_display()
        links.append(ChainLink("alvara", al.doc_name, al.number, al.issued_at, what, words, in_force,
                               reverse("api-alvara-pdf", args=[al.pk])))
    return sorted(links, key=lambda link: link.issued_at)


# --- public verification by code (the cold path of the QR code) ------------------------------
AUTHORIZATION_VERIFICATION_COLUMNS = (
    "id", "number", "act_name", "modality", "status", "valid_until", "suspended_until", "verification_code",
    "legal_basis", "holder__name", "holder__first_name", "holder__last_name", "company_name", "vehicle_id", "vehicle__plate",
    "vehicle__make", "vehicle__model", "vehicle__color",
)


ALVARA_VERIFICATION_COLUMNS = (
    "id", "number", "doc_name", "status", "valid_until", "verification_code", "legal_basis", "person_id",
    "person__name", "person__first_name", "person__last_name", "vehicle_id", "vehicle__plate", "vehicle__make",
    "vehicle__model", "vehicle__color", "authorization_id", "authorization__status", "authorization__valid_until",
    "authorization__modality", "authorization__company_name", "authorization__holder__name",
    "authorization__holder__first_name", "authorization__holder__last_name", "authorization__vehicle_id",
    "authorization__vehicle__plate", "authorization__vehicle__make", "authorization__vehicle__model",
    "authorization__vehicle__color",
)


def _issued_pdf(model, kind: str):
    """The hash, the signed flag and the signer of the stored PDF of each row (portal.issued,
    one per object and kind), as one subquery giving the JSON text of ``{"sha256", "signed",
    "signer"}``, or None.

    One subquery, not one per column: the verification's row is its one query, and each
    subquery is one more index probe and plan node for PostgreSQL to set up on every QR code
    (three of them cost ~20 µs of the server's ~135 µs per execution, measured on the bench's
    database). The document is the row's (object_type, object_id, kind); it is found by its
    verification code, which the stored PDF carries as the row does. Why the code: under
    row-level security (the application's role in production) PostgreSQL applies a condition
    that calls a function it does not know to be leakproof — the cast of the row's id to the
    text of object_id — only after the policy, never as an index condition ahead of it; that
    subquery read every stored document of the municipality for each QR code (2 ms at 8.000
    grants, growing with them). A comparison of two text columns is leakproof: the code's index
    reaches the one document."""
    from django.db.models import CharField, F, OuterRef, Subquery, TextField
    from django.db.models.functions import Cast, JSONObject

    from portal.models import IssuedDocument

    return Subquery(IssuedDocument.objects.filter(
        verification_code=OuterRef("verification_code"), object_type=model._meta.label_lower, kind=kind,
        object_id=Cast(OuterRef("pk"), CharField()),
    ).order_by().values(stored=JSONObject(sha256=F("sha256"), signed=F("signed"), signer=F("signer")))[:1],
        output_field=TextField())  # its JSON text: a JSONField's converter cost more than the decoding


def verification_rows(code: str, **annotations):
    """What the public verification of a grant act shows, in one query and no model instance:
    the act's columns, its holder's name, its vehicle, whether it has acts of amendment (then
    the caller takes the full path), the hash and signer of its stored PDF, and the caller's
    ``annotations`` (other rooms' facts about the act: licensing.requests' auxiliary drivers).
    ``code`` is normalized; codes are unique, so no ORDER BY (the model's default ordering
    would add a sort to a one-row lookup)."""
    from django.db.models import Exists, OuterRef

    from licensing.grants.models import Amendment

    return (Authorization.objects.filter(verification_code=code).order_by()
            .annotate(has_amendments=Exists(Amendment.objects.filter(authorization=OuterRef("pk"))),
                      stored_pdf=_issued_pdf(Authorization, "authorization"), **annotations)
            .values(*AUTHORIZATION_VERIFICATION_COLUMNS, "has_amendments", "stored_pdf", *annotations)[:1])


def alvara_verification_rows(code: str, **annotations):
    """verification_rows() of an alvará: its columns, its driver, its vehicle and its grant's
    (the alvará names a vehicle only where the pack's alvará is per vehicle), whether another
    alvará superseded it (then the caller takes the full path, which follows the chain), the
    hash and signer of its stored PDF and the caller's ``annotations`` (the grant's auxiliary
    drivers)."""
    from django.db.models import Exists, OuterRef

    return (Alvara.objects.filter(verification_code=code).order_by()
            .annotate(has_successor=Exists(Alvara.objects.filter(supersedes=OuterRef("pk"))),
                      stored_pdf=_issued_pdf(Alvara, "alvara"), **annotations)
            .values(*ALVARA_VERIFICATION_COLUMNS, "has_successor", "stored_pdf", *annotations)[:1])

