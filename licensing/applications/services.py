"""Applications (requerimentos): draft → submitted → review → inspection → decision.

One service per transition of ``APPLICATION_TRANSITIONS``; each runs in one transaction,
writes an audit entry and notifies the applicant of the new status.
"""

from __future__ import annotations

from decimal import Decimal

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from fleet.models import Vehicle, VehicleKind
from fleet.services import save_own_vehicle
from licensing.applications import rules
from licensing.applications.calls import open_call_for
from licensing.applications.entry import (
    _check_data,
    _renewable_authorization,
    check_holder,
    entry_violations,
)
from licensing.applications.models import (
    APPLICATION_TRANSITIONS,
    UPLOAD_STATUSES,
    Application,
    ApplicationAuxiliary,
    ApplicationDocument,
    ApplicationKind,
    ApplicationStatus,
    DocumentStatus,
)
from licensing.applications.selectors import (
    RequiredDocument,
    _receipt_waived_by_paid_tff,
    approval_blockers,
    current_documents,
    pending_ranking,
    required_documents,
)
from licensing.fees.services import application_tff, tff_settle_on_grant
from licensing.grants.models import (
    CURRENT_STATUSES,
    Alvara,
    Authorization,
    AuthorizationStatus,
    GrantLock,
)
from licensing.grants.services import (
    authorization_issue,
    authorization_set_status,
)
from portal import regulation
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import InvalidTransition, RuleViolation, RuleViolations
from portal.notifications import notify
from portal.numbering import protocol_number
from portal.roles import Role
from portal.uploads import validate_upload
from portal.validators import (
    normalize_cpf,
    normalize_plate,
    only_digits,
)


def _save_vehicle(applicant, modality: str, data: dict) -> Vehicle:
    """The applicant's own row for the declared plate, created or updated with what they declared.
    Another person's declaration of the same plate (their pending application, their row) is
    never touched: both rows stand, the clerk's page shows the conflict, and the CRLV settles it
    (approval refuses a plate while another person holds a grant in force on it)."""
    fields = {k: data.get(k) for k in ("renavam", "make", "model", "color", "manufacture_year",
                                       "first_registration_date", "doors", "seats", "engine_cc")}
    fields["renavam"] = only_digits(fields["renavam"] or "").zfill(11)
    fields["kind"] = VehicleKind.MOTORCYCLE if modality == "mototaxi" else VehicleKind.CAR
    if data.get("registration_category"):
        fields["registration_category"] = data["registration_category"]
    vehicle, _ = save_own_vehicle(owner=applicant, plate=normalize_plate(data["plate"]), fields=fields)
    return vehicle


def _save_auxiliaries(application: Application, auxiliaries: list[dict]) -> None:
    existing = {a.position: a for a in application.auxiliaries.all()}
    for i, aux in enumerate(auxiliaries, start=1):
        row = existing.pop(i, None) or ApplicationAuxiliary(application=application, position=i)
        row.cpf = normalize_cpf(aux["cpf"])
        row.name = aux["name"].strip()
        row.birth_date = aux.get("birth_date")
        row.cnh_number = only_digits(aux.get("cnh_number", ""))
        row.cnh_category = (aux.get("cnh_category") or "").upper()
        row.cnh_first_issued = aux.get("cnh_first_issued")
        row.cnh_ear = bool(aux.get("cnh_ear"))
        row.save()
    for row in existing.values():  # removed from the draft; documents sent for them stay, unlinked
        if row.documents.exists():
            raise ValidationError({"auxiliary_drivers": [
                f"O condutor auxiliar {row.position} já tem documentos enviados e não pode ser retirado."]})
        row.delete()


def _apply_driver(application: Application, driver: dict) -> None:
    application.cnh_number = only_digits(driver.get("cnh_number", ""))
    application.cnh_category = (driver.get("cnh_category") or "").upper()
    application.cnh_first_issued = driver.get("cnh_first_issued")
    application.cnh_ear = bool(driver.get("cnh_ear"))
    for name in ("cnh_points", "schooling", "dependents"):
        if driver.get(name) is not None:
            setattr(application, name, driver[name])


