"""Appeals, the ex officio review of a dismissal and its hearing, suspensive effect."""

from __future__ import annotations

from datetime import date

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from enforcement import rules
from enforcement.models import (
    Appeal,
    Attachment,
    FilingChannel,
    Infraction,
    Judgement,
)
from enforcement.selectors import appeal_decider_refusal
from enforcement.services._common import (
    S,
    _check_notice_date,
    _lock,
    _paper_check,
    _return_retained_alvara,
    _store_files,
    _tell_holder,
    _transition,
    _validate_files,
)
from enforcement.services.deadlines import period
from enforcement.services.effects import (
    appeal_is_suspensive,
    apply_grant_effects,
    finalize,
    revert_grant_effects,
)
from enforcement.services.judgement import decision_notice_required
from enforcement.services.penalty import compute_penalty_for, recidivism_recompute
from portal import regulation
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import InvalidTransition, RuleViolation
from portal.numbering import document_number


@transaction.atomic
def appeal_file(*, actor, infraction: Infraction, text: str, attachments=(), on: date | None = None,
                channel: str = FilingChannel.ONLINE) -> Appeal:
    """Recurso within the appeal period (Lei 3.703/2022 art. 18, §§5º–7º; PL 015/2025 art. 25;
    Lei 724/2008 art. 25, §1–2: D and E go on to the Prefeito). On paper a clerk records it with its
    date of receipt (``on``), which judges timeliness. Filed before the notice of the decision it is
    timely (the holder knew of the decision)."""
    pack = regulation.current()
    inf = _lock(infraction)
    modality = inf.modality or None
    on = _paper_check(actor, channel, inf, on, pack.today())
    basis_key = "appeal.second_instance_days" if inf.appeal_instance > 1 else "appeal.days"
    if inf.status in (S.UPHELD, S.FINAL) and inf.appeal_deadline:
        rules.check_within_deadline(on, inf.appeal_deadline, what="recorrer",
                                    legal_basis=pack.basis(basis_key, modality), code="appeal_deadline_passed")
    if inf.status != S.UPHELD or not (inf.appeal_deadline or inf.decision_notice_pending):
        raise InvalidTransition(f"O auto nº {inf.number} está {S(inf.status).label}: não cabe recurso agora.")
    if not (text or "").strip():
        raise ValidationError({"text": ["Escreva as razões do recurso."]})
    _validate_files(attachments, "attachments")
    authority = (pack.value("appeal.authority", modality) if inf.appeal_instance == 1
                 else pack.municipality.get("authority", ""))
    paper = channel != FilingChannel.ONLINE
    appeal = Appeal.objects.create(infraction=inf, instance=inf.appeal_instance, authority=authority or "",
                                   author=inf.holder if paper and inf.holder_id else actor, text=text.strip(),
                                   filed_on=on, channel=channel, received_by=actor if paper else None)
    _store_files(inf, attachments, kind=Attachment.Kind.APPEAL, actor=actor)
    if inf.decision_notice_pending and inf.appeal_instance == 1 and not appeal_is_suspensive(pack, modality):
        apply_grant_effects(actor=actor, infraction=inf, today=pack.today())  # the holder knew of the decision
    inf.decision_notice_pending = False
    _transition(inf, S.APPEALED, actor=actor, reason="Recurso interposto" + (
        f" em papel ({FilingChannel(channel).label}), recebido em {on:%d/%m/%Y}" if paper else ""),
                fields=["decision_notice_pending"],
                data={"instance": appeal.instance, "authority": appeal.authority, "filed_on": on.isoformat(),
                      "channel": channel})
    return appeal


def earlier_judges(inf: Infraction, appeal: Appeal) -> list[int]:
    """Who decided the instances before ``appeal`` (first-instance julgador, earlier appeals)."""
    ids = [j for j in Judgement.objects.filter(infraction=inf).values_list("judge_id", flat=True)]
    ids += [a.judge_id for a in inf.appeals.exclude(pk=appeal.pk) if a.judge_id and a.instance < appeal.instance]
    return ids


