"""Writes of a grant's life: requests filed and decided, auxiliary drivers, substitution,
leave, transfer, preposto, renunciation, stands and fees. Every action is one transaction
with an audit entry; issued documents are superseded or cancelled, never edited.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from licensing.grants.models import (
    CURRENT_STATUSES,
    Alvara,
    AlvaraStatus,
    Authorization,
    AuthorizationStatus,
)
from licensing.grants.selectors import active_bar
from licensing.grants.services import alvara_issue, alvara_set_status, authorization_set_status
from licensing.requests.models import (
    AuxiliaryDriver,
    AuxiliaryStatus,
    LeaveOfAbsence,
    LeaveStatus,
    LifecycleRequest,
    Preposto,
    RequestKind,
    RequestStatus,
    YearlyNotice,
    YearlyNoticeStage,
    YearlyObligation,
)
from licensing.requests.rules import (
    HEIR_RELATIONSHIPS,
    LEAVE_KEYS,
    SUBSTITUTION_GROUNDS,
    TRANSFER_GROUNDS,
    auxiliary_limit_violation,
    auxiliary_removal_report,
    auxiliary_reregistration_due,
    compliance_filing,
    compliance_next_due,
    driver_requirement_violations,
    leave_last_day,
    leave_violation,
    missing_documents,
    preposto_violation,
    renunciation_fee_notice,
    reregistration_violation,
    substitution_violation,
    transfer_violation,
    yearly_due,
)
from licensing.stands.models import AssignmentStatus, StandAssignment
from licensing.stands.services import (
    _assignment_close,
    _fill_places,
)
from portal import regulation
from portal.audit import audit_log
from portal.exceptions import InvalidTransition, RuleViolation, RuleViolations
from portal.notifications import notify
from portal.numbering import document_number, protocol_number, verification_code
from portal.roles import Role
from portal.validators import (
    normalize_plate,
    only_digits,
    validate_cpf,
    validate_plate,
    validate_renavam,
)

DEFAULT_FEE_DUE_DAYS = 30
YEARLY_KINDS = ("aux_reregistration", "compliance_proof")


# --- small parsing helpers (bad input → ValidationError naming the field) -------------
def _text(data: dict, field: str, label: str, *, required: bool = True, max_length: int = 500) -> str:
    value = str(data.get(field) or "").strip()
    if required and not value:
        raise ValidationError({field: [f"Informe {label}."]})
    if len(value) > max_length:
        raise ValidationError({field: [f"{label.capitalize()}: no máximo {max_length} caracteres."]})
    return value


def _date(data: dict, field: str, label: str, *, required: bool = True) -> date | None:
    raw = data.get(field)
    if raw in (None, ""):
        if required:
            raise ValidationError({field: [f"Informe {label} (AAAA-MM-DD)."]})
        return None
    if isinstance(raw, date):
        return raw
    try:
        return date.fromisoformat(str(raw).strip())
    except ValueError:
        raise ValidationError({field: [f"{label.capitalize()} inválida: use o formato AAAA-MM-DD."]}) from None


def _int(data: dict, field: str, label: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    raw = data.get(field)
    try:
        value = int(str(raw).strip())
    except (TypeError, ValueError):
        raise ValidationError({field: [f"Informe {label} em número inteiro."]}) from None
    if minimum is not None and value < minimum:
        raise ValidationError({field: [f"{label.capitalize()}: no mínimo {minimum}."]})
    if maximum is not None and value > maximum:
        raise ValidationError({field: [f"{label.capitalize()}: no máximo {maximum}."]})
    return value


def _bool(data: dict, field: str) -> bool:
    raw = data.get(field)
    if isinstance(raw, bool):
        return raw
    return str(raw).strip().lower() in {"1", "true", "on", "sim", "yes"}


def _choice(data: dict, field: str, label: str, choices: dict) -> str:
    value = str(data.get(field) or "").strip()
    if value not in choices:
        options = "; ".join(f"{k} ({v if isinstance(v, str) else v[0]})" for k, v in choices.items())
        raise ValidationError({field: [f"Escolha {label}: {options}."]})
    return value


def _cpf(data: dict, field: str = "cpf") -> str:
    digits = only_digits(str(data.get(field) or ""))
    try:
        validate_cpf(digits)
    except ValidationError as exc:
        raise ValidationError({field: exc.messages}) from None
    return digits


def _user_by_cpf(cpf: str, field: str):
    user = get_user_model().objects.filter(cpf=cpf).first()
    if user is None:
        raise ValidationError({field: ["CPF sem cadastro no portal: a pessoa precisa criar a conta antes do pedido."]})
    return user


def _raise_all(violations: list[RuleViolation]) -> None:
    if len(violations) == 1:
        raise violations[0]
    if violations:
        raise RuleViolations(violations)


def _clerks():
    return get_user_model().objects.filter(groups__name=Role.CLERK, is_active=True).distinct()


def _notify_clerks(*, subject: str, body: str, link: str, dedup: str) -> None:
    for clerk in _clerks():
        notify(recipient=clerk, subject=subject, body=body, link=link, dedup_key=f"{dedup}:{clerk.pk}")


def _request_link(req: LifecycleRequest) -> str:
    return reverse("lifecycle-request-detail", kwargs={"pk": req.pk})


def _is_current(authorization: Authorization) -> bool:
    return authorization.status in CURRENT_STATUSES


def _alvara_scope(pack) -> str:
    return pack.act("alvara").get("scope", "none")


# --- validation per kind (at filing and again at decision) ----------------------------
def _clean_auxiliary_add(pack, auth: Authorization, data: dict, on: date, exclude_pk: int | None) -> tuple[dict, str]:
    cpf = _cpf(data)
    clean = {
        "cpf": cpf,
        "name": _text(data, "name", "o nome do condutor auxiliar", max_length=200),
        "birth_date": _date(data, "birth_date", "a data de nascimento", required=False),
        "cnh_number": only_digits(str(data.get("cnh_number") or "")),
        "cnh_category": _text(data, "cnh_category", "a categoria da CNH", max_length=3).upper(),
        "cnh_first_issued": _date(data, "cnh_first_issued", "a data da primeira habilitação", required=False),
        "cnh_ear": _bool(data, "cnh_ear"),
    }
    if not clean["cnh_number"]:
        raise ValidationError({"cnh_number": ["Informe o número da CNH do condutor auxiliar."]})
    if cpf == (auth.holder.cpf or ""):
        raise ValidationError({"cpf": ["O titular não pode ser cadastrado como seu próprio condutor auxiliar."]})
    if AuxiliaryDriver.objects.filter(authorization=auth, person__cpf=cpf, status=AuxiliaryStatus.ACTIVE).exists():
        raise RuleViolation("auxiliary_duplicate", "Este condutor já é auxiliar desta autorização.", field="cpf",
                            conflict=True)
    max_param = pack.param("auxiliary.max", auth.modality)
    current = AuxiliaryDriver.objects.filter(authorization=auth, status=AuxiliaryStatus.ACTIVE).count()
    pending = LifecycleRequest.objects.filter(authorization=auth, kind=RequestKind.AUXILIARY_ADD,
                                              status=RequestStatus.FILED)
    if exclude_pk:
        pending = pending.exclude(pk=exclude_pk)
    violations = []
    limit = auxiliary_limit_violation(current=current + pending.count(), max_param=max_param)
    if limit:
        raise limit
    bar = active_bar(cpf, on)
    if bar is not None:
        violations.append(RuleViolation("auxiliary_barred", "Este condutor está impedido de atuar no serviço "
                                        f"({bar.reason}).", bar.legal_basis, field="cpf", conflict=True))
    violations += driver_requirement_violations(
        birth_date=clean["birth_date"], cnh_category=clean["cnh_category"],
        cnh_first_issued=clean["cnh_first_issued"], cnh_ear=clean["cnh_ear"], on=on,
        min_age=pack.param("driver.min_age", auth.modality),
        categories=pack.param("driver.cnh_categories", auth.modality),
        cnh_min_years=pack.param("driver.cnh_min_years", auth.modality),
        ear_required=pack.param("driver.ear_required", auth.modality),
    )
    _raise_all(violations)
    for key in ("birth_date", "cnh_first_issued"):
        clean[key] = clean[key].isoformat() if clean[key] else None
    return clean, max_param.legal_basis if max_param else ""


def _auxiliary_for(auth: Authorization, data: dict) -> AuxiliaryDriver:
    aux_id = data.get("auxiliary")
    qs = AuxiliaryDriver.objects.filter(authorization=auth, status=AuxiliaryStatus.ACTIVE).select_related("person")
    aux = None
    if aux_id not in (None, ""):
        try:
            aux = qs.filter(pk=int(aux_id)).first()
        except (TypeError, ValueError):
            aux = None
    elif data.get("cpf"):
        aux = qs.filter(person__cpf=only_digits(str(data["cpf"]))).first()
    if aux is None:
        raise ValidationError({"auxiliary": ["Escolha um condutor auxiliar ativo desta autorização."]})
    return aux


def _clean_auxiliary_remove(pack, auth, data, on, exclude_pk) -> tuple[dict, str]:
    aux = _auxiliary_for(auth, data)
    left_on = _date(data, "left_on", "a data do desligamento")
    report = auxiliary_removal_report(left_on=left_on, reported_on=on,
                                      deadline=pack.param("auxiliary.removal_report_days", auth.modality))
    clean = {"auxiliary": aux.pk, "name": aux.person.display_name, "left_on": left_on.isoformat(),
             "days_after": report.days_after, "deadline_days": report.deadline_days, "late": report.late,
             "reason": _text(data, "reason", "o motivo", required=False)}
    return clean, report.legal_basis


def _vehicle_data(data: dict) -> dict:
    raw = data.get("vehicle")
    if not isinstance(raw, dict):
        raw = {k[len("vehicle_"):]: v for k, v in data.items() if str(k).startswith("vehicle_")}
    plate = normalize_plate(str(raw.get("plate") or ""))
    errors: dict[str, list[str]] = {}
    try:
        validate_plate(plate)
    except ValidationError as exc:
        errors["vehicle_plate"] = exc.messages
    renavam = only_digits(str(raw.get("renavam") or ""))
    try:
        validate_renavam(renavam)
    except ValidationError as exc:
        errors["vehicle_renavam"] = exc.messages
    out: dict[str, Any] = {"plate": plate, "renavam": renavam}
    for key, label in (("make", "a marca"), ("model", "o modelo"), ("color", "a cor")):
        out[key] = str(raw.get(key) or "").strip()[:80]
        if not out[key]:
            errors[f"vehicle_{key}"] = [f"Informe {label} do veículo substituto."]
    try:
        out["manufacture_year"] = int(str(raw.get("manufacture_year")).strip())
        if not 1950 <= out["manufacture_year"] <= 2100:
            raise ValueError
    except (TypeError, ValueError):
        errors["vehicle_manufacture_year"] = ["Informe o ano de fabricação (ex.: 2024)."]
    first = raw.get("first_registration_date")
    try:
        out["first_registration_date"] = date.fromisoformat(str(first)).isoformat() if first else None
    except ValueError:
        errors["vehicle_first_registration_date"] = ["Data do primeiro licenciamento inválida (AAAA-MM-DD)."]
    for key in ("doors", "seats", "engine_cc"):
        value = raw.get(key)
        try:
            out[key] = int(value) if value not in (None, "") else None
        except (TypeError, ValueError):
            errors[f"vehicle_{key}"] = ["Informe um número inteiro."]
    if errors:
        raise ValidationError(errors)
    return out


def _clean_substitution(pack, auth, data, on, exclude_pk) -> tuple[dict, str]:
    from fleet.models import Vehicle

    allowed = pack.param("substitution.allowed", auth.modality)
    if allowed is not None and not allowed.value:
        raise RuleViolation("substitution_forbidden", "A lei do município não admite a substituição do veículo.",
                            allowed.legal_basis)
    ground = str(data.get("ground") or ("newer" if allowed is None else "")).strip()
    vehicle = _vehicle_data(data)
    if auth.vehicle and vehicle["plate"] == auth.vehicle.plate:
        raise ValidationError({"vehicle_plate": ["Informe a placa do veículo substituto, não a do atual."]})
    other = Vehicle.objects.filter(plate=vehicle["plate"]).first()
    if other and Authorization.objects.filter(vehicle=other, status__in=CURRENT_STATUSES).exists():
        raise RuleViolation("substitution_vehicle_in_use", "Este veículo já está vinculado a outra autorização vigente.",
                            field="vehicle_plate", conflict=True)
    old = auth.vehicle
    first = date.fromisoformat(vehicle["first_registration_date"]) if vehicle["first_registration_date"] else None
    violation = substitution_violation(
        allowed=allowed, ground=ground,
        old_year=old.manufacture_year if old else 0,
        old_first_registration=old.first_registration_date if old else None,
        new_year=vehicle["manufacture_year"], new_first_registration=first,
        certificate_issuer=str(data.get("certificate_issuer") or ""),
        certificate_number=str(data.get("certificate_number") or ""),
        age_basis=pack.param("vehicle.age_basis", auth.modality),
        max_age=pack.param("vehicle.max_age_years", auth.modality), on=on,
    )
    if violation:
        raise violation
    clean = {"ground": ground, "vehicle": vehicle,
             "old_plate": old.plate if old else "",
             "certificate_issuer": str(data.get("certificate_issuer") or ""),
             "certificate_number": str(data.get("certificate_number") or "").strip()[:60]}
    suffix = SUBSTITUTION_GROUNDS.get(ground, ("", ""))[1]
    return clean, (f"{allowed.legal_basis}{suffix}" if allowed else "")


def _clean_leave(pack, auth, data, on, exclude_pk) -> tuple[dict, str]:
    reason = _choice(data, "reason", "o motivo do afastamento",
                     {"theft": "furto", "accident": "acidente grave", "substitution": "substituição do veículo"})
    days = _int(data, "days", "o número de dias", minimum=1, maximum=3650)
    starts_on = _date(data, "starts_on", "a data de início")
    param = pack.param(LEAVE_KEYS[reason], auth.modality)
    violation = leave_violation(reason=reason, days=days, max_param=param)
    if violation:
        raise violation
    if LeaveOfAbsence.objects.filter(authorization=auth, status__in=[LeaveStatus.ACTIVE, LeaveStatus.OVERDUE]).exists():
        raise RuleViolation("leave_open", "Já há um afastamento em curso: registre o retorno antes de pedir outro.",
                            param.legal_basis, field="starts_on", conflict=True)
    return ({"reason": reason, "days": days, "starts_on": starts_on.isoformat(),
             "ends_on": leave_last_day(starts_on, days).isoformat()}, param.legal_basis)


def _clean_transfer(pack, auth, data, on, exclude_pk) -> tuple[dict, str]:
    allowed = pack.param("transfer.allowed", auth.modality)
    if allowed is None or not allowed.value:
        raise transfer_violation(allowed=allowed, ground="", held_since=auth.valid_from, filed_on=on)
    ground = _choice(data, "ground", "o fundamento da transferência", TRANSFER_GROUNDS)
    event_on = _date(data, "event_on", "a data do fato", required=False)
    relationship = str(data.get("relationship") or "").strip()
    proof = _text(data, "proof", "o documento que comprova", required=False)
    violation = transfer_violation(
        allowed=allowed, ground=ground, held_since=auth.valid_from, filed_on=on, event_on=event_on,
        relationship=relationship, proof=proof, min_years=pack.param("transfer.min_years_as_holder", auth.modality),
        heir_days=pack.param("transfer.heir_deadline_days", auth.modality),
    )
    if violation:
        raise violation
    cpf = _cpf(data, "new_holder_cpf")
    new_holder = _user_by_cpf(cpf, "new_holder_cpf")
    if new_holder.pk == auth.holder_id:
        raise ValidationError({"new_holder_cpf": ["Informe o CPF do novo titular, não o do atual."]})
    bar = active_bar(cpf, on)
    if bar is not None:
        raise RuleViolation("transfer_barred", f"O novo titular está impedido ({bar.reason}).", bar.legal_basis,
                            field="new_holder_cpf", conflict=True)
    max_per = pack.param("grant.max_per_holder", auth.modality)
    if max_per is not None and Authorization.objects.filter(
        holder=new_holder, status__in=CURRENT_STATUSES
    ).count() >= int(max_per.value):
        raise RuleViolation("transfer_holder_has_grant", "O novo titular já tem autorização vigente.",
                            max_per.legal_basis, field="new_holder_cpf", conflict=True)
    plate = normalize_plate(str(data.get("vehicle_plate") or ""))
    if plate and (not auth.vehicle or plate != auth.vehicle.plate):
        from fleet.models import Vehicle

        vehicle = Vehicle.objects.filter(plate=plate).first()
        if vehicle is None:
            raise ValidationError({"vehicle_plate": ["Veículo não cadastrado: cadastre-o antes do pedido."]})
        if Authorization.objects.filter(vehicle=vehicle, status__in=CURRENT_STATUSES).exists():
            raise RuleViolation("transfer_vehicle_in_use", "Este veículo já está vinculado a outra autorização vigente.",
                                field="vehicle_plate", conflict=True)
    suffix = {"holder_years": ", I", "incapacity": ", III"}.get(ground, ", II")
    clean = {"ground": ground, "new_holder_cpf": cpf, "new_holder_name": new_holder.display_name,
             "relationship": relationship if relationship in HEIR_RELATIONSHIPS else "",
             "event_on": event_on.isoformat() if event_on else None, "proof": proof, "vehicle_plate": plate}
    return clean, f"{allowed.legal_basis}{suffix}"


def _clean_renunciation(pack, auth, data, on, exclude_pk) -> tuple[dict, str]:
    refunds = pack.param("renunciation.refunds_fees", auth.modality)
    return ({"reason": _text(data, "reason", "o motivo da renúncia", required=False, max_length=1000),
             "fee_notice": renunciation_fee_notice(refunds)}, refunds.legal_basis if refunds else "")


def _clean_preposto(pack, auth, data, on, exclude_pk) -> tuple[dict, str]:
    allowed = pack.param("preposto.allowed_on_invalidity", auth.modality)
    invalidity_on = _date(data, "invalidity_on", "a data da invalidez", required=False)
    violation = preposto_violation(allowed=allowed, permanent=_bool(data, "permanent"), invalidity_on=invalidity_on,
                                   filed_on=on)
    if violation:
        raise violation
    cpf = _cpf(data, "preposto_cpf")
    person = _user_by_cpf(cpf, "preposto_cpf")
    if person.pk == auth.holder_id:
        raise ValidationError({"preposto_cpf": ["O preposto deve ser outra pessoa."]})
    if Preposto.objects.filter(authorization=auth, ended_on__isnull=True).exists():
        raise RuleViolation("preposto_exists", "Esta autorização já tem preposto constituído.", allowed.legal_basis,
                            conflict=True)
    medical = _text(data, "medical_report", "o laudo médico da invalidez permanente", max_length=500)
    return ({"preposto_cpf": cpf, "preposto_name": person.display_name, "permanent": True,
             "invalidity_on": invalidity_on.isoformat(), "medical_report": medical}, allowed.legal_basis)


def _documents_presented(pack, auth, data: dict, applies_to: str) -> list[str]:
    """The pack's renewal checklist for the person: every item must be presented."""
    raw = data.get("documents") or []
    if isinstance(raw, str):
        raw = [c for c in raw.replace(";", ",").split(",") if c.strip()]
    if not isinstance(raw, (list, tuple)):
        raise ValidationError({"documents": ["Informe a lista de documentos apresentados (códigos da lista do pedido)."]})
    required = pack.documents(auth.modality, "renewal", applies_to=applies_to)
    missing = missing_documents(required=required, presented=raw)
    if missing:
        labels = "; ".join(f"{d['label']} ({d.get('legal_basis', '')})" for d in missing)
        raise ValidationError({"documents": [f"Apresente os documentos exigidos: {labels}."]})
    return [d["code"] for d in required]


