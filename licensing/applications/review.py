"""Review of a protocolled application: documents, exigências and the vistoria; and the
LGPD retention of the files of closed applications."""

from __future__ import annotations

from datetime import date, datetime

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from licensing.applications.models import (
    Application,
    ApplicationDocument,
    ApplicationStatus,
    DocumentStatus,
    Inspection,
    Requirement,
)
from licensing.applications.rules import inspection_checklist
from licensing.applications.selectors import document_label
from licensing.applications.services import _lock, _resolve_type, _status_link, _transition
from portal import regulation
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import InvalidTransition
from portal.notifications import notify
from portal.roles import Role, has_role


@transaction.atomic
def document_review(*, actor, document: ApplicationDocument, accepted: bool, reason: str = "",
                    valid_until=None) -> ApplicationDocument:
    """Accept or reject the current file of a checklist item; on accepting, the clerk may note the
    document's own validity date (``valid_until``: the CNH's, a certidão's), which decides whether a
    renewal may reuse it (rules.document_reusable)."""
    application = _lock(document.application)
    document = ApplicationDocument.objects.select_for_update().get(pk=document.pk)
    if application.status not in (ApplicationStatus.SUBMITTED, ApplicationStatus.IN_REVIEW,
                                  ApplicationStatus.REQUIREMENT, ApplicationStatus.INSPECTION_SCHEDULED):
        raise InvalidTransition(f"O requerimento está {application.get_status_display()}: documentos não são analisados.")
    if document.superseded_by_id is not None:
        raise InvalidTransition("Este arquivo foi substituído por um envio mais recente; analise o atual.")
    if not accepted and not (reason or "").strip():
        raise ValidationError({"reason": ["Informe o motivo da recusa: o requerente verá esta explicação."]})
    if accepted and valid_until is not None and valid_until < regulation.current().today():
        raise ValidationError({"valid_until": ["A validade anotada já passou: um documento vencido não é aceito."]})
    before = document.status
    document.status = DocumentStatus.ACCEPTED if accepted else DocumentStatus.REJECTED
    document.reason = (reason or "").strip()
    document.reviewed_by = actor
    document.reviewed_at = timezone.now()
    fields = ["status", "reason", "reviewed_by", "reviewed_at"]
    if accepted and valid_until is not None:
        document.valid_until = valid_until
        fields.append("valid_until")
    document.save(update_fields=fields)
    audit_log(actor=actor, obj=application, action=AuditAction.DOCUMENT_REVIEWED, from_state=before, to_state=document.status,
              reason=document.reason, data={"type": document.type, "document": document.pk,
                                            **({"valid_until": valid_until.isoformat()} if accepted and valid_until else {})})
    if application.status == ApplicationStatus.SUBMITTED:
        _transition(application, ApplicationStatus.IN_REVIEW, actor=actor, reason="Análise iniciada")
    if not accepted:
        notify(recipient=application.applicant, subject=f"Requerimento {application.protocol}: documento recusado",
               body=(f"O documento “{document_label(application, document.type)}” foi recusado. "
                     f"Motivo: {document.reason}\nEnvie um novo arquivo pela página do requerimento."),
               link=_status_link(application))
    return document


@transaction.atomic
def documents_accept(*, actor, application: Application, document_ids: list[int]) -> list[ApplicationDocument]:
    """Accept, in one action, the documents the clerk checked (each recorded as its own review).
    Every one must be a current file of this application still under analysis; otherwise
    nothing is accepted and the message names the file."""
    ids = list(dict.fromkeys(int(i) for i in document_ids))
    if not ids:
        raise ValidationError({"documents": ["Marque os documentos conferidos que deseja aceitar."]})
    application = _lock(application)
    found = {d.pk: d for d in ApplicationDocument.objects.filter(application=application, pk__in=ids)}
    missing = [i for i in ids if i not in found]
    if missing:
        raise ValidationError({"documents": [f"Documento nº {missing[0]} não pertence a este requerimento."]})
    for doc in found.values():
        if doc.superseded_by_id is not None:
            raise InvalidTransition(f"O arquivo de “{document_label(application, doc.type)}” foi substituído por um envio mais recente; "
                                    "analise o atual.", field="documents")
        if doc.status != DocumentStatus.PENDING:
            raise InvalidTransition(f"O documento “{document_label(application, doc.type)}” já foi analisado ({doc.get_status_display()}).",
                                    field="documents")
    return [document_review(actor=actor, document=found[i], accepted=True) for i in ids]


@transaction.atomic
def requirement_raise(*, actor, application: Application, text: str, document_type: str = "",
                      due_date: date | None = None) -> Requirement:
    """Raise an exigência; the applicant answers by sending a new file."""
    application = _lock(application)
    if not (text or "").strip():
        raise ValidationError({"text": ["Descreva a exigência: o que o requerente precisa enviar ou corrigir."]})
    if document_type:
        _resolve_type(application, document_type)
    req = Requirement.objects.create(application=application, text=text.strip(), document_type=document_type,
                                     due_date=due_date, created_by=actor)
    reason = req.text + (f" (documento: {document_label(application, document_type)})" if document_type else "")
    _transition(application, ApplicationStatus.REQUIREMENT, actor=actor, reason=reason, action=AuditAction.REQUIREMENT_RAISED,
                data={"requirement": req.pk, "document_type": document_type})
    return req


