"""First-instance judgement of an auto."""

from __future__ import annotations

from datetime import date

from django.core.exceptions import ValidationError
from django.db import transaction

from enforcement import rules
from enforcement.models import (
    JUDGEABLE_STATUSES,
    Appeal,
    DefenseWaiver,
    Infraction,
    Judgement,
)
from enforcement.services._common import (
    S,
    _lock,
    _return_retained_alvara,
    _tell_holder,
    _transition,
    freeze_on_commit,
)
from enforcement.services.deadlines import period
from enforcement.services.effects import (
    _effects_sentence,
    appeal_is_suspensive,
    apply_grant_effects,
    finalize,
)
from enforcement.services.penalty import compute_penalty_for
from portal import regulation
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import InvalidTransition
from portal.numbering import document_number
from portal.numbers import brl


def decision_notice_required(pack, modality: str | None) -> bool:
    """Whether the appeal period waits for the notice of the decision (``appeal.counted_from``)."""
    return rules.appeal_period_start(counted_from=pack.value("appeal.counted_from", modality),
                                     decided_on=date.min, decision_notice_on=None) is None


@transaction.atomic
def infraction_judge(*, actor, infraction: Infraction, upheld: bool, grounds: str) -> Judgement:
    """Julgar o auto: procedente (penalty of the catalogue with recidivism) or improcedente.

    Refused (409, with the article) while the defense period runs, unless a defense was filed or
    the holder waived the period in writing. Where the appeal period counts from the notice of the
    decision, the decision waits for that notice: no appeal period, no effect, never final before it.
    """
    pack = regulation.current()
    inf = _lock(infraction)
    modality = inf.modality or None
    if inf.status == S.ISSUED:
        raise InvalidTransition(
            f"O auto nº {inf.number} ainda não foi notificado: a validade de qualquer punição depende da "
            "notificação da autuação.")
    if inf.status not in JUDGEABLE_STATUSES:
        raise InvalidTransition(f"O auto nº {inf.number} está {S(inf.status).label} e não aguarda julgamento.")
    today = pack.today()
    blocked = rules.judgement_blocked(
        today, defense_deadline=inf.defense_deadline, defense_filed=hasattr(inf, "defense"),
        waived=DefenseWaiver.objects.filter(infraction=inf).exists(), legal_basis=pack.basis("defense.days", modality))
    if blocked is not None:
        raise blocked
    if not (grounds or "").strip():
        raise ValidationError({"grounds": ["Escreva a fundamentação da decisão."]})
    penalty = compute_penalty_for(inf, pack) if upheld else None
    judgement = Judgement.objects.create(
        infraction=inf, number=document_number("decision", today.year), judge=actor, upheld=bool(upheld),
        grounds=grounds.strip(), penalty=penalty, recidivism_refs=(penalty or {}).get("recidivism_refs", []),
        decided_on=today,
    )
    if upheld:
        inf.penalty = penalty
        days = pack.value("appeal.days", modality)
        inf.appeal_instance = 1
        inf.decision_notice_pending = bool(days) and decision_notice_required(pack, modality)
        if days and not inf.decision_notice_pending:
            inf.appeal_deadline, inf.appeal_deadline_note = period(
                pack, today, int(days), key="appeal.days", modality=modality, start_label="decisão")
        else:
            inf.appeal_deadline, inf.appeal_deadline_note = None, ""
        _transition(inf, S.UPHELD, actor=actor, reason=grounds.strip(),
                    fields=["penalty", "appeal_deadline", "appeal_deadline_note", "appeal_instance",
                            "decision_notice_pending"],
                    data={"decision": judgement.number, "penalty": penalty,
                          "appeal_deadline": inf.appeal_deadline.isoformat() if inf.appeal_deadline else None,
                          "decision_notice_pending": inf.decision_notice_pending})
        missing = penalty.get("missing_regulation")
        summary = (f"Penalidade: {', '.join(penalty['labels'])}"
                   + (f", multa de {brl(penalty['amount'])}" if penalty.get("amount") else "")
                   + (f". A multa não pode ser cobrada enquanto não houver {missing}" if missing else ""))
        if not days:
            finalize(actor=actor, infraction=inf, today=today)
        elif inf.decision_notice_pending:
            _tell_holder(inf, f"Decisão — auto nº {inf.number} julgado procedente",
                         f"O auto nº {inf.number} foi julgado procedente. {summary}. Você receberá a notificação da "
                         f"decisão; o prazo de recurso conta da ciência dela ({pack.basis('appeal.counted_from', modality)}).",
                         "upheld")
        else:
            effects = {}
            if not appeal_is_suspensive(pack, modality):
                effects = apply_grant_effects(actor=actor, infraction=inf, today=today)
            _tell_holder(inf, f"Decisão — auto nº {inf.number} julgado procedente",
                         f"O auto nº {inf.number} foi julgado procedente. {summary}. Você pode recorrer até "
                         f"{inf.appeal_deadline:%d/%m/%Y}."
                         + _effects_sentence(effects, pack, modality), "upheld")
    else:
        inf.penalty = None
        _transition(inf, S.DISMISSED, actor=actor, reason=grounds.strip(), fields=["penalty"],
                    data={"decision": judgement.number})
        if pack.value("appeal.ex_officio_review", modality):
            Appeal.objects.create(
                infraction=inf, instance=1, ex_officio=True, authority=pack.value("appeal.authority", modality) or "",
                text=f"Recurso hierárquico de ofício da decisão que julgou procedente a defesa "
                     f"({pack.basis('appeal.ex_officio_review', modality)}).", filed_on=today)
            audit_log(actor=actor, obj=inf, action=AuditAction.EX_OFFICIO_REVIEW_OPENED, from_state=S.DISMISSED,
                      to_state=S.DISMISSED, reason=pack.basis("appeal.ex_officio_review", modality))
        else:
            _return_retained_alvara(inf, actor=actor, reason=f"Auto nº {inf.number} julgado improcedente")
        _tell_holder(inf, f"Decisão — auto nº {inf.number} julgado improcedente",
                     f"O auto nº {inf.number} foi julgado improcedente e arquivado.", "dismissed")
    infraction.refresh_from_db()
    freeze_on_commit(infraction, "decision")
    return judgement