def _reregistration_param(pack, auth):
    param = pack.param("auxiliary.yearly_reregistration", auth.modality)
    violation = reregistration_violation(param=param)
    if violation:
        raise violation
    return param


def auxiliary_registered_on(aux: AuxiliaryDriver) -> date:
    return aux.registered_on or aux.added_on


def _clean_auxiliary_reregistration(pack, auth, data, on, exclude_pk) -> tuple[dict, str]:
    param = _reregistration_param(pack, auth)
    aux = _auxiliary_for(auth, data)
    pending = LifecycleRequest.objects.filter(authorization=auth, kind=RequestKind.AUXILIARY_REREGISTRATION,
                                              status=RequestStatus.FILED, data__auxiliary=aux.pk)
    if exclude_pk:
        pending = pending.exclude(pk=exclude_pk)
    if pending.exists():
        raise RuleViolation("reregistration_pending", "Já há um recadastramento deste condutor auxiliar em análise.",
                            param.legal_basis, field="auxiliary", conflict=True)
    documents = _documents_presented(pack, auth, data, "auxiliary")
    registered_on = auxiliary_registered_on(aux)
    due = yearly_due(due_on=auxiliary_reregistration_due(registered_on), today=on)
    return ({"auxiliary": aux.pk, "name": aux.person.display_name, "registered_on": registered_on.isoformat(),
             "due_on": due.due_on.isoformat(), "late": due.overdue, "documents": documents}, param.legal_basis)