@transaction.atomic
def inspection_schedule(*, actor, application: Application, scheduled_for: datetime, agent,
                        location: str = "") -> Inspection:
    application = _lock(application)
    if agent is None or not has_role(agent, Role.AGENT):
        raise ValidationError({"agent": ["Escolha um agente de fiscalização."]})
    location = (location or "").strip()[:200]
    inspection = Inspection.objects.create(application=application, scheduled_for=scheduled_for, agent=agent,
                                           scheduled_by=actor, location=location)
    when = timezone.localtime(scheduled_for, regulation.current().tz)
    where = f", local: {location}" if location else ""
    _transition(application, ApplicationStatus.INSPECTION_SCHEDULED, actor=actor,
                reason=f"Vistoria agendada para {when:%d/%m/%Y às %H:%M}{where}", action=AuditAction.INSPECTION_SCHEDULED,
                data={"inspection": inspection.pk, "agent": agent.pk})
    return inspection


@transaction.atomic
def inspection_record(*, actor, inspection: Inspection, approved: bool, checklist: dict, notes: str = "") -> Inspection:
    inspection = Inspection.objects.select_for_update().get(pk=inspection.pk)
    application = _lock(inspection.application)
    if application.status != ApplicationStatus.INSPECTION_SCHEDULED:
        raise InvalidTransition(f"O requerimento está {application.get_status_display()}: não há vistoria a registrar.")
    if inspection.has_result:
        raise InvalidTransition("O resultado desta vistoria já foi registrado; agende outra para nova verificação.")
    items = {i["code"]: i for i in regulation.current().inspection_items(application.modality)}
    unknown = [k for k in (checklist or {}) if k not in items]
    if unknown:
        raise ValidationError({"checklist": [f"Itens que não constam do formulário: {', '.join(sorted(unknown))}."]})
    failed = [items[k]["label"] for k, ok in (checklist or {}).items() if not ok]
    if approved and failed:
        raise ValidationError({"approved": [f"Há itens reprovados ({'; '.join(failed)}): a vistoria não pode ser "
                                            "aprovada."]})
    incomplete = inspection_checklist(approved=bool(approved), checklist=checklist or {}, items=list(items.values()))
    if incomplete:
        raise incomplete[0]
    inspection.checklist = {k: bool(v) for k, v in (checklist or {}).items()}
    inspection.approved = bool(approved)
    inspection.notes = notes or ""
    inspection.recorded_by = actor
    inspection.recorded_at = timezone.now()
    inspection.save()
    _transition(application, ApplicationStatus.IN_REVIEW, actor=actor,
                reason=("Vistoria aprovada" if approved else "Vistoria reprovada") + (f": {notes}" if notes else ""),
                action=AuditAction.INSPECTION_RECORDED, data={"inspection": inspection.pk, "approved": bool(approved)})
    return inspection


# --- LGPD retention ------------------------------------------------------------------------------
def purge_expired_documents() -> int:
    """Delete the files of refused, withdrawn and abandoned applications past the retention
    period of the pack (``retention.refused_documents_days``); each deletion audited, the
    document row kept (what was sent and when, without the file). Safe to run twice."""
    from datetime import timedelta

    from licensing.applications.rules import retention_expired

    pack = regulation.current()
    param = pack.param("retention.refused_documents_days")
    if param is None:
        return 0
    days = int(param.value)
    today = pack.today()
    cutoff = timezone.now() - timedelta(days=days)
    closed = Q(application__status__in=[ApplicationStatus.REFUSED, ApplicationStatus.WITHDRAWN],
               application__decided_at__lt=cutoff)
    abandoned = Q(application__status=ApplicationStatus.DRAFT, application__updated_at__lt=cutoff)
    purged = 0
    candidates = ApplicationDocument.objects.filter(closed | abandoned, purged_at__isnull=True).values_list("pk", flat=True)
    for pk in list(candidates):
        with transaction.atomic():
            doc = (ApplicationDocument.objects.select_for_update().select_related("application")
                   .filter(pk=pk, purged_at__isnull=True).first())
            if doc is None:
                continue
            app = doc.application
            since = app.decided_at if app.status != ApplicationStatus.DRAFT else app.updated_at
            if since is None or not retention_expired(since.astimezone(pack.tz).date(), today, days):
                continue
            name = doc.file.name
            if name:
                doc.file.storage.delete(name)
            doc.file = ""
            doc.purged_at = timezone.now()
            doc.save(update_fields=["file", "purged_at"])
            audit_log(actor=None, obj=app, action=AuditAction.DOCUMENT_PURGED, reason="Prazo de retenção encerrado (LGPD)",
                      data={"document": doc.pk, "type": doc.type, "retention_days": days,
                            "legal_basis": param.legal_basis})
            purged += 1
    return purged
