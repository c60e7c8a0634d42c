"""Issue (lavrar) and cancel an auto de infração."""

from __future__ import annotations

from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from enforcement.models import (
    OPEN_STATUSES,
    Infraction,
)
from enforcement.services._common import (
    FUTURE_TOLERANCE,
    S,
    _lock,
    _return_retained_alvara,
    _store_files,
    _tell_holder,
    _transition,
    _validate_files,
    freeze_on_commit,
)
from enforcement.services.penalty import catalogue_entries, recidivism_recompute
from licensing.grants import selectors as licensing_selectors
from licensing.grants import services as licensing_services
from licensing.models import AlvaraStatus
from portal import regulation
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import InvalidTransition
from portal.numbering import document_number, verification_code
from portal.validators import normalize_plate, only_digits, validate_cpf, validate_plate


def _pick_alvara(authorization, driver_cpf: str):
    alvaras = [a for a in licensing_selectors.current_alvaras(authorization) if a.status == AlvaraStatus.ACTIVE]
    if driver_cpf:
        for a in alvaras:
            if a.person.cpf == driver_cpf:
                return a
    for a in alvaras:
        if not a.is_auxiliary:
            return a
    return alvaras[0] if alvaras else None


def infraction_issue(
    *, actor, plate: str, infraction_code: str, occurred_at: datetime, location: str, description: str,
    driver_cpf: str = "", driver_name: str = "", alvara_retained: bool | None = False, signature_refused: bool = False,
    extra_codes: list[str] | None = None, idempotency_key: str | None = None, photos=(),
) -> tuple[Infraction, bool]:
    """Lavrar o auto de infração (PL 015/2025 art. 20). Returns (auto, created).

    The same ``idempotency_key`` (the form's hidden key) gives back the auto already
    issued: a double submit creates one auto, also under concurrent submits. When the
    agent does not say whether the alvará was retained (``alvara_retained=None``), the
    pack's ``infraction.retains_alvara`` decides (PL 015/2025 art. 20, §2: "o agente reterá").
    """
    key = (idempotency_key or "").strip()[:64] or None
    if key:
        existing = Infraction.objects.filter(idempotency_key=key).first()
        if existing is not None:
            return existing, False
    pack = regulation.current()
    errors: dict[str, list[str]] = {}
    plate = normalize_plate(plate or "")
    try:
        validate_plate(plate)
    except ValidationError as exc:
        errors["plate"] = exc.messages
    if occurred_at is None or timezone.is_naive(occurred_at):
        errors["occurred_at"] = ["Informe a data e a hora da infração com fuso horário."]
    elif occurred_at > timezone.now() + FUTURE_TOLERANCE:
        errors["occurred_at"] = ["A data e a hora da infração não podem estar no futuro."]
    if not (location or "").strip():
        errors["location"] = ["Informe o local onde a infração ocorreu."]
    if not (description or "").strip():
        errors["description"] = ["Descreva a circunstância da infração."]
    driver_cpf = only_digits(driver_cpf or "")
    if driver_cpf:
        try:
            validate_cpf(driver_cpf)
        except ValidationError as exc:
            errors["driver_cpf"] = exc.messages
    codes = [infraction_code, *[c for c in (extra_codes or []) if c and c != infraction_code]]
    unknown = [c for c in codes if pack.infraction(c) is None]
    if unknown:
        errors["infraction_code"] = [
            f"Código de infração desconhecido no catálogo desta lei: {', '.join(unknown)}."
        ]
    try:
        _validate_files(photos, "photos")
    except ValidationError as exc:
        errors.update(exc.message_dict)
    if errors:
        raise ValidationError(errors)

    from fleet.models import Vehicle

    # The auto goes to the holder of the grant that held the plate when the infraction happened,
    # and names that grant's vehicle. A plate declared by several people has one vehicle row each:
    # a declaration is not a grant, so without one the auto names no holder (nobody receives
    # the driver's data for a vehicle only claimed), and the vehicle row only if the plate has one.
    authorization = licensing_selectors.authorization_for_plate_at(plate, occurred_at,
                                                                   occurred_at.astimezone(pack.tz).date())
    if authorization is not None:
        vehicle = authorization.vehicle
    else:
        rows = list(Vehicle.objects.filter(plate=plate)[:2])
        vehicle = rows[0] if len(rows) == 1 else None
    modality = authorization.modality if authorization else ""
    if modality:
        wrong = [c for c in codes
                 if pack.infraction(c).get("modalities") and modality not in pack.infraction(c)["modalities"]]
        if wrong:
            raise ValidationError({"infraction_code": [
                f"A infração {', '.join(wrong)} não se aplica à modalidade {pack.modality_label(modality)} "
                f"({pack.infraction(wrong[0])['legal_basis']})."
            ]})
    holder = authorization.holder if authorization else None
    driver_is_auxiliary = False
    if driver_cpf and authorization is not None:
        for a in authorization.alvaras.select_related("person"):
            if a.person.cpf == driver_cpf:
                driver_is_auxiliary = a.is_auxiliary
                driver_name = driver_name or a.person.display_name
        if holder is not None and holder.cpf == driver_cpf:
            driver_name = driver_name or holder.display_name
    if alvara_retained is None:
        alvara_retained = bool(pack.value("infraction.retains_alvara", modality or None))
    local = occurred_at.astimezone(pack.tz)
    try:
        with transaction.atomic():
            infraction = Infraction.objects.create(
                number=document_number("infraction", pack.today().year),
                verification_code=verification_code(),
                plate=plate, vehicle=vehicle, authorization=authorization, holder=holder, modality=modality,
                driver_cpf=driver_cpf, driver_name=(driver_name or "").strip()[:200],
                driver_is_auxiliary=driver_is_auxiliary, agent=actor,
                agent_registration=getattr(actor, "registration_number", "") or "",
                infraction_code=infraction_code, extra_codes=codes[1:],
                catalogue=catalogue_entries(pack, codes), occurred_at=occurred_at, occurred_on=local.date(),
                location=location.strip()[:300], description=description.strip(),
                alvara_retained=bool(alvara_retained), signature_refused=bool(signature_refused),
                idempotency_key=key,
            )
            audit_log(actor=actor, obj=infraction, action=AuditAction.INFRACTION_ISSUED, to_state=S.ISSUED,
                      reason="Auto de infração lavrado",
                      data={"number": infraction.number, "codes": codes, "plate": plate,
                            "authorization": authorization.number if authorization else None,
                            "driver_cpf": driver_cpf, "alvara_retained": bool(alvara_retained)})
            if alvara_retained and authorization is not None and authorization.is_current:
                alvara = _pick_alvara(authorization, driver_cpf)
                if alvara is not None:
                    licensing_services.alvara_set_status(
                        actor=actor, alvara=alvara, to=AlvaraStatus.RETAINED,
                        reason=f"Retido na autuação do auto nº {infraction.number}")
                    infraction.retained_alvara = alvara
                    infraction.save(update_fields=["retained_alvara"])
            _store_files(infraction, photos, kind=None, actor=actor)
            freeze_on_commit(infraction, "auto")
    except IntegrityError:
        if key:
            existing = Infraction.objects.filter(idempotency_key=key).first()
            if existing is not None:
                return existing, False
        raise
    return infraction, True


@transaction.atomic
def infraction_cancel(*, actor, infraction: Infraction, reason: str) -> Infraction:
    """A julgador cancels an auto with a reason (never deletes or edits it)."""
    inf = _lock(infraction)
    if not (reason or "").strip():
        raise ValidationError({"reason": ["Informe o motivo do cancelamento."]})
    if inf.status not in OPEN_STATUSES:
        raise InvalidTransition(f"O auto nº {inf.number} está {S(inf.status).label} e não pode ser cancelado.")
    inf.cancel_reason = reason.strip()
    _transition(inf, S.CANCELLED, actor=actor, reason=reason.strip(), fields=["cancel_reason"])
    _return_retained_alvara(inf, actor=actor, reason=f"Auto nº {inf.number} cancelado")
    _tell_holder(inf, f"Auto nº {inf.number} cancelado", f"O auto nº {inf.number} foi cancelado: {reason.strip()}",
                 "cancelled")
    recidivism_recompute(actor=actor, annulled=inf, reason=f"auto cancelado: {reason.strip()}")
    return inf