def _compliance_proven_years(auth, exclude_pk: int | None) -> set[int]:
    qs = LifecycleRequest.objects.filter(authorization=auth, kind=RequestKind.COMPLIANCE_PROOF,
                                         status__in=[RequestStatus.FILED, RequestStatus.APPROVED])
    if exclude_pk:
        qs = qs.exclude(pk=exclude_pk)
    return {int(d.get("year") or 0) for d in qs.values_list("data", flat=True)}


def _clean_compliance_proof(pack, auth, data, on, exclude_pk) -> tuple[dict, str]:
    param = pack.param("grant.yearly_compliance_proof", auth.modality)
    filing = compliance_filing(param=param, valid_from=auth.valid_from, valid_until=auth.valid_until,
                               proven_years=_compliance_proven_years(auth, exclude_pk), filed_on=on)
    if isinstance(filing, RuleViolation):
        raise filing
    documents = _documents_presented(pack, auth, data, "holder")
    return ({"year": filing.year, "due_on": filing.due_on.isoformat(), "late": filing.late,
             "documents": documents}, param.legal_basis)


CLEANERS = {
    RequestKind.AUXILIARY_ADD: _clean_auxiliary_add,
    RequestKind.AUXILIARY_REMOVE: _clean_auxiliary_remove,
    RequestKind.SUBSTITUTION: _clean_substitution,
    RequestKind.LEAVE: _clean_leave,
    RequestKind.TRANSFER: _clean_transfer,
    RequestKind.RENUNCIATION: _clean_renunciation,
    RequestKind.PREPOSTO: _clean_preposto,
    RequestKind.AUXILIARY_REREGISTRATION: _clean_auxiliary_reregistration,
    RequestKind.COMPLIANCE_PROOF: _clean_compliance_proof,
}
MULTIPLE_OPEN_KINDS = (RequestKind.AUXILIARY_ADD, RequestKind.AUXILIARY_REREGISTRATION)