@transaction.atomic
def application_create(*, actor, applicant, kind: str, modality: str, vehicle: dict | None = None,
                       driver: dict | None = None, auxiliaries: list[dict] | None = None,
                       bid_amount: Decimal | None = None, extra: dict | None = None,
                       steps: tuple[str, ...] = ("all",), holder: dict | None = None) -> Application:
    """Create a draft application after judging every entry rule that the data allows.

    ``holder`` = {holder_type, company_name, cnpj}: who applies (pack key grant.holder_types). A
    renewal keeps the holder of the grant it renews, whatever is passed."""
    pack = regulation.current()
    auxiliaries = auxiliaries or []
    closed = pack.modality_refusal(modality)  # unknown (400), or left to a decree not yet in force (409)
    if closed is not None:
        raise closed
    previous = _renewable_authorization(applicant, modality) if kind == ApplicationKind.RENEWAL else None
    if previous is not None:  # the renewal is of the same act, so of the same holder
        holder = {"holder_type": previous.holder_type, "company_name": previous.company_name, "cnpj": previous.cnpj}
    holder_fields = check_holder(pack, modality, holder)
    _check_data(vehicle, auxiliaries, applicant, driver)
    violations = entry_violations(applicant=applicant, kind=kind, modality=modality, vehicle=vehicle, driver=driver,
                                  auxiliaries=auxiliaries, bid_amount=bid_amount, steps=steps)
    if violations:
        raise RuleViolations(violations)
    application = Application(applicant=applicant, kind=kind, modality=modality, bid_amount=bid_amount,
                              call=open_call_for(modality) if kind == ApplicationKind.NEW else None)
    for name, value in holder_fields.items():
        setattr(application, name, value)
    if kind == ApplicationKind.RENEWAL:
        application.previous_authorization = previous
    if driver:
        _apply_driver(application, driver)
    for name, value in (extra or {}).items():
        if value is not None:
            setattr(application, name, value)
    if vehicle:
        application.vehicle = _save_vehicle(applicant, modality, vehicle)
    application.save()
    _save_auxiliaries(application, auxiliaries)
    audit_log(actor=actor, obj=application, action=AuditAction.APPLICATION_CREATED, to_state=application.status,
              data={"kind": kind, "modality": modality})
    return application


@transaction.atomic
def application_update(*, actor, application: Application, step: str, vehicle: dict | None = None,
                       driver: dict | None = None, auxiliaries: list[dict] | None = None,
                       bid_amount: Decimal | None = None, extra: dict | None = None) -> Application:
    """Save one step of a draft (the wizard), judging the rules of that step."""
    application = Application.objects.select_for_update().get(pk=application.pk)
    if application.status != ApplicationStatus.DRAFT:
        raise InvalidTransition("Só é possível alterar um requerimento em rascunho.")
    if step == "auxiliaries":
        _check_data(None, auxiliaries or [], application.applicant)
    if step == "vehicle":
        _check_data(vehicle, [], application.applicant)
    if step == "driver":
        _check_data(None, [], application.applicant, driver)
    violations = entry_violations(applicant=application.applicant, kind=application.kind, modality=application.modality,
                                  vehicle=vehicle, driver=driver, auxiliaries=auxiliaries or [], bid_amount=bid_amount,
                                  exclude=application, steps=(step,))
    if violations:
        raise RuleViolations(violations)
    if vehicle is not None:
        application.vehicle = _save_vehicle(application.applicant, application.modality, vehicle)
        _drop_copies_of_another_vehicle(actor, application)
    if driver is not None:
        _apply_driver(application, driver)
    if bid_amount is not None:
        application.bid_amount = bid_amount
    for name, value in (extra or {}).items():
        setattr(application, name, value)
    if auxiliaries is not None:
        _save_auxiliaries(application, auxiliaries)
    if step in (application.typed or {}):
        application.typed = {k: v for k, v in application.typed.items() if k != step}  # judged now
    application.save()
    audit_log(actor=actor, obj=application, action=AuditAction.APPLICATION_DRAFT_SAVED, data={"step": step})
    return application


def vehicle_document_codes() -> set[str]:
    """The pack's checklist items about the vehicle (``vehicle = true``: CRLV, insurance…)."""
    return {d["code"] for d in regulation.current().data.get("documents", []) if d.get("vehicle")}


