"""Defesa prévia and the written waiver of the defense period."""

from __future__ import annotations

from datetime import date

from django.core.exceptions import ValidationError
from django.db import transaction

from enforcement import rules
from enforcement.models import (
    Attachment,
    Defense,
    DefenseWaiver,
    FilingChannel,
    Infraction,
)
from enforcement.services._common import (
    S,
    _lock,
    _paper_check,
    _return_retained_alvara,
    _store_files,
    _transition,
    _validate_files,
)
from portal import regulation
from portal.exceptions import InvalidTransition, RuleViolation


@transaction.atomic
def defense_file(*, actor, infraction: Infraction, text: str, attachments=(), on: date | None = None,
                 channel: str = FilingChannel.ONLINE) -> Defense:
    """Defesa prévia within the deadline (the last day accepted); late → 409 with the article.

    Online the holder files it; on paper (``channel`` counter or post) a clerk records it with the
    date of receipt (``on``), which judges its timeliness, and the scanned pages.
    Where the pack says so (PL 015/2025 art. 22, parágrafo único) the defense suspends the
    penalty and the retained alvará is returned until judgement.
    """
    pack = regulation.current()
    inf = _lock(infraction)
    modality = inf.modality or None
    if not pack.value("defense.days", modality):
        raise RuleViolation(
            "no_defense_phase",
            "Esta lei não prevê defesa prévia: o auto é julgado e da decisão cabe recurso.",
            pack.basis("appeal.days", modality), field="text", conflict=True,
        )
    on = _paper_check(actor, channel, inf, on, pack.today())
    if inf.status in (S.NOTIFIED, S.AWAITING_JUDGEMENT) and inf.defense_deadline:
        rules.check_within_deadline(on, inf.defense_deadline, what="apresentar a defesa prévia",
                                    legal_basis=pack.basis("defense.days", modality), code="defense_deadline_passed")
    if inf.status != S.NOTIFIED:
        raise InvalidTransition(f"O auto nº {inf.number} está {S(inf.status).label}: não cabe defesa prévia agora.")
    if not (text or "").strip():
        raise ValidationError({"text": ["Escreva as razões da defesa."]})
    _validate_files(attachments, "attachments")
    paper = channel != FilingChannel.ONLINE
    defense = Defense.objects.create(infraction=inf, author=inf.holder if paper and inf.holder_id else actor,
                                     text=text.strip(), filed_on=on, channel=channel,
                                     received_by=actor if paper else None)
    _store_files(inf, attachments, kind=Attachment.Kind.DEFENSE, actor=actor)
    _transition(inf, S.DEFENSE_FILED, actor=actor, reason="Defesa prévia apresentada" + (
        f" em papel ({FilingChannel(channel).label}), recebida em {on:%d/%m/%Y}" if paper else ""),
                data={"filed_on": on.isoformat(), "attachments": len(attachments or ()), "channel": channel})
    if pack.value("defense.returns_alvara", modality):
        _return_retained_alvara(inf, actor=actor, reason=(
            f"Devolvido com a defesa prévia do auto nº {inf.number} até o julgamento "
            f"({pack.basis('defense.returns_alvara', modality)})"))
    return defense


@transaction.atomic
def defense_waive(*, actor, infraction: Infraction, text: str, on: date | None = None,
                  channel: str = FilingChannel.ONLINE, attachments=()) -> DefenseWaiver:
    """The holder waives the rest of the defense period in writing (online, or on paper recorded by a
    clerk with its date of receipt and scanned pages): the auto may then be judged before the period
    ends. Recorded and audited; the period stays on the record."""
    pack = regulation.current()
    inf = _lock(infraction)
    modality = inf.modality or None
    on = _paper_check(actor, channel, inf, on, pack.today())
    if inf.status != S.NOTIFIED or not inf.defense_deadline:
        raise InvalidTransition(f"O auto nº {inf.number} está {S(inf.status).label}: não há prazo de defesa em curso.")
    if on > inf.defense_deadline:
        raise InvalidTransition(f"O prazo da defesa do auto nº {inf.number} já terminou em "
                                f"{inf.defense_deadline:%d/%m/%Y}: não há o que renunciar.")
    text = (text or "").strip()
    if not text:
        raise ValidationError({"text": ["Escreva o termo de renúncia ao prazo de defesa."]})
    _validate_files(attachments, "attachments")
    paper = channel != FilingChannel.ONLINE
    waiver = DefenseWaiver.objects.create(infraction=inf, author=inf.holder if inf.holder_id else None, text=text,
                                          waived_on=on, channel=channel, recorded_by=actor)
    _store_files(inf, attachments, kind=Attachment.Kind.WAIVER, actor=actor)
    _transition(inf, S.AWAITING_JUDGEMENT, actor=actor,
                reason="Renúncia escrita ao prazo de defesa" + (f" ({FilingChannel(channel).label})" if paper else ""),
                data={"waived_on": on.isoformat(), "channel": channel,
                      "defense_deadline": inf.defense_deadline.isoformat(),
                      "legal_basis": pack.basis("defense.days", modality)})
    return waiver