def request_kinds_provided(pack, authorization: Authorization) -> list[tuple[str, str]]:
    """The kinds of request this pack provides for (others are refused with the article)."""
    m = authorization.modality
    out = []
    for kind, label in RequestKind.choices:
        if kind == RequestKind.LEAVE and not any(pack.param(k, m) for k in LEAVE_KEYS.values()):
            continue
        if kind == RequestKind.TRANSFER and not pack.value("transfer.allowed", m, False):
            continue
        if kind == RequestKind.PREPOSTO and not pack.value("preposto.allowed_on_invalidity", m, False):
            continue
        if kind == RequestKind.SUBSTITUTION and pack.value("substitution.allowed", m, True) is False:
            continue
        if kind in (RequestKind.AUXILIARY_ADD, RequestKind.AUXILIARY_REMOVE) and pack.value("auxiliary.max", m, 0) == 0:
            continue
        if kind == RequestKind.AUXILIARY_REREGISTRATION and not pack.value("auxiliary.yearly_reregistration", m, False):
            continue
        if kind == RequestKind.COMPLIANCE_PROOF and not pack.value("grant.yearly_compliance_proof", m, False):
            continue
        out.append((kind, label))
    return out


def _filing_state(auth: Authorization) -> dict:
    """What the refusals below look at, in a fixed number of queries whatever the grant holds."""
    filed = list(LifecycleRequest.objects.filter(authorization=auth, status=RequestStatus.FILED)
                 .values_list("kind", "data"))
    return {
        "filed_kinds": {kind for kind, _ in filed},
        "filed_adds": sum(1 for kind, _ in filed if kind == RequestKind.AUXILIARY_ADD),
        "reregistering": {(data or {}).get("auxiliary") for kind, data in filed
                          if kind == RequestKind.AUXILIARY_REREGISTRATION},
        "auxiliaries": set(AuxiliaryDriver.objects.filter(authorization=auth, status=AuxiliaryStatus.ACTIVE)
                           .values_list("pk", flat=True)),
    }


def _refusal(pack, auth: Authorization, kind: str, state: dict, today: date) -> Exception | None:
    if kind not in MULTIPLE_OPEN_KINDS and kind in state["filed_kinds"]:
        return InvalidTransition("Já há um pedido deste tipo em análise para esta autorização.", field="kind")
    if kind not in dict(request_kinds_provided(pack, auth)):
        return None  # the cleaner refuses it with the article that leaves it out
    m = auth.modality
    if kind == RequestKind.AUXILIARY_ADD:
        return auxiliary_limit_violation(current=len(state["auxiliaries"]) + state["filed_adds"],
                                         max_param=pack.param("auxiliary.max", m))
    if kind in (RequestKind.AUXILIARY_REMOVE, RequestKind.AUXILIARY_REREGISTRATION) and not state["auxiliaries"]:
        what = "excluir" if kind == RequestKind.AUXILIARY_REMOVE else "recadastrar"
        return RuleViolation("auxiliary_none", f"Esta autorização não tem condutor auxiliar ativo: não há quem {what}.",
                             field="kind", conflict=True)
    if kind == RequestKind.AUXILIARY_REREGISTRATION and state["auxiliaries"] <= state["reregistering"]:
        return RuleViolation("reregistration_pending", "O recadastramento de cada condutor auxiliar já está em análise.",
                             pack.param("auxiliary.yearly_reregistration", m).legal_basis, field="kind", conflict=True)
    if kind == RequestKind.LEAVE and LeaveOfAbsence.objects.filter(
        authorization=auth, status__in=[LeaveStatus.ACTIVE, LeaveStatus.OVERDUE]
    ).exists():
        basis = next((p.legal_basis for k in LEAVE_KEYS.values() if (p := pack.param(k, m))), "")
        return RuleViolation("leave_open", "Já há um afastamento em curso: registre o retorno antes de pedir outro.",
                             basis, field="kind", conflict=True)
    if kind == RequestKind.PREPOSTO and Preposto.objects.filter(authorization=auth, ended_on__isnull=True).exists():
        return RuleViolation("preposto_exists", "Esta autorização já tem preposto constituído.",
                             pack.param("preposto.allowed_on_invalidity", m).legal_basis, conflict=True)
    if kind == RequestKind.COMPLIANCE_PROOF:
        filing = compliance_filing(param=pack.param("grant.yearly_compliance_proof", m), valid_from=auth.valid_from,
                                   valid_until=auth.valid_until, proven_years=_compliance_proven_years(auth, None),
                                   filed_on=today)
        return filing if isinstance(filing, RuleViolation) else None
    return None


def request_refusal(pack, authorization: Authorization, kind: str) -> Exception | None:
    """Why a request of this kind cannot be filed on this grant today, whatever its data: one
    of the same kind already in analysis, no auxiliary to remove, a leave already running…
    None when it can be filed (what the law leaves out is refused when filed, with the article)."""
    return _refusal(pack, authorization, kind, _filing_state(authorization), pack.today())


def request_kinds_available(pack, authorization: Authorization) -> list[tuple[str, str]]:
    """The requests the holder can file now: provided by the pack and not refused by the state
    of the grant (request_file refuses the others too)."""
    state = _filing_state(authorization)
    today = pack.today()
    return [(kind, label) for kind, label in request_kinds_provided(pack, authorization)
            if _refusal(pack, authorization, kind, state, today) is None]


# --- filing ---------------------------------------------------------------------------
@transaction.atomic
def request_file(*, actor, authorization: Authorization, kind: str, data: dict) -> LifecycleRequest:
    """Protocol a request about a current grant (holder online or clerk at the desk)."""
    if kind not in CLEANERS:
        raise ValidationError({"kind": ["Tipo de pedido inválido."]})
    auth = Authorization.objects.select_for_update(of=("self",)).select_related("holder", "vehicle").get(pk=authorization.pk)
    if not _is_current(auth):
        raise InvalidTransition(f"A autorização nº {auth.number} está {auth.get_status_display()}: "
                                "não aceita novos pedidos.")
    pack = regulation.current()
    today = pack.today()
    refusal = request_refusal(pack, auth, kind)
    if refusal is not None:
        raise refusal
    clean, basis = CLEANERS[kind](pack, auth, data or {}, today, None)
    req = LifecycleRequest.objects.create(
        protocol=protocol_number(today.year), authorization=auth, kind=kind, data=clean, filed_on=today,
        filed_by=actor, legal_basis=basis[:300],
    )
    audit_log(actor=actor, obj=req, action="lifecycle_request_filed", to_state=req.status,
              reason=req.get_kind_display(), data={"authorization": auth.number, "kind": kind})
    link = _request_link(req)
    if kind == RequestKind.AUXILIARY_REMOVE and clean["late"]:
        req.late = True
        req.late_note = (f"Desligamento comunicado {clean['days_after']} dias depois; o prazo é de "
                         f"{clean['deadline_days']} dias ({basis}). Infração a apurar pela fiscalização.")
        req.save(update_fields=["late", "late_note"])
        audit_log(actor=actor, obj=req, action="auxiliary_removal_late", reason=req.late_note,
                  data={"days_after": clean["days_after"], "deadline_days": clean["deadline_days"],
                        "legal_basis": basis})
        _notify_clerks(subject=f"Exclusão de auxiliar comunicada fora do prazo — autorização nº {auth.number}",
                       body=req.late_note, link=link, dedup=f"aux-late:{req.pk}")
    if kind in YEARLY_KINDS and clean.get("late"):
        req.late = True
        req.late_note = (f"Apresentado depois do prazo, que venceu em {date.fromisoformat(clean['due_on']):%d/%m/%Y} "
                         f"({basis}).")
        req.save(update_fields=["late", "late_note"])
        audit_log(actor=actor, obj=req, action="yearly_obligation_late", reason=req.late_note,
                  data={"due_on": clean["due_on"], "legal_basis": basis})
    notify(recipient=auth.holder, subject=f"Pedido protocolado: {req.get_kind_display()} ({req.protocol})",
           body=(f"Seu pedido de {req.get_kind_display()} sobre a autorização nº {auth.number} foi protocolado "
                 f"sob o nº {req.protocol} e será analisado pelo atendimento."
                 + (f"\n\nAtenção: {req.late_note}" if req.late else "")
                 + (f"\n\n{clean.get('fee_notice')}" if clean.get("fee_notice") else "")),
           link=link, dedup_key=f"req-filed:{req.pk}")
    return req