@transaction.atomic
def review_hearing_open(*, actor, infraction: Infraction, acknowledged_on: date) -> Infraction:
    """The ex officio review may make the holder's situation worse (reform a dismissal): the holder
    is heard first — notified to present allegations within ``appeal.ex_officio_hearing_days``
    (PL 015/2025 art. 25, §1; Lei 9.784/1999 art. 64, parágrafo único, art. 62)."""
    pack = regulation.current()
    inf = _lock(infraction)
    modality = inf.modality or None
    appeal = inf.appeals.filter(ex_officio=True, granted__isnull=True).first()
    if inf.status != S.DISMISSED or appeal is None:
        raise InvalidTransition(f"O auto nº {inf.number} não tem revisão de ofício pendente.")
    if inf.review_hearing_deadline is not None:
        raise InvalidTransition(f"A audiência do autuado na revisão do auto nº {inf.number} já foi aberta.")
    _check_notice_date(inf, acknowledged_on, pack.today(), not_before=appeal.filed_on, what="à revisão")
    days = int(pack.value("appeal.ex_officio_hearing_days", modality) or 5)
    inf.review_hearing_deadline, note = period(pack, acknowledged_on, days, key="appeal.ex_officio_hearing_days",
                                               modality=modality, start_label="ciência da revisão de ofício")
    inf.save(update_fields=["review_hearing_deadline"])
    audit_log(actor=actor, obj=inf, action=AuditAction.REVIEW_HEARING_OPENED, from_state=inf.status, to_state=inf.status,
              reason="Autuado intimado a se manifestar na revisão de ofício",
              data={"acknowledged_on": acknowledged_on.isoformat(), "until": inf.review_hearing_deadline.isoformat(),
                    "counted": note, "legal_basis": pack.basis("appeal.ex_officio_hearing_days", modality)})
    _tell_holder(inf, f"Revisão de ofício — auto nº {inf.number}",
                 f"A decisão que arquivou o auto nº {inf.number} está em revisão de ofício e pode ser reformada. "
                 f"Você pode apresentar alegações até {inf.review_hearing_deadline:%d/%m/%Y} ({note})", "review_hearing")
    return inf


@transaction.atomic
def review_allegations_file(*, actor, infraction: Infraction, text: str, attachments=(), on: date | None = None,
                            channel: str = FilingChannel.ONLINE) -> Appeal:
    """The holder's allegations in the ex officio review, within the hearing period."""
    pack = regulation.current()
    inf = _lock(infraction)
    modality = inf.modality or None
    on = _paper_check(actor, channel, inf, on, pack.today())
    appeal = inf.appeals.filter(ex_officio=True, granted__isnull=True).first()
    if inf.status != S.DISMISSED or appeal is None or inf.review_hearing_deadline is None:
        raise InvalidTransition(f"O auto nº {inf.number} não tem revisão de ofício aberta a alegações.")
    rules.check_within_deadline(on, inf.review_hearing_deadline, what="apresentar alegações",
                                legal_basis=pack.basis("appeal.ex_officio_hearing_days", modality),
                                code="review_hearing_passed")
    if not (text or "").strip():
        raise ValidationError({"text": ["Escreva as alegações."]})
    _validate_files(attachments, "attachments")
    appeal.text = f"{appeal.text}\n\nAlegações do autuado ({on:%d/%m/%Y}): {text.strip()}"
    appeal.author = inf.holder if inf.holder_id else actor
    appeal.save(update_fields=["text", "author"])
    _store_files(inf, attachments, kind=Attachment.Kind.HEARING, actor=actor)
    audit_log(actor=actor, obj=inf, action=AuditAction.REVIEW_ALLEGATIONS_FILED, from_state=inf.status, to_state=inf.status,
              reason="Alegações na revisão de ofício", data={"filed_on": on.isoformat(), "channel": channel})
    return appeal


