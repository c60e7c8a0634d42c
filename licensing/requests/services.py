"""Writes of a grant's requests: filed and decided through the kinds' registry
(``licensing.requests.kinds``), the substitute vehicle's vistoria, leave returns and the
periodic jobs (overdue leaves, yearly obligations). Every action is one transaction with an
audit entry; issued documents are superseded or cancelled, never edited.
"""

from __future__ import annotations

from datetime import date

from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from licensing.applications import rules as entry_rules
from licensing.grants.documents import freeze_grant_documents
from licensing.grants.models import CURRENT_STATUSES, Authorization
from licensing.requests.kinds import KINDS
from licensing.requests.kinds.base import auxiliary_registered_on, notify_clerks, request_link
from licensing.requests.models import (
    AuxiliaryDriver,
    AuxiliaryStatus,
    LeaveOfAbsence,
    LeaveStatus,
    LifecycleRequest,
    RequestKind,
    RequestStatus,
    YearlyNotice,
    YearlyNoticeStage,
    YearlyObligation,
)
from licensing.requests.rules import auxiliary_reregistration_due, compliance_next_due, yearly_due
from portal import regulation
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import InvalidTransition, RuleViolation
from portal.notifications import notify
from portal.numbering import protocol_number


def _is_current(authorization: Authorization) -> bool:
    return authorization.status in CURRENT_STATUSES