@transaction.atomic
def request_record_inspection(*, actor, request: LifecycleRequest, approved: bool, checklist: dict | None = None,
                              notes: str = "") -> LifecycleRequest:
    """The vistoria of the substitute vehicle (required before a substitution is granted)."""
    req = LifecycleRequest.objects.select_for_update().get(pk=request.pk)
    if req.kind != RequestKind.SUBSTITUTION:
        raise InvalidTransition("Só o pedido de substituição de veículo tem vistoria.", field="kind")
    if req.status != RequestStatus.FILED:
        raise InvalidTransition("O pedido já foi decidido.")
    pack = regulation.current()
    items = {i["code"]: i for i in pack.inspection_items(req.authorization.modality)}
    checklist = {str(k): bool(v) for k, v in (checklist or {}).items()}
    unknown = sorted(set(checklist) - set(items))
    if unknown:
        raise ValidationError({"checklist": [f"Itens desconhecidos no formulário de vistoria: {', '.join(unknown)}."]})
    failed = [items[c]["label"] for c, ok in checklist.items() if not ok]
    if approved and failed:
        raise ValidationError({"approved": [f"Há itens reprovados ({'; '.join(failed)}): a vistoria não pode ser aprovada."]})
    before = req.inspection_approved
    req.inspection_approved = bool(approved)
    req.inspection_checklist = checklist
    req.inspection_notes = (notes or "")[:2000]
    req.inspection_at = timezone.now()
    req.inspection_by = actor
    req.save(update_fields=["inspection_approved", "inspection_checklist", "inspection_notes", "inspection_at",
                            "inspection_by"])
    audit_log(actor=actor, obj=req, action="substitution_inspection",
              from_state="" if before is None else str(before), to_state="aprovada" if approved else "reprovada",
              reason=notes, data={"failed": failed})
    return req


# --- decision -------------------------------------------------------------------------
@transaction.atomic
def request_decide(*, actor, request: LifecycleRequest, approved: bool, reason: str = "") -> LifecycleRequest:
    """Grant or refuse a filed request; a grant applies its effects on the documents."""
    req = LifecycleRequest.objects.select_for_update().get(pk=request.pk)
    if req.status != RequestStatus.FILED:
        raise InvalidTransition(f"O pedido {req.protocol} já foi {req.get_status_display()}.")
    auth = Authorization.objects.select_for_update(of=("self",)).select_related("holder", "vehicle").get(pk=req.authorization_id)
    reason = (reason or "").strip()
    if approved:
        if not _is_current(auth):
            raise InvalidTransition(f"A autorização nº {auth.number} está {auth.get_status_display()}.")
        pack = regulation.current()
        if req.kind == RequestKind.SUBSTITUTION and not req.inspection_approved:
            raise RuleViolation("substitution_inspection_required",
                                "Registre a vistoria aprovada do veículo substituto antes de deferir.",
                                req.legal_basis, field="inspection", conflict=True)
        if req.kind not in (RequestKind.AUXILIARY_REMOVE, RequestKind.RENUNCIATION):
            # the rules are checked again: things may have changed since the filing
            clean, _ = CLEANERS[req.kind](pack, auth, req.data, req.filed_on, req.pk)
            if req.kind != RequestKind.SUBSTITUTION:
                req.data = {**req.data, **clean}
        result = APPLIERS[req.kind](actor=actor, req=req, auth=auth, pack=pack, reason=reason)
        req.result = result
        req.status = RequestStatus.APPROVED
    else:
        if not reason:
            raise ValidationError({"reason": ["Informe a fundamentação do indeferimento."]})
        req.status = RequestStatus.REFUSED
    req.decided_by = actor
    req.decided_at = timezone.now()
    req.decision_reason = reason
    req.save(update_fields=["status", "decided_by", "decided_at", "decision_reason", "result", "data"])
    audit_log(actor=actor, obj=req, action="lifecycle_request_decided", from_state=RequestStatus.FILED,
              to_state=req.status, reason=reason, data={"result": req.result})
    verdict = "deferido" if approved else "indeferido"
    notify(recipient=auth.holder, subject=f"Pedido {req.protocol} {verdict}: {req.get_kind_display()}",
           body=(f"Seu pedido de {req.get_kind_display()} foi {verdict}."
                 + (f"\nFundamentação: {reason}" if reason else "")
                 + (f"\n{req.data.get('fee_notice')}" if approved and req.data.get("fee_notice") else "")),
           link=_request_link(req), dedup_key=f"req-decided:{req.pk}")
    return req


def _vehicle_alvara_reissue(*, actor, auth: Authorization, pack, reason: str) -> Alvara | None:
    """Per-vehicle alvará (it names the drivers): supersede the current one with a new one."""
    if _alvara_scope(pack) != "vehicle":
        return None
    current = auth.alvaras.filter(status=AlvaraStatus.ACTIVE, is_auxiliary=False).order_by("-issued_at", "-id").first()
    if current is None:
        return None
    new = alvara_issue(actor=actor, authorization=auth, person=auth.holder, supersedes=current)
    audit_log(actor=actor, obj=new, action="alvara_reissued", reason=reason,
              data={"supersedes": current.number, "number": new.number})
    return new


def _apply_auxiliary_add(*, actor, req, auth, pack, reason) -> dict:
    data = req.data
    User = get_user_model()
    person = User.objects.filter(cpf=data["cpf"]).first()
    if person is None:
        person = User(username=data["cpf"], cpf=data["cpf"], name=data["name"],
                      birth_date=date.fromisoformat(data["birth_date"]) if data.get("birth_date") else None)
        person.set_unusable_password()
        person.save()
        person.groups.add(Group.objects.get(name=Role.APPLICANT))
        audit_log(actor=actor, obj=person, action="user_created_as_auxiliary", reason="Cadastro do condutor auxiliar")
    today = pack.today()
    aux = AuxiliaryDriver.objects.create(
        authorization=auth, person=person, cnh_number=data["cnh_number"], cnh_category=data["cnh_category"],
        cnh_first_issued=date.fromisoformat(data["cnh_first_issued"]) if data.get("cnh_first_issued") else None,
        cnh_ear=data["cnh_ear"], added_on=today, added_request=req,
    )
    audit_log(actor=actor, obj=aux, action="auxiliary_added", to_state=aux.status, reason=reason,
              data={"authorization": auth.number, "request": req.protocol})
    result: dict[str, Any] = {"auxiliary": aux.pk}
    if _alvara_scope(pack) == "driver":
        alvara = alvara_issue(actor=actor, authorization=auth, person=person, is_auxiliary=True)
        result["alvara"] = {"id": alvara.pk, "number": alvara.number}
    else:
        new = _vehicle_alvara_reissue(actor=actor, auth=auth, pack=pack, reason="Inclusão de condutor auxiliar")
        if new:
            result["alvara"] = {"id": new.pk, "number": new.number}
    return result