@transaction.atomic
def appeal_judge(*, actor, infraction: Infraction, granted: bool, grounds: str) -> Appeal:
    """Decide the pending appeal (or the ex officio review of a dismissal).

    Who decides: where the pack designates the appeal authority (``appeal.designated_authority``,
    ``appeal.second_instance_designated_authority``) only holders of the "Autoridade recursal"
    profile in this municipality, otherwise a julgador (409 ``not_appeal_authority``, with the
    basis). Two instances, two people: whoever decided an earlier instance is refused (409, with the
    article). A review that reforms the dismissal (worse for the holder) needs the holder heard
    first (``review_hearing_open``; PL 015/2025 art. 25, §1; Lei 9.784/1999 art. 64, parágrafo único).
    A further appeal (Lei 724/2008 art. 25, §2) waits for the notice of the appeal decision.
    """
    pack = regulation.current()
    inf = _lock(infraction)
    modality = inf.modality or None
    appeal = inf.appeals.filter(granted__isnull=True).order_by("-instance", "-id").first()
    if appeal is None or inf.status not in (S.APPEALED, S.DISMISSED):
        raise InvalidTransition(f"O auto nº {inf.number} não tem recurso pendente de julgamento.")
    # who decides: the authority the municipality designates (its profile, held in this
    # municipality — never an installation-wide group) or, without designation, a julgador
    refusal = appeal_decider_refusal(actor, inf, pack, instance=appeal.instance)
    if refusal is not None:
        raise refusal
    if pack.value("appeal.distinct_judge", modality, default=True):
        violation = rules.same_judge_violation(
            actor.pk, earlier_judges(inf, appeal),
            pack.basis("appeal.distinct_judge", modality) or pack.basis("appeal.authority", modality))
        if violation is not None:
            raise violation
    today = pack.today()
    if appeal.ex_officio and granted:
        hearing = inf.review_hearing_deadline
        heard = hearing is not None and (today > hearing or "Alegações do autuado" in appeal.text)
        if not heard:
            basis = pack.basis("appeal.ex_officio_review", modality)
            raise RuleViolation(
                "review_hearing_required",
                "A revisão de ofício que reforma o arquivamento agrava a situação do autuado: ele deve ser "
                "intimado e ouvido antes da decisão"
                + (f" (alegações até {hearing:%d/%m/%Y})" if hearing else "")
                + f" — {basis}; Lei 9.784/1999, art. 64, parágrafo único.",
                f"{basis}; Lei 9.784/1999, art. 64, parágrafo único", field="granted", conflict=True)
    if not (grounds or "").strip():
        raise ValidationError({"grounds": ["Escreva a fundamentação da decisão do recurso."]})
    appeal.granted = bool(granted)
    appeal.grounds = grounds.strip()
    appeal.judge = actor
    appeal.decided_at = timezone.now()
    appeal.decided_on = today
    appeal.number = document_number("decision", today.year)
    appeal.save(update_fields=["granted", "grounds", "judge", "decided_at", "decided_on", "number"])
    audit_log(actor=actor, obj=inf, action=AuditAction.APPEAL_JUDGED, from_state=inf.status, to_state=inf.status,
              reason=grounds.strip(), data={"instance": appeal.instance, "granted": bool(granted),
                                            "ex_officio": appeal.ex_officio, "decision": appeal.number})
    if appeal.ex_officio:
        if granted:  # the review reforms the dismissal: the auto is upheld, with no further appeal
            inf.penalty = compute_penalty_for(inf, pack)
            inf.save(update_fields=["penalty"])
            finalize(actor=actor, infraction=inf, today=today, reason="Decisão reformada em recurso de ofício")
        else:
            _return_retained_alvara(inf, actor=actor, reason=f"Auto nº {inf.number} arquivado (recurso de ofício)")
        return appeal
    if granted:
        revert_grant_effects(actor=actor, infraction=inf, today=today,
                             reason=f"Recurso provido no auto nº {inf.number}: {grounds.strip()}")
        inf.penalty = None
        _transition(inf, S.DISMISSED, actor=actor, reason=f"Recurso provido: {grounds.strip()}", fields=["penalty"],
                    data={"decision": appeal.number})
        _return_retained_alvara(inf, actor=actor, reason=f"Recurso provido no auto nº {inf.number}")
        _tell_holder(inf, f"Recurso provido — auto nº {inf.number}", "Seu recurso foi provido; o auto foi arquivado.",
                     f"appeal{appeal.instance}")
        recidivism_recompute(actor=actor, annulled=inf, reason=f"recurso provido (decisão nº {appeal.number})")
        return appeal
    codes = (inf.penalty or {}).get("codes", [])
    if appeal.instance == 1 and rules.second_instance_allowed(codes, pack.value("appeal.second_instance_codes", modality)):
        days = int(pack.value("appeal.second_instance_days", modality))
        inf.appeal_instance = 2
        inf.decision_notice_pending = decision_notice_required(pack, modality)
        if inf.decision_notice_pending:
            inf.appeal_deadline, inf.appeal_deadline_note = None, ""
        else:
            inf.appeal_deadline, inf.appeal_deadline_note = period(
                pack, today, days, key="appeal.second_instance_days", modality=modality, start_label="decisão")
        _transition(inf, S.UPHELD, actor=actor, reason=f"Recurso não provido: {grounds.strip()}",
                    fields=["appeal_instance", "appeal_deadline", "appeal_deadline_note", "decision_notice_pending"],
                    data={"decision": appeal.number,
                          "second_instance_until": inf.appeal_deadline.isoformat() if inf.appeal_deadline else None,
                          "legal_basis": pack.basis("appeal.second_instance_days", modality)})
        _tell_holder(inf, f"Recurso não provido — auto nº {inf.number}",
                     f"Seu recurso não foi provido. Cabe novo recurso ao {pack.municipality.get('authority', '')} "
                     + (f"até {inf.appeal_deadline:%d/%m/%Y}." if inf.appeal_deadline else
                        f"em {days} dias da ciência da notificação desta decisão."), f"appeal{appeal.instance}")
        return appeal
    finalize(actor=actor, infraction=inf, today=today, reason=f"Recurso não provido: {grounds.strip()}")
    return appeal