def _drop_copies_of_another_vehicle(actor, application: Application) -> None:
    """A renewal carries the accepted CRLV, insurance… of the vehicle they were accepted for
    (renewal.carry_documents); when the draft's vehicle changes, those copies no longer prove
    anything about it: they leave the draft (the originals stay in the earlier application)
    and the items are asked again. One audit entry lists them."""
    stale = [d for d in application.documents.filter(carried_from__isnull=False, code__in=vehicle_document_codes())
             .select_related("carried_from__application")
             if d.carried_from.application.vehicle_id != application.vehicle_id]
    if not stale:
        return
    audit_log(actor=actor, obj=application, action=AuditAction.DOCUMENTS_CARRIED_DROPPED, to_state=application.status,
              reason="O veículo do requerimento mudou: os documentos do veículo anterior devem ser enviados de novo",
              data={"documents": [{"type": d.type, "from_document": d.carried_from_id} for d in stale]})
    for doc in stale:
        storage, name = doc.file.storage, doc.file.name
        doc.delete()
        # the copy's own file (the original is untouched), once the row is surely gone
        transaction.on_commit(lambda storage=storage, name=name: storage.delete(name))


TYPED_MAX_CHARS = 300  # per field: more than any field of the wizard takes


@transaction.atomic
def application_keep_typed(*, actor, application: Application, step: str, values: dict[str, str]) -> Application:
    """"Salvar e continuar depois" on a step that is not complete or not valid yet: keep what
    was typed, as typed, without judging it (the step is judged when it is continued, and the
    draft cannot be protocolled while a step holds unjudged values)."""
    application = Application.objects.select_for_update().get(pk=application.pk)
    if application.status != ApplicationStatus.DRAFT:
        raise InvalidTransition("Só é possível alterar um requerimento em rascunho.")
    kept = {str(k): str(v)[:TYPED_MAX_CHARS] for k, v in values.items() if str(v).strip()}
    application.typed = {**(application.typed or {}), step: kept}
    application.save(update_fields=["typed", "updated_at"])
    audit_log(actor=actor, obj=application, action=AuditAction.APPLICATION_DRAFT_SAVED,
              data={"step": step, "unjudged_fields": sorted(kept)})
    return application


# --- transitions ----------------------------------------------------------------------------------


def _status_link(application: Application) -> str:
    return reverse("licensing-application", kwargs={"pk": application.pk})


def _transition(application: Application, to: str, *, actor, reason: str = "", action: str = "application_status",
                data: dict | None = None, notice: tuple[str, str] | None = None) -> None:
    """Move a locked application to ``to`` (checked against APPLICATION_TRANSITIONS), audit and notify."""
    before = application.status
    if to not in APPLICATION_TRANSITIONS.get(before, set()):
        raise InvalidTransition(
            f"O requerimento está {application.get_status_display()} e não pode passar a {ApplicationStatus(to).label}."
        )
    application.status = to
    application.save()
    audit_log(actor=actor, obj=application, action=action, from_state=before, to_state=to, reason=reason, data=data)
    label = ApplicationStatus(to).label
    body = f"Seu requerimento {application.protocol or ''} passou para: {label}."
    if reason:
        body += f"\nMotivo: {reason}"
    link = _status_link(application)
    if notice is not None:  # a decision names what it issued and links to it
        body, link = notice
    notify(recipient=application.applicant, subject=f"Requerimento {application.protocol or ''}: {label}".replace("  ", " "),
           body=body, link=link)


def _lock(application: Application) -> Application:
    return Application.objects.select_for_update(of=("self",)).select_related("applicant", "vehicle").get(pk=application.pk)


def _resolve_type(application: Application, doc_type: str) -> RequiredDocument:
    for item in required_documents(application):
        if item.code == doc_type:
            return item
    raise ValidationError({"type": [f"Item de documento desconhecido: {doc_type!r}. Use um dos códigos da lista de "
                                    "documentos exigidos."]})