def _apply_auxiliary_remove(*, actor, req, auth, pack, reason) -> dict:
    aux = AuxiliaryDriver.objects.select_for_update().filter(pk=req.data["auxiliary"], authorization=auth).first()
    if aux is None or aux.status != AuxiliaryStatus.ACTIVE:
        raise InvalidTransition("O condutor auxiliar já não está ativo nesta autorização.")
    aux.status = AuxiliaryStatus.REMOVED
    aux.left_on = date.fromisoformat(req.data["left_on"])
    aux.removed_on = pack.today()
    aux.removed_request = req
    aux.removal_late = req.late
    aux.save(update_fields=["status", "left_on", "removed_on", "removed_request", "removal_late"])
    audit_log(actor=actor, obj=aux, action="auxiliary_removed", from_state=AuxiliaryStatus.ACTIVE,
              to_state=AuxiliaryStatus.REMOVED, reason=reason or "Exclusão de condutor auxiliar",
              data={"late": req.late, "request": req.protocol})
    result: dict[str, Any] = {"auxiliary": aux.pk, "late": req.late}
    if _alvara_scope(pack) == "driver":
        cancelled = []
        for alvara in auth.alvaras.filter(person=aux.person, is_auxiliary=True,
                                          status__in=[AlvaraStatus.ACTIVE, AlvaraStatus.SUSPENDED, AlvaraStatus.RETAINED]):
            alvara_set_status(actor=actor, alvara=alvara, to=AlvaraStatus.CANCELLED,
                              reason=f"Exclusão do condutor auxiliar (pedido {req.protocol})")
            cancelled.append(alvara.number)
        result["cancelled_alvaras"] = cancelled
    else:
        new = _vehicle_alvara_reissue(actor=actor, auth=auth, pack=pack, reason="Exclusão de condutor auxiliar")
        if new:
            result["alvara"] = {"id": new.pk, "number": new.number}
    return result


def _apply_substitution(*, actor, req, auth, pack, reason) -> dict:
    from fleet.models import Vehicle

    v = req.data["vehicle"]
    vehicle = Vehicle.objects.filter(plate=v["plate"]).first()
    if vehicle is None:
        vehicle = Vehicle.objects.create(
            plate=v["plate"], renavam=v["renavam"], make=v["make"], model=v["model"], color=v["color"],
            manufacture_year=v["manufacture_year"],
            first_registration_date=date.fromisoformat(v["first_registration_date"]) if v.get("first_registration_date") else None,
            doors=v.get("doors"), seats=v.get("seats"), engine_cc=v.get("engine_cc"), owner=auth.holder,
            kind="motorcycle" if auth.modality == "mototaxi" else "car",
        )
        audit_log(actor=actor, obj=vehicle, action="vehicle_registered", reason=f"Substituição (pedido {req.protocol})")
    old = auth.vehicle
    auth.vehicle = vehicle
    auth.save(update_fields=["vehicle"])
    audit_log(actor=actor, obj=auth, action="authorization_vehicle_substituted", reason=reason or req.legal_basis,
              data={"from": old.plate if old else "", "to": vehicle.plate, "request": req.protocol,
                    "ground": req.data.get("ground"), "legal_basis": req.legal_basis})
    StandAssignment.objects.filter(authorization=auth, status__in=[AssignmentStatus.ACTIVE, AssignmentStatus.WAITING]).update(
        vehicle_year=vehicle.manufacture_year)
    result: dict[str, Any] = {"old_plate": old.plate if old else "", "new_plate": vehicle.plate}
    new = _vehicle_alvara_reissue(actor=actor, auth=auth, pack=pack, reason="Substituição de veículo")
    if new:
        result["alvara"] = {"id": new.pk, "number": new.number, "supersedes": new.supersedes.number}
    return result


def _apply_leave(*, actor, req, auth, pack, reason) -> dict:
    leave = LeaveOfAbsence.objects.create(
        authorization=auth, request=req, reason=req.data["reason"],
        starts_on=date.fromisoformat(req.data["starts_on"]), ends_on=date.fromisoformat(req.data["ends_on"]),
        legal_basis=req.legal_basis,
    )
    audit_log(actor=actor, obj=leave, action="leave_granted", to_state=leave.status, reason=reason,
              data={"starts_on": req.data["starts_on"], "ends_on": req.data["ends_on"]})
    return {"leave": leave.pk, "ends_on": req.data["ends_on"]}


def _apply_transfer(*, actor, req, auth, pack, reason) -> dict:
    from fleet.models import Vehicle

    new_holder = get_user_model().objects.get(cpf=req.data["new_holder_cpf"])
    vehicle = auth.vehicle
    if req.data.get("vehicle_plate") and (not vehicle or req.data["vehicle_plate"] != vehicle.plate):
        vehicle = Vehicle.objects.get(plate=req.data["vehicle_plate"])
    today = pack.today()
    open_assignment = StandAssignment.objects.filter(
        authorization=auth, status__in=[AssignmentStatus.ACTIVE, AssignmentStatus.WAITING]).first()
    authorization_set_status(actor=actor, authorization=auth, to=AuthorizationStatus.CANCELLED,
                             reason=f"Transferida a {new_holder.display_name} (pedido {req.protocol})",
                             data={"request": req.protocol, "legal_basis": req.legal_basis})
    for aux in AuxiliaryDriver.objects.filter(authorization=auth, status=AuxiliaryStatus.ACTIVE):
        aux.status = AuxiliaryStatus.REMOVED
        aux.removed_on = today
        aux.removed_request = req
        aux.save(update_fields=["status", "removed_on", "removed_request"])
        audit_log(actor=actor, obj=aux, action="auxiliary_removed", from_state=AuxiliaryStatus.ACTIVE,
                  to_state=AuxiliaryStatus.REMOVED, reason="Transferência da autorização")
    act = pack.act("authorization")
    successor = Authorization.objects.create(
        number=document_number("authorization", today.year), act_name=act.get("name", auth.act_name),
        modality=auth.modality, holder=new_holder, vehicle=vehicle, valid_from=today,
        valid_until=max(auth.valid_until, today), verification_code=verification_code(),
        legal_basis=f"{act.get('legal_basis', '')}; {req.legal_basis}"[:300],
        issued_by=actor if getattr(actor, "is_authenticated", False) else None,
        renewals=auth.renewals,
    )
    audit_log(actor=actor, obj=successor, action="authorization_issued", to_state=successor.status,
              reason=f"Transferência da autorização nº {auth.number} (pedido {req.protocol})",
              data={"number": successor.number, "predecessor": auth.number, "valid_until": successor.valid_until.isoformat()})
    result: dict[str, Any] = {"authorization": {"id": successor.pk, "number": successor.number},
                              "predecessor": auth.number}
    if _alvara_scope(pack) != "none":
        alvara = alvara_issue(actor=actor, authorization=successor, person=new_holder)
        result["alvara"] = {"id": alvara.pk, "number": alvara.number}
    if open_assignment is not None:
        _assignment_close(actor=actor, assignment=open_assignment, reason="Transferência da autorização")
        moved = StandAssignment.objects.create(
            stand=open_assignment.stand, authorization=successor, status=open_assignment.status,
            registered_on=today, vehicle_year=vehicle.manufacture_year if vehicle else None)
        audit_log(actor=actor, obj=moved, action="stand_assigned", to_state=moved.status,
                  reason="Transferência da autorização")
    notify(recipient=new_holder, subject=f"Autorização nº {successor.number} transferida para você",
           body=f"A autorização nº {auth.number} foi transferida para você sob o nº {successor.number}.",
           link=reverse("lifecycle-mine"), dedup_key=f"transfer-new:{req.pk}")
    return result