@transaction.atomic
def appeal_grant_suspensive_effect(*, actor, infraction: Infraction, grounds: str) -> Infraction:
    """Exceptionally, on request and with grounds, the authority gives the pending appeal
    suspensive effect (the pack's ``appeal.suspensive`` basis; Lei 9.784/1999 art. 61, parágrafo
    único): the decision's effects on the grant are undone until the appeal is decided, and apply
    again if the decision becomes final."""
    pack = regulation.current()
    inf = _lock(infraction)
    if inf.status != S.APPEALED:
        raise InvalidTransition(f"O auto nº {inf.number} está {S(inf.status).label}: só um recurso pendente pode "
                                "receber efeito suspensivo.")
    if inf.effects_on is None:
        raise InvalidTransition(f"A decisão do auto nº {inf.number} não tem efeitos em vigor sobre a autorização.")
    if not (grounds or "").strip():
        raise ValidationError({"grounds": ["Motive a concessão do efeito suspensivo."]})
    basis = pack.basis("appeal.suspensive", inf.modality or None)
    revert_grant_effects(actor=actor, infraction=inf, today=pack.today(),
                         reason=f"Efeito suspensivo concedido ao recurso do auto nº {inf.number} ({basis}): "
                                f"{grounds.strip()}")
    audit_log(actor=actor, obj=inf, action=AuditAction.APPEAL_SUSPENSIVE_EFFECT, from_state=inf.status, to_state=inf.status,
              reason=grounds.strip(), data={"legal_basis": basis})
    _tell_holder(inf, f"Efeito suspensivo — auto nº {inf.number}",
                 "Seu recurso recebeu efeito suspensivo: a penalidade sobre a autorização fica suspensa até a "
                 "decisão do recurso.", "suspensive")
    return inf
