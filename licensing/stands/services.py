"""Writes of taxi stands: creation, designation of holders, capacity changes with the
pack's reallocation rule, swaps and the end of a designation. One transaction per action,
with an audit entry; a designation is ended, never edited away."""

from __future__ import annotations

from datetime import date

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Min
from django.urls import reverse
from django.utils import timezone

from licensing.grants.models import CURRENT_STATUSES, Authorization
from licensing.stands.models import AssignmentStatus, StandAssignment, TaxiStand
from licensing.stands.rules import StandSlot, stand_reallocation, stand_swap_violation
from portal import regulation
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import InvalidTransition, RuleViolation
from portal.notifications import notify


def _is_current(authorization: Authorization) -> bool:
    return authorization.status in CURRENT_STATUSES


@transaction.atomic
def stand_create(*, actor, name: str, location: str, capacity: int, modality: str = "",
                 is_example: bool = False) -> TaxiStand:
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": ["Informe o nome do ponto."]})
    if not (location or "").strip():
        raise ValidationError({"location": ["Informe a localização do ponto."]})
    if capacity is None or int(capacity) < 1:
        raise ValidationError({"capacity": ["Informe o número de vagas (pelo menos 1)."]})
    if TaxiStand.objects.filter(name__iexact=name).exists():
        raise ValidationError({"name": ["Já existe um ponto com este nome."]})
    stand = TaxiStand.objects.create(name=name, location=location.strip(), capacity=int(capacity),
                                     modality=modality or "", is_example=is_example)
    audit_log(actor=actor, obj=stand, action=AuditAction.STAND_CREATED, data={"capacity": stand.capacity})
    return stand


def stands_sync_from_pack(*, actor=None) -> int:
    """Create the pack's stands that do not exist yet (idempotent)."""
    pack = regulation.current(required=False)
    if pack is None:
        return 0
    created = 0
    for item in pack.stands:
        if not TaxiStand.objects.filter(name__iexact=item["name"]).exists():
            stand_create(actor=actor, name=item["name"], location=item.get("location", ""),
                         capacity=int(item.get("capacity", 1)), modality=item.get("modality", ""),
                         is_example=bool(item.get("example", False)))
            created += 1
    return created


def _registered_on(auth: Authorization) -> date:
    """Time of registration in the holder's record: their first grant of this modality."""
    first = Authorization.objects.filter(holder_id=auth.holder_id, modality=auth.modality).aggregate(m=Min("valid_from"))["m"]
    return min(first or auth.valid_from, auth.valid_from)


def _assignment_close(*, actor, assignment: StandAssignment, reason: str) -> None:
    before = assignment.status
    assignment.status = AssignmentStatus.ENDED
    assignment.ended_at = timezone.now()
    assignment.end_reason = reason[:250]
    assignment.save(update_fields=["status", "ended_at", "end_reason"])
    audit_log(actor=actor, obj=assignment, action=AuditAction.STAND_ASSIGNMENT_ENDED, from_state=before,
              to_state=AssignmentStatus.ENDED, reason=reason)


def _slots(qs) -> list[StandSlot]:
    return [StandSlot(a.pk, a.registered_on, a.vehicle_year) for a in qs]


def _fill_places(*, actor, stand: TaxiStand) -> list[int]:
    """Offer free places to those waiting: oldest registration first, tie by newer vehicle
    where the pack has the rule; otherwise in order of arrival."""
    pack = regulation.current()
    active = list(stand.assignments.filter(status=AssignmentStatus.ACTIVE))
    waiting = list(stand.assignments.filter(status=AssignmentStatus.WAITING).order_by("started_at", "id"))
    free = stand.capacity - len(active)
    if free <= 0 or not waiting:
        return []
    rule = pack.param("stands.reallocation")
    if rule is not None and rule.value:
        ids = [s.id for s in stand_reallocation(occupants=_slots(active), waiting=_slots(waiting),
                                                capacity=stand.capacity).move_in]
        basis = f"{rule.legal_basis} (§5–6)"
    else:
        ids = [a.pk for a in waiting[:free]]
        basis = ""
    for a in StandAssignment.objects.filter(pk__in=ids).select_related("authorization__holder"):
        a.status = AssignmentStatus.ACTIVE
        a.started_at = timezone.now()
        a.save(update_fields=["status", "started_at"])
        audit_log(actor=actor, obj=a, action=AuditAction.STAND_PLACE_GRANTED, from_state=AssignmentStatus.WAITING,
                  to_state=AssignmentStatus.ACTIVE, reason=basis)
        notify(recipient=a.authorization.holder, subject=f"Vaga no {stand.name}",
               body=f"Você recebeu uma vaga no {stand.name}. {basis}".strip(), link=reverse("lifecycle-mine"),
               dedup_key=f"stand-place:{a.pk}:{a.started_at:%Y%m%d%H%M%S%f}")
    return ids