def _apply_renunciation(*, actor, req, auth, pack, reason) -> dict:
    authorization_set_status(actor=actor, authorization=auth, to=AuthorizationStatus.RENOUNCED,
                             reason=f"Renúncia (pedido {req.protocol}). {req.data.get('reason', '')}".strip(),
                             data={"request": req.protocol, "fee_notice": req.data.get("fee_notice", "")})
    for assignment in StandAssignment.objects.filter(
        authorization=auth, status__in=[AssignmentStatus.ACTIVE, AssignmentStatus.WAITING]
    ).select_related("stand"):
        _assignment_close(actor=actor, assignment=assignment, reason="Renúncia da autorização")
        _fill_places(actor=actor, stand=assignment.stand)
    return {"status": AuthorizationStatus.RENOUNCED, "fee_notice": req.data.get("fee_notice", "")}


def _apply_preposto(*, actor, req, auth, pack, reason) -> dict:
    person = get_user_model().objects.get(cpf=req.data["preposto_cpf"])
    preposto = Preposto.objects.create(
        authorization=auth, person=person, request=req, invalidity_on=date.fromisoformat(req.data["invalidity_on"]),
        starts_on=pack.today(), legal_basis=req.legal_basis,
    )
    audit_log(actor=actor, obj=preposto, action="preposto_appointed", reason=reason,
              data={"authorization": auth.number, "request": req.protocol})
    notify(recipient=person, subject=f"Você foi constituído preposto da autorização nº {auth.number}",
           body="O titular mantém a autorização por invalidez permanente e você passa a prestar o serviço como preposto.",
           dedup_key=f"preposto:{req.pk}")
    return {"preposto": preposto.pk}


def _resolve_notices(**filters) -> int:
    return YearlyNotice.objects.filter(resolved_at__isnull=True, **filters).update(resolved_at=timezone.now())


def _apply_auxiliary_reregistration(*, actor, req, auth, pack, reason) -> dict:
    aux = AuxiliaryDriver.objects.select_for_update().select_related("person").filter(
        pk=req.data["auxiliary"], authorization=auth).first()
    if aux is None or aux.status != AuxiliaryStatus.ACTIVE:
        raise InvalidTransition("O condutor auxiliar já não está ativo nesta autorização.")
    before = auxiliary_registered_on(aux)
    today = pack.today()
    aux.registered_on = today
    aux.save(update_fields=["registered_on"])
    audit_log(actor=actor, obj=aux, action="auxiliary_reregistered", reason=reason or req.legal_basis,
              data={"previous": before.isoformat(), "registered_on": today.isoformat(), "request": req.protocol,
                    "legal_basis": req.legal_basis})
    _resolve_notices(auxiliary=aux, obligation=YearlyObligation.AUXILIARY_REREGISTRATION)
    result: dict[str, Any] = {"auxiliary": aux.pk, "registered_on": today.isoformat(),
                              "next_due_on": auxiliary_reregistration_due(today).isoformat()}
    if _alvara_scope(pack) == "driver":
        old = auth.alvaras.filter(person=aux.person, is_auxiliary=True, status=AlvaraStatus.ACTIVE).order_by(
            "-issued_at", "-id").first()
        alvara = alvara_issue(actor=actor, authorization=auth, person=aux.person, is_auxiliary=True, supersedes=old)
        result["alvara"] = {"id": alvara.pk, "number": alvara.number,
                            "supersedes": old.number if old else None}
    return result


def _apply_compliance_proof(*, actor, req, auth, pack, reason) -> dict:
    year = int(req.data["year"])
    audit_log(actor=actor, obj=auth, action="compliance_proof_accepted", reason=reason or req.legal_basis,
              data={"year": year, "due_on": req.data.get("due_on"), "request": req.protocol,
                    "legal_basis": req.legal_basis})
    _resolve_notices(authorization=auth, obligation=YearlyObligation.COMPLIANCE_PROOF, year=year)
    nxt = compliance_next_due(valid_from=auth.valid_from, valid_until=auth.valid_until,
                              proven_years=_compliance_proven_years(auth, req.pk) | {year})
    return {"year": year, "next_due_on": nxt[1].isoformat() if nxt else None}


APPLIERS = {
    RequestKind.AUXILIARY_ADD: _apply_auxiliary_add,
    RequestKind.AUXILIARY_REMOVE: _apply_auxiliary_remove,
    RequestKind.SUBSTITUTION: _apply_substitution,
    RequestKind.LEAVE: _apply_leave,
    RequestKind.TRANSFER: _apply_transfer,
    RequestKind.RENUNCIATION: _apply_renunciation,
    RequestKind.PREPOSTO: _apply_preposto,
    RequestKind.AUXILIARY_REREGISTRATION: _apply_auxiliary_reregistration,
    RequestKind.COMPLIANCE_PROOF: _apply_compliance_proof,
}


# --- leave return and overdue job -----------------------------------------------------
@transaction.atomic
def leave_record_return(*, actor, leave: LeaveOfAbsence, returned_on: date | None = None) -> LeaveOfAbsence:
    locked = LeaveOfAbsence.objects.select_for_update().get(pk=leave.pk)
    if locked.status == LeaveStatus.RETURNED:
        raise InvalidTransition("O retorno deste afastamento já foi registrado.")
    pack = regulation.current()
    returned_on = returned_on or pack.today()
    if returned_on < locked.starts_on:
        raise ValidationError({"returned_on": ["O retorno não pode ser anterior ao início do afastamento."]})
    before = locked.status
    locked.status = LeaveStatus.RETURNED
    locked.returned_on = returned_on
    locked.save(update_fields=["status", "returned_on"])
    audit_log(actor=actor, obj=locked, action="leave_returned", from_state=before, to_state=locked.status,
              data={"returned_on": returned_on.isoformat(), "late": returned_on > locked.ends_on})
    return locked


def leaves_flag_overdue(*, today: date | None = None) -> int:
    """Flag leaves whose last day has passed without a return; idempotent (one row at a time,
    conditional update on the status)."""
    pack = regulation.current()
    today = today or pack.today()
    flagged = 0
    ids = list(LeaveOfAbsence.objects.filter(status=LeaveStatus.ACTIVE, ends_on__lt=today).values_list("pk", flat=True))
    for pk in ids:
        with transaction.atomic():
            changed = LeaveOfAbsence.objects.filter(pk=pk, status=LeaveStatus.ACTIVE).update(
                status=LeaveStatus.OVERDUE, flagged_at=timezone.now())
            if not changed:
                continue
            leave = LeaveOfAbsence.objects.select_related("authorization__holder").get(pk=pk)
            audit_log(actor=None, obj=leave, action="leave_overdue", from_state=LeaveStatus.ACTIVE,
                      to_state=LeaveStatus.OVERDUE, reason=f"Afastamento terminou em {leave.ends_on:%d/%m/%Y} sem retorno.")
            auth = leave.authorization
            body = (f"O afastamento da autorização nº {auth.number} terminou em {leave.ends_on:%d/%m/%Y} e o retorno "
                    f"não foi registrado ({leave.legal_basis}).")
            notify(recipient=auth.holder, subject="Retorno de afastamento em atraso", body=body,
                   link=reverse("lifecycle-mine"), dedup_key=f"leave-overdue:{pk}")
            _notify_clerks(subject=f"Retorno em atraso — autorização nº {auth.number}", body=body,
                           link=reverse("lifecycle-queue"), dedup=f"leave-overdue-clerk:{pk}")
            flagged += 1
    return flagged


