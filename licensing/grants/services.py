"""Services over grants and alvarás: issue, status changes, bars. The only writers."""

from __future__ import annotations

from datetime import date, timedelta

from django.db import transaction
from django.utils import timezone

from fleet import rules as fleet_rules
from licensing.grants.models import (
    ALVARA_TRANSITIONS,
    AUTHORIZATION_TRANSITIONS,
    CURRENT_STATUSES,
    Alvara,
    AlvaraStatus,
    Amendment,
    AmendmentKind,
    Authorization,
    AuthorizationStatus,
    GrantBar,
)
from licensing.grants.rules import add_years
from portal import regulation
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import InvalidTransition
from portal.numbering import document_number, verification_code


def freeze_on_commit(obj, kind: str) -> None:
    """Once the issuing transaction commits, a worker renders, signs and stores the document
    (outside the request and its locks); the first download does it if the worker has not yet."""
    from licensing.grants.tasks import freeze_grant_document

    transaction.on_commit(lambda: freeze_grant_document.delay(kind, obj.pk))


def _alvara_validity(pack, valid_from: date, grant_until: date, modality: str) -> date:
    years = pack.value("alvara.validity_years", modality)
    if not years:
        return grant_until
    return min(add_years(valid_from, int(years)) - timedelta(days=1), grant_until)


def vehicle_bond_basis(pack, modality: str) -> str:
    """The article that binds a grant to one vehicle of its holder (one grant per person, on a
    vehicle of their own), else the grant act's basis."""
    return pack.basis("grant.max_per_holder", modality) or pack.act("authorization").get("legal_basis", "")


def ensure_plate_free(*, vehicle, holder, modality: str) -> None:
    """Refuse (409) a grant on ``vehicle``'s plate while another person holds a grant in force on
    that plate. Locks every vehicle row with the plate first, so that two grants on one plate,
    decided at the same moment for two people, are decided one after the other: the second sees
    the first (fleet.rules.plate_in_service)."""
    if vehicle is None:
        return
    from fleet.models import Vehicle

    list(Vehicle.objects.select_for_update().filter(plate=vehicle.plate).order_by("pk").values_list("pk", flat=True))
    held = (Authorization.objects.filter(vehicle__plate=vehicle.plate, status__in=CURRENT_STATUSES)
            .exclude(holder=holder).exists())
    violations = fleet_rules.plate_in_service(vehicle.display_plate, held,
                                              vehicle_bond_basis(regulation.current(), modality))
    if violations:
        raise violations[0]


@transaction.atomic
def authorization_issue(
    *, actor, holder, vehicle, modality: str, valid_from: date | None = None,
    auxiliaries: list | None = None, reason: str = "Outorga deferida", valid_until: date | None = None,
    holder_type: str = "pf", company_name: str = "", cnpj: str = "",
) -> tuple[Authorization, list[Alvara]]:
    """Issue the pack's grant act and its alvará(s), with gap-free numbers and audit. The term
    counts from ``valid_from``, unless ``valid_until`` is given (a renewal that extends the term)."""
    pack = regulation.current()
    valid_from = valid_from or pack.today()
    years = int(pack.value("grant.validity_years", modality))
    valid_until = valid_until or add_years(valid_from, years) - timedelta(days=1)
    act = pack.act("authorization")
    year = valid_from.year
    ensure_plate_free(vehicle=vehicle, holder=holder, modality=modality)
    authorization = Authorization.objects.create(
        number=document_number("authorization", year),
        act_name=act.get("name", "Autorização"),
        modality=modality,
        holder=holder,
        # a company holder (e.g. Lei 724/2008, art. 2): copied once, the issued act never changes afterwards
        holder_type=holder_type,
        company_name=company_name,
        cnpj=cnpj,
        vehicle=vehicle,
        valid_from=valid_from,
        valid_until=valid_until,
        verification_code=verification_code(),
        legal_basis=act.get("legal_basis", ""),
        issued_by=actor if getattr(actor, "is_authenticated", False) else None,
    )
    audit_log(actor=actor, obj=authorization, action=AuditAction.AUTHORIZATION_ISSUED, to_state=authorization.status,
              reason=reason, data={"number": authorization.number, "valid_until": valid_until.isoformat()})
    freeze_on_commit(authorization, "authorization")
    alvaras = []
    alvara_act = pack.act("alvara")
    scope = alvara_act.get("scope", "none")
    if scope != "none":
        people = [(holder, False)]
        if scope == "driver":
            people += [(person, True) for person in (auxiliaries or [])]
        for person, is_aux in people:
            alvaras.append(alvara_issue(actor=actor, authorization=authorization, person=person,
                                        is_auxiliary=is_aux, valid_from=valid_from))
    return authorization, alvaras


