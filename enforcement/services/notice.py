"""Notice of the auto (opens the defense period) and notice of a decision (opens the appeal period)."""

from __future__ import annotations

from datetime import date

from django.core.exceptions import ValidationError
from django.db import transaction

from enforcement.models import (
    DecisionNotice,
    Infraction,
    Judgement,
    Notice,
)
from enforcement.services._common import (
    S,
    _check_notice_date,
    _lock,
    _notice_reason,
    _tell_holder,
    _transition,
    freeze_on_commit,
)
from enforcement.services.deadlines import period
from enforcement.services.effects import (
    _effects_sentence,
    appeal_is_suspensive,
    apply_grant_effects,
)
from licensing.grants import services as licensing_services
from licensing.models import AuthorizationStatus
from portal import regulation
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import InvalidTransition
from portal.numbering import document_number


@transaction.atomic
def infraction_notify(*, actor, infraction: Infraction, acknowledged_on: date, refused: bool = False,
                      published: bool = False) -> Infraction:
    """Record the notice (ciência), its refusal, or its publication when the holder cannot be
    found, and open the defense period.

    The defense period runs ``defense.days`` calendar days from the day after the notice
    (PL 015/2025 art. 22; Lei 3.703/2022 art. 18, §4; where the law is silent, the pack's example
    value — Constituição art. 5º, LV). A refusal counts as notice (PL 015/2025 art. 21, §2, III) and,
    where ``notice.refusal_cancels_grant``, cancels the authorization by itself — a cancellation,
    not a cassação: no bar on a new grant (the 60 months of art. 19, §4 belong to cassação).
    Without a defense phase (no ``defense.days``) the auto goes straight to judgement.
    """
    pack = regulation.current()
    inf = _lock(infraction)
    if inf.status != S.ISSUED:
        raise InvalidTransition(f"O auto nº {inf.number} já foi notificado ({S(inf.status).label}).")
    if refused and published:
        raise ValidationError({"published": ["Escolha recusa ou publicação, não as duas."]})
    today = pack.today()
    _check_notice_date(inf, acknowledged_on, today, not_before=inf.occurred_on, what="à infração")
    Notice.objects.create(infraction=inf, acknowledged_on=acknowledged_on, refused=bool(refused),
                          published=bool(published), recorded_by=actor, number=document_number("notice", today.year))
    modality = inf.modality or None
    days = pack.value("defense.days", modality)
    reason = _notice_reason(refused, published)
    if days:
        inf.defense_deadline, inf.defense_deadline_note = period(
            pack, acknowledged_on, int(days), key="defense.days", modality=modality,
            start_label="ciência da notificação da autuação")
        _transition(inf, S.NOTIFIED, actor=actor, reason=reason, fields=["defense_deadline", "defense_deadline_note"],
                    data={"acknowledged_on": acknowledged_on.isoformat(), "refused": bool(refused),
                          "published": bool(published), "defense_deadline": inf.defense_deadline.isoformat(),
                          "counted": inf.defense_deadline_note,
                          "legal_basis": pack.basis("defense.days", modality)})
        body = (f"Você foi notificado do auto de infração nº {inf.number} (placa {inf.display_plate}). "
                f"Prazo para defesa prévia: até {inf.defense_deadline:%d/%m/%Y} ({inf.defense_deadline_note})")
    else:
        _transition(inf, S.AWAITING_JUDGEMENT, actor=actor, reason=reason,
                    data={"acknowledged_on": acknowledged_on.isoformat(), "refused": bool(refused),
                          "published": bool(published), "defense_phase": False})
        body = (f"Você foi notificado do auto de infração nº {inf.number} (placa {inf.display_plate}). "
                "O auto segue para julgamento; da decisão caberá recurso.")
    if refused and pack.value("notice.refusal_cancels_grant", modality):
        _cancel_grant_on_refusal(inf, pack, actor=actor)
    _tell_holder(inf, f"Notificação da autuação — auto nº {inf.number}", body, "notice")
    freeze_on_commit(inf, "notice")
    return inf