# --- yearly obligations job -------------------------------------------------------------
def _yearly_notice(*, key: str, obligation: str, stage: str, auth: Authorization, due_on: date, legal_basis: str,
                   auxiliary: AuxiliaryDriver | None = None, year: int | None = None) -> YearlyNotice | None:
    """Create the notice once (the unique key); ``None`` when it already exists."""
    if YearlyNotice.objects.filter(key=key).exists():
        return None
    from django.db import IntegrityError

    try:
        with transaction.atomic():
            return YearlyNotice.objects.create(key=key, obligation=obligation, stage=stage, authorization=auth,
                                               auxiliary=auxiliary, due_on=due_on, year=year,
                                               legal_basis=legal_basis[:300])
    except IntegrityError:
        return None


def _reregistration_sweep(pack, today: date) -> int:
    done = 0
    pending = {
        int(d.get("auxiliary") or 0)
        for d in LifecycleRequest.objects.filter(kind=RequestKind.AUXILIARY_REREGISTRATION,
                                                 status=RequestStatus.FILED).values_list("data", flat=True)
    }
    auxiliaries = AuxiliaryDriver.objects.filter(
        status=AuxiliaryStatus.ACTIVE, authorization__status__in=CURRENT_STATUSES,
    ).select_related("authorization__holder", "person")
    for aux in auxiliaries.iterator():
        auth = aux.authorization
        param = pack.param("auxiliary.yearly_reregistration", auth.modality)
        if param is None or not param.value or aux.pk in pending:
            continue
        due = yearly_due(due_on=auxiliary_reregistration_due(auxiliary_registered_on(aux)), today=today)
        name = aux.person.display_name
        link = reverse("lifecycle-mine")
        if due.remind:
            with transaction.atomic():
                notice = _yearly_notice(key=f"aux-rereg:reminder:{aux.pk}:{due.due_on}",
                                        obligation=YearlyObligation.AUXILIARY_REREGISTRATION,
                                        stage=YearlyNoticeStage.REMINDER, auth=auth, auxiliary=aux, due_on=due.due_on,
                                        legal_basis=param.legal_basis)
                if notice:
                    body = (f"O recadastramento anual do condutor auxiliar {name} (autorização nº {auth.number}) "
                            f"vence em {due.due_on:%d/%m/%Y}. Faça o pedido em Minha autorização ({param.legal_basis}).")
                    for person in {auth.holder, aux.person}:
                        notify(recipient=person, subject="Recadastramento anual de condutor auxiliar a vencer",
                               body=body, link=link, dedup_key=f"aux-rereg-reminder:{aux.pk}:{due.due_on}:{person.pk}")
                    done += 1
        elif due.overdue:
            with transaction.atomic():
                notice = _yearly_notice(key=f"aux-rereg:overdue:{aux.pk}:{due.due_on}",
                                        obligation=YearlyObligation.AUXILIARY_REREGISTRATION,
                                        stage=YearlyNoticeStage.OVERDUE, auth=auth, auxiliary=aux, due_on=due.due_on,
                                        legal_basis=param.legal_basis)
                if notice:
                    body = (f"O recadastramento anual do condutor auxiliar {name} (autorização nº {auth.number}) "
                            f"venceu em {due.due_on:%d/%m/%Y} ({param.legal_basis}).")
                    audit_log(actor=None, obj=aux, action="auxiliary_reregistration_overdue",
                              reason=body, data={"due_on": due.due_on.isoformat(), "legal_basis": param.legal_basis})
                    notify(recipient=auth.holder, subject="Recadastramento de condutor auxiliar vencido", body=body,
                           link=link, dedup_key=f"aux-rereg-overdue:{aux.pk}:{due.due_on}")
                    _notify_clerks(subject=f"Recadastramento vencido — autorização nº {auth.number}", body=body,
                                   link=reverse("lifecycle-queue"), dedup=f"aux-rereg-overdue-clerk:{aux.pk}:{due.due_on}")
                    done += 1
    return done


def _compliance_sweep(pack, today: date) -> int:
    done = 0
    proofs: dict[int, set[int]] = {}
    for auth_id, data in LifecycleRequest.objects.filter(
        kind=RequestKind.COMPLIANCE_PROOF, status__in=[RequestStatus.FILED, RequestStatus.APPROVED]
    ).values_list("authorization_id", "data"):
        proofs.setdefault(auth_id, set()).add(int(data.get("year") or 0))
    for auth in Authorization.objects.filter(status__in=CURRENT_STATUSES).select_related("holder").iterator():
        param = pack.param("grant.yearly_compliance_proof", auth.modality)
        if param is None or not param.value:
            continue
        nxt = compliance_next_due(valid_from=auth.valid_from, valid_until=auth.valid_until,
                                  proven_years=proofs.get(auth.pk, set()))
        if nxt is None:
            continue
        year, due_on = nxt
        due = yearly_due(due_on=due_on, today=today)
        stage = YearlyNoticeStage.REMINDER if due.remind else YearlyNoticeStage.OVERDUE if due.overdue else None
        if stage is None:
            continue
        with transaction.atomic():
            notice = _yearly_notice(key=f"compliance:{stage}:{auth.pk}:{year}", obligation=YearlyObligation.COMPLIANCE_PROOF,
                                    stage=stage, auth=auth, due_on=due_on, year=year, legal_basis=param.legal_basis)
            if not notice:
                continue
            link = reverse("lifecycle-mine")
            if stage == YearlyNoticeStage.REMINDER:
                body = (f"A comprovação dos requisitos do {year}º ano da permissão nº {auth.number} vence em "
                        f"{due_on:%d/%m/%Y}. Apresente os documentos em Minha autorização ({param.legal_basis}).")
                notify(recipient=auth.holder, subject="Comprovação anual dos requisitos a vencer", body=body,
                       link=link, dedup_key=f"compliance-reminder:{auth.pk}:{year}")
            else:
                body = (f"A comprovação dos requisitos do {year}º ano da permissão nº {auth.number} venceu em "
                        f"{due_on:%d/%m/%Y} sem ser apresentada ({param.legal_basis}).")
                audit_log(actor=None, obj=auth, action="compliance_proof_overdue", reason=body,
                          data={"year": year, "due_on": due_on.isoformat(), "legal_basis": param.legal_basis})
                notify(recipient=auth.holder, subject="Comprovação anual dos requisitos vencida", body=body,
                       link=link, dedup_key=f"compliance-overdue:{auth.pk}:{year}")
                _notify_clerks(subject=f"Comprovação anual vencida — permissão nº {auth.number}", body=body,
                               link=reverse("lifecycle-queue"), dedup=f"compliance-overdue-clerk:{auth.pk}:{year}")
            done += 1
    return done


def yearly_obligations_check(*, today: date | None = None) -> int:
    """Remind (30 days before) and flag overdue yearly obligations: the auxiliary drivers'
    re-registration and the permission's proof of requirements. Idempotent: each reminder and
    each flag is a ``YearlyNotice`` with a unique key, created once."""
    pack = regulation.current()
    today = today or pack.today()
    return _reregistration_sweep(pack, today) + _compliance_sweep(pack, today)
