"""The decision's effects on the grant (suspension, cassação, bars), their reversal, the final decision."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from django.db.models import Q

from enforcement import rules
from enforcement.models import (
    Fine,
    Infraction,
)
from enforcement.services._common import (
    DEFAULT_FINE_DUE_DAYS,
    S,
    _return_retained_alvara,
    _tell_holder,
    _transition,
)
from enforcement.services.penalty import compute_penalty_for
from licensing.grants import services as licensing_services
from licensing.grants.rules import add_months
from licensing.models import AuthorizationStatus
from portal import regulation
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.numbering import document_number


def _effects_sentence(effects: dict, pack, modality) -> str:
    if effects.get("cassada") or effects.get("suspended_until"):
        return (" A suspensão ou cassação vale desde já: o recurso não a suspende "
                f"({pack.basis('appeal.suspensive', modality)}); se ele for provido, ela é desfeita.")
    return ""


def _holder_and_auxiliaries(auth) -> list:
    """The holder and every auxiliary driver of the grant, however the law records them:
    an alvará of their own (alvará per driver), a registration added later, or the
    application that was granted (alvará per vehicle, or no alvará at all)."""
    from licensing.models import ApplicationAuxiliary
    from licensing.requests.models import AuxiliaryDriver, AuxiliaryStatus

    registered = list(AuxiliaryDriver.objects.filter(authorization=auth).select_related("person"))
    removed = {a.person_id for a in registered if a.status != AuxiliaryStatus.ACTIVE} - {
        a.person_id for a in registered if a.status == AuxiliaryStatus.ACTIVE}
    people = [auth.holder]
    people += [a.person for a in auth.alvaras.select_related("person")]
    people += [a.person for a in registered if a.status == AuxiliaryStatus.ACTIVE]
    people += [a.person for a in ApplicationAuxiliary.objects.filter(application__authorization=auth,
                                                                    person__isnull=False).select_related("person")
               if a.person_id not in removed]
    return people


# an upheld decision whose effects may be in force (applied at the decision or when final)
EFFECTIVE_STATUSES = (S.UPHELD, S.APPEALED, S.FINAL)


def appeal_is_suspensive(pack, modality: str | None) -> bool:
    """Whether an appeal holds the decision's effects on the grant (``appeal.suspensive``). Where
    it does not, the upheld decision suspends or ends the grant at once and an appeal that is
    granted undoes it; without the parameter the effects wait for the final decision."""
    param = pack.param("appeal.suspensive", modality)
    return param is None or bool(param.value)


def apply_grant_effects(*, actor, infraction: Infraction, today: date) -> dict:
    """The upheld decision's effects on the grant, once: suspension for its days (a further one
    starts the day after the one being served; one without end date absorbs a fixed one),
    suspension until regularised and impediment without end date; cassação / cancellation ends
    the grant (alvarás follow) and bars the holder and the auxiliaries for ``cassation.bar_months``
    or without term where ``revocation.bars_future_grants``."""
    pack = regulation.current()
    inf = infraction
    if inf.effects_on is not None:
        return {}
    modality = inf.modality or None
    penalty = inf.penalty or {}
    kinds = set(penalty.get("kinds", []))
    inf.effects_on = today
    inf.save(update_fields=["effects_on"])
    auth = inf.authorization
    if auth is not None:
        auth.refresh_from_db()
    effects: dict = {}
    if auth is None or not auth.is_current:
        return effects
    if kinds & rules.ENDING_KINDS:
        licensing_services.authorization_set_status(
            actor=actor, authorization=auth, to=AuthorizationStatus.CASSADA,
            reason=f"Cassação decorrente do auto nº {inf.number}", data={"infraction": inf.number})
        effects["cassada"] = auth.number
        months = pack.value("cassation.bar_months", modality)
        bars_forever = pack.value("revocation.bars_future_grants", modality)
        if months or bars_forever:
            until = add_months(today, int(months)) if months else None
            basis = pack.basis("cassation.bar_months" if months else "revocation.bars_future_grants", modality)
            seen = set()
            for person in _holder_and_auxiliaries(auth):
                if person.pk in seen:
                    continue
                seen.add(person.pk)
                licensing_services.grant_bar_create(
                    actor=actor, person=person, until=until, legal_basis=basis, source=f"auto {inf.number}",
                    reason=f"Cassação da {auth.act_name} nº {auth.number} (auto de infração nº {inf.number})")
            effects["bar_until"] = until.isoformat() if until else None
    elif auth.status in (AuthorizationStatus.ACTIVE, AuthorizationStatus.SUSPENDED) and (
        {"suspension_until_regularised", "impediment"} & kinds or penalty.get("suspension_days")
    ):
        open_ended = bool({"suspension_until_regularised", "impediment"} & kinds)
        serving = auth.status == AuthorizationStatus.SUSPENDED
        if open_ended or (serving and auth.suspended_until is None):
            until = None  # without end date, or absorbed by a suspension until regularised
        else:
            start = rules.next_suspension_start(today, auth.suspended_until if serving else None)
            until = rules.suspension_last_day(start, int(penalty["suspension_days"]))
        reason = f"Suspensão decorrente do auto nº {inf.number}"
        if not serving:
            licensing_services.authorization_set_status(
                actor=actor, authorization=auth, to=AuthorizationStatus.SUSPENDED, suspended_until=until,
                reason=reason, data={"infraction": inf.number})
        elif until != auth.suspended_until:
            licensing_services.authorization_set_suspension_end(
                actor=actor, authorization=auth, until=until, reason=reason, data={"infraction": inf.number})
        inf.suspension_until = until
        inf.save(update_fields=["suspension_until"])
        effects["suspended_until"] = until.isoformat() if until else "até a regularização"
    if effects:
        audit_log(actor=actor, obj=inf, action=AuditAction.INFRACTION_EFFECTS, from_state=inf.status, to_state=inf.status,
                  reason="Efeitos da decisão sobre a autorização", data=effects)
    return effects


def revert_grant_effects(*, actor, infraction: Infraction, today: date, reason: str) -> None:
    """An appeal granted undoes what the upheld decision did to the grant: a cassação is
    undone (bars lifted; the grant active again, or expired if its term is over), a suspension
    imposed by this auto is lifted — or shortened by its days when another one is being served."""
    inf = infraction
    if inf.effects_on is None:
        return
    auth = inf.authorization
    kinds = set((inf.penalty or {}).get("kinds", []))
    licensing_services.grant_bars_lift(actor=actor, source=f"auto {inf.number}", on=today, reason=reason)
    if auth is not None:
        auth.refresh_from_db()
        caused_by_this = f"auto nº {inf.number}" in (auth.status_reason or "")
        if auth.status == AuthorizationStatus.CASSADA and kinds & rules.ENDING_KINDS and caused_by_this:
            licensing_services.authorization_restore(actor=actor, authorization=auth, reason=reason)
        elif auth.status == AuthorizationStatus.SUSPENDED:
            others = Infraction.objects.filter(authorization=auth, effects_on__isnull=False,
                                               status__in=EFFECTIVE_STATUSES,
                                               suspension_lifted=False).exclude(pk=inf.pk).filter(
                Q(suspension_until__isnull=True) | Q(suspension_until__gte=today))
            others = [o for o in others if set((o.penalty or {}).get("kinds", [])) & {
                "suspension_until_regularised", "impediment"} or (o.penalty or {}).get("suspension_days")]
            days = (inf.penalty or {}).get("suspension_days")
            if not others:
                licensing_services.authorization_set_status(actor=actor, authorization=auth,
                                                            to=AuthorizationStatus.ACTIVE, reason=reason,
                                                            data={"infraction": inf.number})
            elif days and auth.suspended_until is not None and inf.suspension_until is not None:
                licensing_services.authorization_set_suspension_end(
                    actor=actor, authorization=auth, until=auth.suspended_until - timedelta(days=int(days)),
                    reason=reason, data={"infraction": inf.number})
    inf.effects_on = None
    inf.suspension_until = None
    inf.save(update_fields=["effects_on", "suspension_until"])
    audit_log(actor=actor, obj=inf, action=AuditAction.INFRACTION_EFFECTS_REVERTED, from_state=inf.status,
              to_state=inf.status, reason=reason)


def finalize(*, actor, infraction: Infraction, today: date, reason: str = "Decisão definitiva") -> Infraction:
    """Make the upheld decision final: its effects on the grant (unless applied at the decision,
    see ``appeal_is_suspensive``), the fine's payment slip (DAM), the retained alvará returned."""
    pack = regulation.current()
    inf = infraction
    modality = inf.modality or None
    penalty = inf.penalty or {}
    if penalty.get("missing_regulation"):  # a regulation recorded since the decision, in force on the day
        fresh = compute_penalty_for(inf, pack)
        if fresh.get("amount") and not fresh.get("missing_regulation"):
            audit_log(actor=actor, obj=inf, action=AuditAction.PENALTY_RECOMPUTED, from_state=inf.status, to_state=inf.status,
                      reason="Valor da multa fixado por regulamento em vigor na data da infração",
                      data={"amount": fresh["amount"]})
            penalty = inf.penalty = fresh
    inf.final_on = today
    _transition(inf, S.FINAL, actor=actor, reason=reason, fields=["final_on", "penalty"], data={"penalty": penalty})
    apply_grant_effects(actor=actor, infraction=inf, today=today)
    effects: dict = {}
    if penalty.get("amount"):
        due_days = int(pack.value("fees.due_days", modality) or DEFAULT_FINE_DUE_DAYS)
        fine = Fine.objects.create(infraction=inf, number=document_number("dam", today.year),
                                   amount=Decimal(penalty["amount"]), due_date=today + timedelta(days=due_days))
        audit_log(actor=actor, obj=fine, action=AuditAction.FINE_ISSUED, to_state="open", reason=f"DAM do auto nº {inf.number}",
                  data={"amount": penalty["amount"], "due_date": fine.due_date.isoformat()})
        effects["dam"] = fine.number
    _return_retained_alvara(inf, actor=actor, reason=f"Decisão definitiva do auto nº {inf.number}")
    if effects:
        audit_log(actor=actor, obj=inf, action=AuditAction.INFRACTION_EFFECTS, from_state=S.FINAL, to_state=S.FINAL,
                  reason="Efeitos da decisão definitiva", data=effects)
    _tell_holder(inf, f"Decisão definitiva — auto nº {inf.number}",
                 f"A decisão do auto nº {inf.number} tornou-se definitiva. Penalidade: "
                 f"{', '.join(penalty.get('labels', [])) or '—'}."
                 + (f" Multa de R$ {penalty['amount']}: o DAM está disponível no portal." if penalty.get("amount") else ""),
                 "final")
    return inf