def _cancel_grant_on_refusal(inf: Infraction, pack, *, actor) -> None:
    """PL 015/2025 art. 21, §2, III: the refusal is "por si só, causa para o cancelamento automático
    da autorização" — the grant is cancelled, without the bar of art. 19, §4 (cassação only)."""
    auth = inf.authorization
    if auth is None:
        return
    auth.refresh_from_db()
    if not auth.is_current:
        return
    basis = pack.basis("notice.refusal_cancels_grant", inf.modality or None)
    licensing_services.authorization_set_status(
        actor=actor, authorization=auth, to=AuthorizationStatus.CANCELLED,
        reason=f"Cancelamento automático: recusa em receber a notificação do auto nº {inf.number} ({basis})",
        data={"infraction": inf.number, "legal_basis": basis})
    audit_log(actor=actor, obj=inf, action=AuditAction.GRANT_CANCELLED_ON_REFUSAL, from_state=inf.status, to_state=inf.status,
              reason=f"Recusa da notificação ({basis})", data={"authorization": auth.number, "legal_basis": basis})
    _tell_holder(inf, f"Autorização cancelada — auto nº {inf.number}",
                 f"A recusa em receber a notificação do auto nº {inf.number} cancelou a {auth.act_name} "
                 f"nº {auth.number} ({basis}).", "refusal_cancel")


def _decision_number(inf: Infraction, instance: int) -> str:
    if instance <= 1:
        judgement = Judgement.objects.filter(infraction=inf).first()
        return judgement.number if judgement else ""
    appeal = inf.appeals.filter(instance=instance - 1, granted__isnull=False).order_by("-id").first()
    return appeal.number if appeal else ""


def _decided_on(inf: Infraction, instance: int) -> date | None:
    pack = regulation.current()
    if instance <= 1:
        judgement = Judgement.objects.filter(infraction=inf).first()
        return judgement.decided_on if judgement else None
    appeal = inf.appeals.filter(instance=instance - 1, granted__isnull=False).order_by("-id").first()
    if appeal is None:
        return None
    return appeal.decided_on or (appeal.decided_at.astimezone(pack.tz).date() if appeal.decided_at else None)


@transaction.atomic
def decision_notice_record(*, actor, infraction: Infraction, acknowledged_on: date, refused: bool = False,
                           published: bool = False) -> DecisionNotice:
    """Notificação da decisão (Lei 3.703/2022 art. 18, §5; PL 015/2025 art. 25; Lei 724/2008 art. 25,
    caput and §1): recorded like the first notice — date of ciência, of the refusal, or of the
    publication when the holder cannot be found — it opens the appeal period against that decision
    (``appeal.days``, or ``appeal.second_instance_days`` for a further appeal) and, where the appeal
    has no suspensive effect, lets the decision take effect on the grant."""
    pack = regulation.current()
    inf = _lock(infraction)
    modality = inf.modality or None
    if inf.status != S.UPHELD or not inf.decision_notice_pending:
        raise InvalidTransition(f"O auto nº {inf.number} está {S(inf.status).label}: não há decisão aguardando "
                                "notificação.")
    if refused and published:
        raise ValidationError({"published": ["Escolha recusa ou publicação, não as duas."]})
    today = pack.today()
    instance = inf.appeal_instance
    decided_on = _decided_on(inf, instance)
    _check_notice_date(inf, acknowledged_on, today, not_before=decided_on, what="à decisão")
    key = "appeal.second_instance_days" if instance > 1 else "appeal.days"
    days = int(pack.value(key, modality))
    inf.appeal_deadline, inf.appeal_deadline_note = period(
        pack, acknowledged_on, days, key=key, modality=modality, start_label="ciência da notificação da decisão")
    inf.decision_notice_pending = False
    notice = DecisionNotice.objects.create(
        infraction=inf, instance=instance, decision=_decision_number(inf, instance), acknowledged_on=acknowledged_on,
        refused=bool(refused), published=bool(published), appeal_deadline=inf.appeal_deadline, recorded_by=actor,
        number=document_number("notice", today.year))
    inf.save(update_fields=["appeal_deadline", "appeal_deadline_note", "decision_notice_pending"])
    audit_log(actor=actor, obj=inf, action=AuditAction.DECISION_NOTIFIED, from_state=inf.status, to_state=inf.status,
              reason=_notice_reason(refused, published) + f" da decisão nº {notice.decision}",
              data={"acknowledged_on": acknowledged_on.isoformat(), "refused": bool(refused),
                    "published": bool(published), "instance": instance,
                    "appeal_deadline": inf.appeal_deadline.isoformat(), "counted": inf.appeal_deadline_note,
                    "legal_basis": pack.basis("appeal.counted_from", modality) or pack.basis(key, modality)})
    effects = {}
    if instance == 1 and not appeal_is_suspensive(pack, modality):
        effects = apply_grant_effects(actor=actor, infraction=inf, today=today)
    _tell_holder(inf, f"Notificação da decisão — auto nº {inf.number}",
                 f"Decisão nº {notice.decision} do auto nº {inf.number}: você pode recorrer até "
                 f"{inf.appeal_deadline:%d/%m/%Y} ({inf.appeal_deadline_note})" + _effects_sentence(effects, pack, modality),
                 f"decision_notice{instance}")
    return notice