@transaction.atomic
def document_upload(*, actor, application: Application, doc_type: str, file) -> ApplicationDocument:
    """Store a file for a checklist item; a previous file of the item is superseded, never deleted."""
    application = _lock(application)
    if application.status not in UPLOAD_STATUSES:
        raise InvalidTransition(f"O requerimento está {application.get_status_display()}: não recebe mais documentos.")
    item = _resolve_type(application, doc_type)
    try:
        mime = validate_upload(file, label=item.label)  # the refusal names the checklist item
    except ValidationError as exc:
        raise ValidationError({"file": exc.messages}) from exc
    previous = application.documents.filter(type=item.code, superseded_by__isnull=True).first()
    open_reqs = application.requirements.filter(answered_at__isnull=True)
    requested = open_reqs.filter(document_type__in=[item.code, ""]).exists()
    if application.status != ApplicationStatus.DRAFT and previous is not None \
            and previous.status != DocumentStatus.REJECTED and not requested:
        raise InvalidTransition("Este documento já foi enviado e não foi recusado nem objeto de exigência.", field="type")
    document = ApplicationDocument.objects.create(
        application=application, type=item.code, code=item.base_code, auxiliary=item.auxiliary, file=file,
        original_name=(getattr(file, "name", "") or "")[-200:], mime=mime, size=file.size, uploaded_by=actor,
    )
    if previous is not None:
        previous.superseded_by = document
        previous.save(update_fields=["superseded_by"])
    audit_log(actor=actor, obj=application, action=AuditAction.DOCUMENT_UPLOADED,
              data={"type": item.code, "document": document.pk, "supersedes": previous.pk if previous else None})
    if application.status != ApplicationStatus.DRAFT:
        answered = open_reqs.filter(document_type__in=[item.code, ""])
        for req in answered:
            req.answered_at = timezone.now()
            req.answer_document = document
            req.save(update_fields=["answered_at", "answer_document"])
        if application.status == ApplicationStatus.REQUIREMENT and not open_reqs.filter(answered_at__isnull=True).exists():
            _transition(application, ApplicationStatus.IN_REVIEW, actor=actor, reason="Exigência atendida")
    return document


@transaction.atomic
def application_submit(*, actor, application: Application) -> Application:
    """Protocol the application: every entry rule again, and every required document sent."""
    application = _lock(application)
    if application.status != ApplicationStatus.DRAFT:
        raise InvalidTransition(f"O requerimento já está {application.get_status_display()}.")
    errors: dict[str, list[str]] = {}
    if application.vehicle is None:
        errors["vehicle"] = ["Informe os dados do veículo."]
    if not application.cnh_category:
        errors["driver"] = ["Informe os dados da sua CNH."]
    for step, label in (("vehicle", "veículo"), ("driver", "condutor"), ("auxiliaries", "auxiliares")):
        if (application.typed or {}).get(step):
            errors.setdefault(step, []).append(
                f"A etapa “{label}” tem dados salvos para continuar depois e ainda não conferidos: "
                "abra a etapa e use “Salvar e continuar”.")
    if errors:
        raise ValidationError(errors)
    auxiliaries = list(application.auxiliaries.all())
    v = application.vehicle
    violations = entry_violations(
        applicant=application.applicant, kind=application.kind, modality=application.modality,
        vehicle={"plate": v.plate, "manufacture_year": v.manufacture_year, "color": v.color, "doors": v.doors,
                 "first_registration_date": v.first_registration_date, "seats": v.seats, "engine_cc": v.engine_cc},
        driver={"cnh_category": application.cnh_category, "cnh_first_issued": application.cnh_first_issued,
                "cnh_ear": application.cnh_ear},
        auxiliaries=[{"cpf": a.cpf, "name": a.name, "birth_date": a.birth_date, "cnh_category": a.cnh_category,
                      "cnh_first_issued": a.cnh_first_issued, "cnh_ear": a.cnh_ear} for a in auxiliaries],
        bid_amount=application.bid_amount, exclude=application,
    )
    sent = current_documents(application)
    waived = _receipt_waived_by_paid_tff(application)
    for item in required_documents(application, auxiliaries):
        doc = sent.get(item.code)
        if item.code == waived:
            continue
        if doc is None or doc.status == DocumentStatus.REJECTED:
            violations.append(RuleViolation("documents.missing", f"Falta enviar: {item.label}.", item.legal_basis,
                                            field="documents"))
    if violations:
        raise RuleViolations(violations)
    pack = regulation.current()
    application.protocol = protocol_number(pack.today().year)
    application.submitted_at = timezone.now()
    if application.kind == ApplicationKind.NEW and application.call is None:
        application.call = open_call_for(application.modality)
    _transition(application, ApplicationStatus.SUBMITTED, actor=actor, reason="Requerimento protocolado",
                data={"protocol": application.protocol})
    from licensing.applications.tasks import (
        freeze_receipt,  # the receipt as protocolled, byte for byte
    )

    transaction.on_commit(lambda: freeze_receipt.delay(application.pk))
    return application