@transaction.atomic
def alvara_issue(*, actor, authorization: Authorization, person, is_auxiliary: bool = False,
                 valid_from: date | None = None, supersedes: Alvara | None = None) -> Alvara:
    pack = regulation.current()
    act = pack.act("alvara")
    valid_from = valid_from or pack.today()
    from licensing.grants.documents import alvara_pdf

    if supersedes is not None:
        alvara_pdf(supersedes)  # kept as it was issued before it is superseded
        alvara_set_status(actor=actor, alvara=supersedes, to=AlvaraStatus.SUPERSEDED,
                          reason="Substituído por novo alvará")
    alvara = Alvara.objects.create(
        number=document_number("alvara", valid_from.year),
        doc_name=act.get("name", "Alvará"),
        authorization=authorization,
        person=person,
        vehicle=authorization.vehicle if act.get("scope") == "vehicle" else None,
        is_auxiliary=is_auxiliary,
        valid_until=_alvara_validity(pack, valid_from, authorization.valid_until, authorization.modality),
        verification_code=verification_code(),
        legal_basis=act.get("legal_basis", ""),
        supersedes=supersedes,
    )
    audit_log(actor=actor, obj=alvara, action=AuditAction.ALVARA_ISSUED, to_state=alvara.status,
              reason="Alvará emitido", data={"number": alvara.number, "authorization": authorization.number})
    freeze_on_commit(alvara, "alvara")
    return alvara


def amendment_act(pack) -> tuple[str, str]:
    """(name, legal basis) of the pack's act of amendment; a pack that names none amends by a
    "Termo de Alteração" on the grant act's own basis."""
    param = pack.param("amendment.act_name")
    if param is not None and param.value:
        return str(param.value), param.legal_basis
    return "Termo de Alteração", pack.act("authorization").get("legal_basis", "")


def vehicle_change(before, after) -> dict:
    """The change of vehicle, in words and as data (the act it amends verifies as the car it named)."""
    def describe(v) -> str:
        return f"{v.display_plate} — {v.make} {v.model}, {v.color}, {v.manufacture_year}" if v else "—"

    def data(v) -> dict | None:
        return {"plate": v.display_plate, "make": v.make, "model": v.model, "color": v.color} if v else None

    return {"label": "Veículo", "before": describe(before), "after": describe(after), "field": "vehicle",
            "before_vehicle": data(before), "after_vehicle": data(after)}


@transaction.atomic
def amendment_issue(
    *, actor, authorization: Authorization, kind: str, changes: list[dict], reason: str, source: str = "",
    legal_basis: str = "", alvara: Alvara | None = None,
) -> Amendment:
    """Issue the act that amends ``authorization`` (its own number and code; the act it amends is
    never reprinted). ``changes`` say what it alters, in words: [{label, before, after}]."""
    pack = regulation.current()
    # what the act certified is stored before the change takes effect (it is never re-rendered)
    from licensing.grants.documents import authorization_pdf

    authorization_pdf(authorization)
    name, act_basis = amendment_act(pack)
    basis = "; ".join(b for b in (act_basis, legal_basis) if b)[:300]
    amendment = Amendment.objects.create(
        number=document_number("amendment", pack.today().year), act_name=name, kind=kind,
        authorization=authorization, changes=changes, reason=reason or AmendmentKind(kind).label,
        source=source[:100], legal_basis=basis, alvara=alvara, verification_code=verification_code(),
        issued_by=actor if getattr(actor, "is_authenticated", False) else None,
    )
    audit_log(actor=actor, obj=amendment, action=AuditAction.AMENDMENT_ISSUED, reason=amendment.reason,
              data={"number": amendment.number, "amends": authorization.number, "kind": kind,
                    "changes": changes, "alvara": alvara.number if alvara else None})
    freeze_on_commit(amendment, "amendment")
    return amendment


# Status changes that are acts of the authority (an amendment is issued for each).
_AMENDING_STATUSES = {AuthorizationStatus.SUSPENDED: AmendmentKind.SUSPENSION,
                      AuthorizationStatus.CASSADA: AmendmentKind.CASSATION}


def _until_text(day: date | None) -> str:
    return f"{day:%d/%m/%Y}" if day else "a regularização"