# --- which kinds can be filed -----------------------------------------------------------
def request_kinds_provided(pack, authorization: Authorization) -> list[tuple[str, str]]:
    """The kinds of request this pack provides for (others are refused with the article)."""
    return [(kind, label) for kind, label in RequestKind.choices
            if KINDS[kind].offered(pack, authorization.modality)]


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
    spec = KINDS[kind]
    if not spec.multiple_open and kind in state["filed_kinds"]:
        return InvalidTransition("Já há um pedido deste tipo em análise para esta autorização.", field="kind")
    if kind not in dict(request_kinds_provided(pack, auth)):
        return None  # the cleaner refuses it with the article that leaves it out
    return spec.refusal(pack, auth, state, today)


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
    if kind not in KINDS:
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
    spec = KINDS[kind]
    clean, basis = spec.clean(pack, auth, data or {}, today, None)
    req = LifecycleRequest.objects.create(
        protocol=protocol_number(today.year), authorization=auth, kind=kind, data=clean, filed_on=today,
        filed_by=actor, legal_basis=basis[:300],
    )
    audit_log(actor=actor, obj=req, action=AuditAction.LIFECYCLE_REQUEST_FILED, to_state=req.status,
              reason=req.get_kind_display(), data={"authorization": auth.number, "kind": kind})
    link = request_link(req)
    if spec.after_filing is not None:
        spec.after_filing(actor=actor, req=req, auth=auth, clean=clean, basis=basis)
    if spec.yearly and clean.get("late"):
        req.late = True
        req.late_note = (f"Apresentado depois do prazo, que venceu em {date.fromisoformat(clean['due_on']):%d/%m/%Y} "
                         f"({basis}).")
        req.save(update_fields=["late", "late_note"])
        audit_log(actor=actor, obj=req, action=AuditAction.YEARLY_OBLIGATION_LATE, reason=req.late_note,
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
    if not KINDS[req.kind].inspected:
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
    incomplete = entry_rules.inspection_checklist(approved=bool(approved), checklist=checklist, items=list(items.values()))
    if incomplete:
        raise incomplete[0]
    before = req.inspection_approved
    req.inspection_approved = bool(approved)
    req.inspection_checklist = checklist
    req.inspection_notes = (notes or "")[:2000]
    req.inspection_at = timezone.now()
    req.inspection_by = actor
    req.save(update_fields=["inspection_approved", "inspection_checklist", "inspection_notes", "inspection_at",
                            "inspection_by"])
    audit_log(actor=actor, obj=req, action=AuditAction.SUBSTITUTION_INSPECTION,
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
        spec = KINDS[req.kind]
        if spec.inspected and not req.inspection_approved:
            raise RuleViolation("substitution_inspection_required",
                                "Registre a vistoria aprovada do veículo substituto antes de deferir.",
                                req.legal_basis, field="inspection", conflict=True)
        if spec.recheck_on_decision:
            # the rules are checked again: things may have changed since the filing
            clean, _ = spec.clean(pack, auth, req.data, req.filed_on, req.pk)
            if not spec.keep_filed_data:
                req.data = {**req.data, **clean}
        # What was issued stays as issued: the act and alvarás are kept as they are before the
        # change (a substitution must never reprint the old act with the new car).
        freeze_grant_documents(auth)
        result = spec.apply(actor=actor, req=req, auth=auth, pack=pack, reason=reason)
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
    audit_log(actor=actor, obj=req, action=AuditAction.LIFECYCLE_REQUEST_DECIDED, from_state=RequestStatus.FILED,
              to_state=req.status, reason=reason, data={"result": req.result})
    verdict = "deferido" if approved else "indeferido"
    notify(recipient=auth.holder, subject=f"Pedido {req.protocol} {verdict}: {req.get_kind_display()}",
           body=(f"Seu pedido de {req.get_kind_display()} foi {verdict}."
                 + (f"\nFundamentação: {reason}" if reason else "")
                 + (f"\n{req.data.get('fee_notice')}" if approved and req.data.get("fee_notice") else "")),
           link=request_link(req), dedup_key=f"req-decided:{req.pk}")
    return req


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
    audit_log(actor=actor, obj=locked, action=AuditAction.LEAVE_RETURNED, from_state=before, to_state=locked.status,
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
            audit_log(actor=None, obj=leave, action=AuditAction.LEAVE_OVERDUE, from_state=LeaveStatus.ACTIVE,
                      to_state=LeaveStatus.OVERDUE, reason=f"Afastamento terminou em {leave.ends_on:%d/%m/%Y} sem retorno.")
            auth = leave.authorization
            body = (f"O afastamento da autorização nº {auth.number} terminou em {leave.ends_on:%d/%m/%Y} e o retorno "
                    f"não foi registrado ({leave.legal_basis}).")
            notify(recipient=auth.holder, subject="Retorno de afastamento em atraso", body=body,
                   link=reverse("lifecycle-mine"), dedup_key=f"leave-overdue:{pk}")
            notify_clerks(subject=f"Retorno em atraso — autorização nº {auth.number}", body=body,
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


def _rule_set(pack, key: str) -> bool:
    """Whether the pack sets the yes/no rule ``key`` today for some modality (``pack.value`` falls
    back to the rule of every modality): a sweep under a rule no modality has reads nothing (it
    read every current grant daily)."""
    return any(pack.value(key, modality) for modality in pack.modalities)


def _reregistration_sweep(pack, today: date) -> int:
    if not _rule_set(pack, "auxiliary.yearly_reregistration"):
        return 0
    done = 0
    pending = {
        int(d.get("auxiliary") or 0)
        for d in LifecycleRequest.objects.filter(kind=RequestKind.AUXILIARY_REREGISTRATION,
                                                 status=RequestStatus.FILED).values_list("data", flat=True)
    }
    # The holder and the driver (users) are read for the few notices due, not joined to every
    # auxiliary: as a join PostgreSQL may hash every user of the installation, every day.
    auxiliaries = AuxiliaryDriver.objects.filter(
        status=AuxiliaryStatus.ACTIVE, authorization__status__in=CURRENT_STATUSES,
    ).select_related("authorization")
    for aux in auxiliaries.iterator():
        auth = aux.authorization
        param = pack.param("auxiliary.yearly_reregistration", auth.modality)
        if param is None or not param.value or aux.pk in pending:
            continue
        due = yearly_due(due_on=auxiliary_reregistration_due(auxiliary_registered_on(aux)), today=today)
        if not (due.remind or due.overdue):
            continue
        link = reverse("lifecycle-mine")
        if due.remind:
            with transaction.atomic():
                notice = _yearly_notice(key=f"aux-rereg:reminder:{aux.pk}:{due.due_on}",
                                        obligation=YearlyObligation.AUXILIARY_REREGISTRATION,
                                        stage=YearlyNoticeStage.REMINDER, auth=auth, auxiliary=aux, due_on=due.due_on,
                                        legal_basis=param.legal_basis)
                if notice:
                    name = aux.person.display_name
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
                    name = aux.person.display_name
                    body = (f"O recadastramento anual do condutor auxiliar {name} (autorização nº {auth.number}) "
                            f"venceu em {due.due_on:%d/%m/%Y} ({param.legal_basis}).")
                    audit_log(actor=None, obj=aux, action=AuditAction.AUXILIARY_REREGISTRATION_OVERDUE,
                              reason=body, data={"due_on": due.due_on.isoformat(), "legal_basis": param.legal_basis})
                    notify(recipient=auth.holder, subject="Recadastramento de condutor auxiliar vencido", body=body,
                           link=link, dedup_key=f"aux-rereg-overdue:{aux.pk}:{due.due_on}")
                    notify_clerks(subject=f"Recadastramento vencido — autorização nº {auth.number}", body=body,
                                   link=reverse("lifecycle-queue"), dedup=f"aux-rereg-overdue-clerk:{aux.pk}:{due.due_on}")
                    done += 1
    return done


def _compliance_sweep(pack, today: date) -> int:
    if not _rule_set(pack, "grant.yearly_compliance_proof"):
        return 0
    done = 0
    proofs: dict[int, set[int]] = {}
    for auth_id, data in LifecycleRequest.objects.filter(
        kind=RequestKind.COMPLIANCE_PROOF, status__in=[RequestStatus.FILED, RequestStatus.APPROVED]
    ).values_list("authorization_id", "data"):
        proofs.setdefault(auth_id, set()).add(int(data.get("year") or 0))
    # the holder is read for the notices due only (a join with the users hashed all of them)
    for auth in Authorization.objects.filter(status__in=CURRENT_STATUSES).iterator():
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
                audit_log(actor=None, obj=auth, action=AuditAction.COMPLIANCE_PROOF_OVERDUE, reason=body,
                          data={"year": year, "due_on": due_on.isoformat(), "legal_basis": param.legal_basis})
                notify(recipient=auth.holder, subject="Comprovação anual dos requisitos vencida", body=body,
                       link=link, dedup_key=f"compliance-overdue:{auth.pk}:{year}")
                notify_clerks(subject=f"Comprovação anual vencida — permissão nº {auth.number}", body=body,
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