def _person_for_auxiliary(aux: ApplicationAuxiliary):
    User = get_user_model()
    person = User.objects.filter(cpf=aux.cpf).first()
    if person is None:
        person = User(username=aux.cpf, cpf=aux.cpf, name=aux.name)
        person.set_unusable_password()
        person.save()
        person.groups.add(Group.objects.get(name=Role.APPLICANT))
    if aux.person_id != person.pk:
        aux.person = person
        aux.save(update_fields=["person"])
    return person


@transaction.atomic
def application_approve(*, actor, application: Application) -> tuple[Authorization, list[Alvara]]:
    """Grant: the pack's act and alvará(s), within the quota (locked per modality)."""
    application = _lock(application)
    if ApplicationStatus.APPROVED not in APPLICATION_TRANSITIONS.get(application.status, set()):
        raise InvalidTransition(f"O requerimento está {application.get_status_display()} e não pode ser deferido.")
    blockers = approval_blockers(application)
    if blockers:
        tff = application_tff(application)
        unpaid = tff.settlement.violation if tff is not None else None
        if unpaid is not None:  # a legal rule among the blockers: the answer names it
            raise RuleViolation(unpaid.code, " ".join(blockers), unpaid.legal_basis, field="non_field_errors",
                                conflict=True)
        raise InvalidTransition(" ".join(blockers), field="non_field_errors")
    pack = regulation.current()
    modality = application.modality
    GrantLock.objects.bulk_create([GrantLock(modality=modality)], ignore_conflicts=True)
    GrantLock.objects.select_for_update().get(modality=modality)
    previous = application.previous_authorization if application.kind == ApplicationKind.RENEWAL else None
    if previous is None:
        slots, basis = rules.grant_slots(pack.population, pack.param("quota.inhabitants_per_slot", modality),
                                         pack.param("quota.fixed_slots", modality))
        current = Authorization.objects.filter(modality=modality, status__in=CURRENT_STATUSES).count()
        violations = rules.quota_available(slots, current, basis)
        call = application.call
        if not violations and call is not None and call.slots is not None:
            granted = Application.objects.filter(call=call, status=ApplicationStatus.APPROVED).count()
            if granted >= call.slots:
                violations = [RuleViolation("call.slots_full", f"As {call.slots} vagas do edital já foram preenchidas.",
                                            pack.basis("selection.method", modality), conflict=True)]
        if violations:
            raise violations[0]
    _ranking_check(pack, application)
    renewed_until = None
    if previous is not None:
        renewed_until = rules.renewal_valid_until(previous.valid_until, pack.today(),
                                                  int(pack.value("grant.validity_years", modality)),
                                                  pack.param("renewal.extends_term", modality))
    if previous is not None and previous.status in CURRENT_STATUSES:
        authorization_set_status(actor=actor, authorization=previous, to=AuthorizationStatus.EXPIRED,
                                 reason=f"Substituída pela renovação do requerimento {application.protocol}")
    named = list(application.auxiliaries.all())
    auxiliaries = [_person_for_auxiliary(a) for a in named]
    authorization, alvaras = authorization_issue(
        actor=actor, holder=application.applicant, vehicle=application.vehicle, modality=modality,
        auxiliaries=auxiliaries, reason=f"Requerimento {application.protocol} deferido", valid_until=renewed_until,
        holder_type=application.holder_type, company_name=application.company_name, cnpj=application.cnpj,
    )
    _register_auxiliaries(actor=actor, authorization=authorization, named=named)
    if previous is not None:
        authorization.renewals = previous.renewals + 1
        authorization.save(update_fields=["renewals"])
    tff_settle_on_grant(actor=actor, application=application, authorization=authorization)
    application.authorization = authorization
    application.decided_at = timezone.now()
    application.decided_by = actor
    application.decision_reason = "Deferido"
    docs = "".join(f"; {a.doc_name} nº {a.number}" for a in alvaras)
    notice = (f"Seu requerimento {application.protocol} foi deferido: {authorization.act_name} nº "
              f"{authorization.number}, válida até {authorization.valid_until:%d/%m/%Y}{docs}. "
              "O ato em PDF está no link abaixo; os alvarás, na página do requerimento.",
              reverse("api-authorization-act-pdf", kwargs={"pk": authorization.pk}))
    _transition(application, ApplicationStatus.APPROVED, actor=actor, reason="Requerimento deferido",
                data={"authorization": authorization.number, "alvaras": [a.number for a in alvaras]}, notice=notice)
    return authorization, alvaras