def _source_of(data: dict | None) -> str:
    data = data or {}
    if data.get("infraction"):
        return f"auto de infração nº {data['infraction']}"
    return f"pedido {data['request']}" if data.get("request") else ""


# What happens to the alvarás when the grant changes status.
_ALVARA_FOLLOW = {
    AuthorizationStatus.SUSPENDED: AlvaraStatus.SUSPENDED,
    AuthorizationStatus.CASSADA: AlvaraStatus.CANCELLED,
    AuthorizationStatus.RENOUNCED: AlvaraStatus.CANCELLED,
    AuthorizationStatus.CANCELLED: AlvaraStatus.CANCELLED,
    AuthorizationStatus.EXPIRED: AlvaraStatus.EXPIRED,
}


@transaction.atomic
def authorization_set_status(
    *, actor, authorization: Authorization, to: str, reason: str, suspended_until: date | None = None,
    data: dict | None = None,
) -> Authorization:
    """Move a grant to another status (one of AUTHORIZATION_TRANSITIONS), cascading to alvarás."""
    locked = Authorization.objects.select_for_update().get(pk=authorization.pk)
    if to not in AUTHORIZATION_TRANSITIONS.get(locked.status, set()):
        raise InvalidTransition(
            f"A autorização nº {locked.number} está {locked.get_status_display()} e não pode passar a "
            f"{AuthorizationStatus(to).label}."
        )
    before = locked.status
    if before not in CURRENT_STATUSES and to in CURRENT_STATUSES:  # back in force: the plate must be free
        ensure_plate_free(vehicle=locked.vehicle, holder=locked.holder, modality=locked.modality)
    amends = _AMENDING_STATUSES.get(to)
    if amends:
        # the act and its alvarás are kept as they certified the grant before the penalty
        from licensing.grants.documents import freeze_grant_documents

        freeze_grant_documents(locked)
    locked.status = to
    locked.status_reason = reason
    locked.status_changed_at = timezone.now()
    locked.suspended_until = suspended_until if to == AuthorizationStatus.SUSPENDED else None
    locked.save(update_fields=["status", "status_reason", "status_changed_at", "suspended_until"])
    audit_log(actor=actor, obj=locked, action=AuditAction.AUTHORIZATION_STATUS, from_state=before, to_state=to,
              reason=reason, data={**(data or {}), **({"suspended_until": suspended_until.isoformat()} if suspended_until else {})})
    if amends:
        after = AuthorizationStatus(to).label
        if suspended_until:
            after += f" até {suspended_until:%d/%m/%Y}"
        elif to == AuthorizationStatus.SUSPENDED:
            after += " até a regularização"
        amendment_issue(actor=actor, authorization=locked, kind=amends, reason=reason,
                        changes=[{"label": "Situação", "before": AuthorizationStatus(before).label, "after": after}],
                        source=_source_of(data), legal_basis=(data or {}).get("legal_basis", ""))
    follow = _ALVARA_FOLLOW.get(to)
    if to == AuthorizationStatus.ACTIVE:
        for alvara in locked.alvaras.filter(status__in=[AlvaraStatus.SUSPENDED]):
            alvara_set_status(actor=actor, alvara=alvara, to=AlvaraStatus.ACTIVE, reason=reason)
    elif follow:
        for alvara in locked.alvaras.filter(status__in=[AlvaraStatus.ACTIVE, AlvaraStatus.SUSPENDED, AlvaraStatus.RETAINED]):
            if follow in ALVARA_TRANSITIONS.get(alvara.status, set()):
                alvara_set_status(actor=actor, alvara=alvara, to=follow, reason=reason)
    authorization.refresh_from_db()
    return locked


@transaction.atomic
def authorization_set_suspension_end(*, actor, authorization: Authorization, until: date | None, reason: str,
                                     data: dict | None = None) -> Authorization:
    """Change the last day of a suspension being served (None = until regularised): a
    further suspension adds to it instead of being lost."""
    locked = Authorization.objects.select_for_update().get(pk=authorization.pk)
    if locked.status != AuthorizationStatus.SUSPENDED:
        raise InvalidTransition(f"A autorização nº {locked.number} não está suspensa.")
    before = locked.suspended_until
    locked.suspended_until = until
    locked.status_reason = reason
    locked.save(update_fields=["suspended_until", "status_reason"])
    audit_log(actor=actor, obj=locked, action=AuditAction.AUTHORIZATION_SUSPENSION_EXTENDED, from_state=locked.status,
              to_state=locked.status, reason=reason,
              data={**(data or {}), "suspended_until_before": before.isoformat() if before else None,
                    "suspended_until": until.isoformat() if until else None})
    amendment_issue(actor=actor, authorization=locked, kind=AmendmentKind.SUSPENSION, reason=reason,
                    changes=[{"label": "Suspensão até", "before": _until_text(before), "after": _until_text(until)}],
                    source=_source_of(data), legal_basis=(data or {}).get("legal_basis", ""))
    authorization.refresh_from_db()
    return locked