@transaction.atomic
def stand_assign(*, actor, stand: TaxiStand, authorization: Authorization) -> StandAssignment:
    """Designate a holder's stand (a place if free, else the waiting list). A holder has one
    stand; assigning another one moves them (decided by the administration)."""
    stand = TaxiStand.objects.select_for_update().get(pk=stand.pk)
    if not stand.is_active:
        raise InvalidTransition("Este ponto está desativado.")
    auth = Authorization.objects.select_related("vehicle").get(pk=authorization.pk)
    if not _is_current(auth):
        raise InvalidTransition(f"A autorização nº {auth.number} não está vigente.", field="authorization")
    if stand.modality and stand.modality != auth.modality:
        raise ValidationError({"authorization": ["Este ponto é de outra modalidade."]})
    previous = StandAssignment.objects.select_for_update().filter(
        authorization=auth, status__in=[AssignmentStatus.ACTIVE, AssignmentStatus.WAITING]).select_related("stand").first()
    if previous is not None and previous.stand_id == stand.pk:
        raise InvalidTransition("Esta autorização já está designada para este ponto.", field="authorization")
    if previous is not None:
        _assignment_close(actor=actor, assignment=previous, reason=f"Transferida para o {stand.name}")
    occupied = stand.assignments.filter(status=AssignmentStatus.ACTIVE).count()
    assignment = StandAssignment.objects.create(
        stand=stand, authorization=auth,
        status=AssignmentStatus.ACTIVE if occupied < stand.capacity else AssignmentStatus.WAITING,
        registered_on=_registered_on(auth), vehicle_year=auth.vehicle.manufacture_year if auth.vehicle else None,
    )
    audit_log(actor=actor, obj=assignment, action=AuditAction.STAND_ASSIGNED, to_state=assignment.status,
              data={"stand": stand.name, "authorization": auth.number})
    if previous is not None and previous.status == AssignmentStatus.ENDED and previous.stand_id != stand.pk:
        _fill_places(actor=actor, stand=previous.stand)
    notify(recipient=auth.holder, subject=f"Ponto designado: {stand.name}",
           body=(f"Sua autorização nº {auth.number} foi designada para o {stand.name} ({stand.location})"
                 + (" — aguardando vaga." if assignment.status == AssignmentStatus.WAITING else ".")),
           link=reverse("lifecycle-mine"), dedup_key=f"stand-assigned:{assignment.pk}")
    return assignment