def _ranking_check(pack, application: Application) -> None:
    """The ranking decides (e.g. art. 17, §6–7; a bidding's highest offer): while the requests
    exceed the free places, only those ranked within them may be granted; renewals go first but,
    where the quota binds them (``quota.binds_renewals``), not beyond it (see
    ``selectors.Ranking``)."""
    ranking = pending_ranking(application.modality)
    position = ranking.position_of(application.pk)
    if position is None or not ranking.exceeds or ranking.within(position):
        return
    basis = pack.basis("ranking.criteria", application.modality) or ranking.quota_basis
    ahead = ranking.last_within()
    if ahead is None:
        raise RuleViolation("ranking.no_free_place", f"Não há vaga livre para o requerimento {application.protocol}: "
                            f"as {ranking.slots} vagas estão ocupadas por outorgas vigentes.",
                            ranking.quota_basis or basis, conflict=True)
    raise rules.ranking_order_violation(
        position=position, free=ranking.free, protocol=application.protocol, ahead=ahead,
        ahead_protocol=ahead.key.protocol, entry=ranking.entries[position - 1], criteria=ranking.criteria,
        legal_basis=basis)


def _register_auxiliaries(*, actor, authorization: Authorization, named: list[ApplicationAuxiliary]) -> None:
    """The auxiliary drivers named in the application become the grant's registered auxiliaries
    (the record that the auxiliary limit, the yearly re-registration and a cassação bar read)."""
    from licensing.requests.models import AuxiliaryDriver

    today = regulation.current().today()
    for aux in named:
        row = AuxiliaryDriver.objects.create(
            authorization=authorization, person=aux.person, cnh_number=aux.cnh_number,
            cnh_category=aux.cnh_category, cnh_first_issued=aux.cnh_first_issued, cnh_ear=aux.cnh_ear,
            added_on=today,
        )
        audit_log(actor=actor, obj=row, action=AuditAction.AUXILIARY_ADDED, to_state=row.status,
                  reason="Condutor auxiliar indicado no requerimento", data={"authorization": authorization.number})


@transaction.atomic
def application_reject(*, actor, application: Application, reason: str) -> Application:
    application = _lock(application)
    if not (reason or "").strip():
        raise ValidationError({"reason": ["Informe o motivo do indeferimento, com a base legal se houver."]})
    application.decided_at = timezone.now()
    application.decided_by = actor
    application.decision_reason = reason.strip()
    _transition(application, ApplicationStatus.REFUSED, actor=actor, reason=reason.strip())
    return application


@transaction.atomic
def application_withdraw(*, actor, application: Application, reason: str = "") -> Application:
    """Desistência: the applicant gives up; the request leaves the ranking and the next takes its place."""
    application = _lock(application)
    application.decided_at = timezone.now()
    application.decision_reason = (reason or "").strip() or "Desistência do requerente"
    _transition(application, ApplicationStatus.WITHDRAWN, actor=actor, reason=application.decision_reason,
                action=AuditAction.APPLICATION_WITHDRAWN)
    return application