@transaction.atomic
def alvara_set_status(*, actor, alvara: Alvara, to: str, reason: str) -> Alvara:
    locked = Alvara.objects.select_for_update().get(pk=alvara.pk)
    if to not in ALVARA_TRANSITIONS.get(locked.status, set()):
        raise InvalidTransition(
            f"O alvará nº {locked.number} está {locked.get_status_display()} e não pode passar a "
            f"{AlvaraStatus(to).label}."
        )
    before = locked.status
    locked.status = to
    locked.status_reason = reason
    locked.save(update_fields=["status", "status_reason"])
    audit_log(actor=actor, obj=locked, action=AuditAction.ALVARA_STATUS, from_state=before, to_state=to, reason=reason)
    return locked


@transaction.atomic
def grant_bar_create(*, actor, person, until: date | None, reason: str, legal_basis: str, source: str = "") -> GrantBar:
    bar = GrantBar.objects.create(cpf=person.cpf or "", person=person, until=until, reason=reason,
                                  legal_basis=legal_basis, source=source)
    audit_log(actor=actor, obj=bar, action=AuditAction.GRANT_BAR_CREATED, reason=reason,
              data={"until": until.isoformat() if until else None, "legal_basis": legal_basis, "source": source})
    return bar


@transaction.atomic
def grant_bars_lift(*, actor, source: str, on: date, reason: str) -> int:
    """Lift the bars a decision created (``source``) when that decision is reformed on appeal;
    the rows stay, with the day and the reason."""
    lifted = 0
    for bar in GrantBar.objects.select_for_update().filter(source=source, lifted_on__isnull=True):
        bar.lifted_on = on
        bar.lifted_reason = reason
        bar.save(update_fields=["lifted_on", "lifted_reason"])
        audit_log(actor=actor, obj=bar, action=AuditAction.GRANT_BAR_LIFTED, reason=reason, data={"source": source})
        lifted += 1
    return lifted


@transaction.atomic
def authorization_restore(*, actor, authorization: Authorization, reason: str) -> list[Alvara]:
    """Undo a cassação whose decision was reformed on appeal: the grant is active again (or
    expired, if its term ended meanwhile). The alvarás cancelled with it stay cancelled (an issued
    document is never edited); each person gets a new one for the rest of the term."""
    locked = Authorization.objects.select_for_update().get(pk=authorization.pk)
    if locked.status != AuthorizationStatus.CASSADA:
        raise InvalidTransition(f"A autorização nº {locked.number} não está cassada.")
    today = regulation.current().today()
    to = AuthorizationStatus.ACTIVE if locked.valid_until >= today else AuthorizationStatus.EXPIRED
    if to == AuthorizationStatus.ACTIVE:
        ensure_plate_free(vehicle=locked.vehicle, holder=locked.holder, modality=locked.modality)
    locked.status = to
    locked.status_reason = reason
    locked.status_changed_at = timezone.now()
    locked.save(update_fields=["status", "status_reason", "status_changed_at"])
    audit_log(actor=actor, obj=locked, action=AuditAction.AUTHORIZATION_STATUS, from_state=AuthorizationStatus.CASSADA,
              to_state=to, reason=reason, data={"restored": True})
    amendment_issue(actor=actor, authorization=locked, kind=AmendmentKind.RESTORATION, reason=reason,
                    changes=[{"label": "Situação", "before": AuthorizationStatus.CASSADA.label,
                              "after": AuthorizationStatus(to).label}])
    issued: list[Alvara] = []
    if to == AuthorizationStatus.ACTIVE:
        seen: set[int] = set()
        for old in locked.alvaras.filter(status=AlvaraStatus.CANCELLED, valid_until__gte=today).order_by("id"):
            if old.person_id in seen:
                continue
            seen.add(old.person_id)
            issued.append(alvara_issue(actor=actor, authorization=locked, person=old.person,
                                       is_auxiliary=old.is_auxiliary))
    authorization.refresh_from_db()
    return issued