@transaction.atomic
def stand_set_capacity(*, actor, stand: TaxiStand, capacity: int) -> dict:
    """Change a stand's places; on a reduction the most recent registrations move to the
    waiting list, on an increase the oldest waiting get the places (where the pack says so)."""
    stand = TaxiStand.objects.select_for_update().get(pk=stand.pk)
    try:
        capacity = int(capacity)
    except (TypeError, ValueError):
        raise ValidationError({"capacity": ["Informe o número de vagas."]}) from None
    if capacity < 0:
        raise ValidationError({"capacity": ["O número de vagas não pode ser negativo."]})
    pack = regulation.current()
    rule = pack.param("stands.reallocation")
    active = list(stand.assignments.filter(status=AssignmentStatus.ACTIVE).select_related("authorization__holder"))
    moved_out: list[int] = []
    if capacity < len(active):
        if rule is None or not rule.value:
            raise RuleViolation(
                "stand_capacity_below_occupancy",
                f"O ponto tem {len(active)} veículos; transfira ou encerre designações antes de reduzir para {capacity}.",
                field="capacity", conflict=True)
        plan = stand_reallocation(occupants=_slots(active), waiting=[], capacity=capacity)
        moved_out = [s.id for s in plan.move_out]
    before = stand.capacity
    stand.capacity = capacity
    stand.save(update_fields=["capacity"])
    audit_log(actor=actor, obj=stand, action=AuditAction.STAND_CAPACITY_CHANGED, from_state=str(before), to_state=str(capacity),
              reason=rule.legal_basis if rule else "", data={"moved_out": moved_out})
    by_id = {a.pk: a for a in active}
    for pk in moved_out:
        a = by_id[pk]
        a.status = AssignmentStatus.WAITING
        a.save(update_fields=["status"])
        audit_log(actor=actor, obj=a, action=AuditAction.STAND_PLACE_LOST, from_state=AssignmentStatus.ACTIVE,
                  to_state=AssignmentStatus.WAITING, reason=f"Redução de vagas: registro mais recente ({rule.legal_basis}, §4)")
        notify(recipient=a.authorization.holder, subject=f"Redução de vagas no {stand.name}",
               body=(f"O {stand.name} passou a {capacity} vagas. Pelo critério legal (menor tempo de registro), sua "
                     f"autorização aguarda nova designação ({rule.legal_basis})."),
               link=reverse("lifecycle-mine"), dedup_key=f"stand-lost:{a.pk}:{stand.pk}:{before}:{capacity}")
    moved_in = _fill_places(actor=actor, stand=stand) if capacity > before else []
    return {"capacity": capacity, "moved_out": moved_out, "moved_in": moved_in}


@transaction.atomic
def stand_swap(*, actor, first: StandAssignment, second: StandAssignment, consent_first: bool,
               consent_second: bool) -> tuple[StandAssignment, StandAssignment]:
    """Swap the stands of two holders with the administration's decision (and, where the
    pack says so, the consent of both: ``stands.swap_requires_consent``)."""
    pack = regulation.current()
    violation = stand_swap_violation(requires_consent=pack.param("stands.swap_requires_consent"),
                                     consent_a=consent_first, consent_b=consent_second)
    if violation:
        raise violation
    a = StandAssignment.objects.select_for_update(of=("self",)).select_related("stand", "authorization").get(pk=first.pk)
    b = StandAssignment.objects.select_for_update(of=("self",)).select_related("stand", "authorization").get(pk=second.pk)
    if a.status != AssignmentStatus.ACTIVE or b.status != AssignmentStatus.ACTIVE:
        raise InvalidTransition("Só se permutam vagas ocupadas.", field="assignment")
    if a.stand_id == b.stand_id:
        raise ValidationError({"assignment": ["As duas designações são do mesmo ponto."]})
    _assignment_close(actor=actor, assignment=a, reason=f"Permuta com a autorização nº {b.authorization.number}")
    _assignment_close(actor=actor, assignment=b, reason=f"Permuta com a autorização nº {a.authorization.number}")
    new_a = StandAssignment.objects.create(stand=b.stand, authorization=a.authorization, status=AssignmentStatus.ACTIVE,
                                           registered_on=a.registered_on, vehicle_year=a.vehicle_year)
    new_b = StandAssignment.objects.create(stand=a.stand, authorization=b.authorization, status=AssignmentStatus.ACTIVE,
                                           registered_on=b.registered_on, vehicle_year=b.vehicle_year)
    for new, consent in ((new_a, consent_first), (new_b, consent_second)):
        audit_log(actor=actor, obj=new, action=AuditAction.STAND_SWAPPED, to_state=new.status,
                  data={"stand": new.stand.name, "consent": consent})
    return new_a, new_b


@transaction.atomic
def stand_assignment_end(*, actor, assignment: StandAssignment, reason: str) -> StandAssignment:
    a = StandAssignment.objects.select_for_update(of=("self",)).select_related("stand").get(pk=assignment.pk)
    if a.status == AssignmentStatus.ENDED:
        raise InvalidTransition("Esta designação já foi encerrada.")
    if not (reason or "").strip():
        raise ValidationError({"reason": ["Informe o motivo do encerramento."]})
    _assignment_close(actor=actor, assignment=a, reason=reason.strip())
    _fill_places(actor=actor, stand=a.stand)
    return a
