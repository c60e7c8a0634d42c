"""What a judgement will do, shown to the julgador before it is recorded (a deliberate step, as
the clerk confirms what an act will say before issuing it).

A decision that suspends or ends a grant is confirmed on a page of its own: the penalty, the days
of suspension or the cassação, the grant it falls on, when the effect starts and the articles. The
summary is fingerprinted; the decision is recorded only if the penalty computed at that moment is
still the one the julgador confirmed (a later auto or regulation may change it in between).
"""

from __future__ import annotations

import hashlib
import json

from enforcement import rules
from enforcement.models import Infraction
from enforcement.services.effects import appeal_is_suspensive
from enforcement.services.judgement import decision_notice_required
from enforcement.services.penalty import compute_penalty_for
from portal import regulation

# The kinds of penalty that restrict or end the grant itself (not a fine or a warning).
GRANT_EFFECT_KINDS = frozenset({"suspension", "suspension_until_regularised", "impediment"}) | rules.ENDING_KINDS


def grant_effect_kinds(penalty: dict | None) -> list[str]:
    """The kinds of ``penalty`` that suspend or end the grant, in the catalogue's order."""
    kinds = (penalty or {}).get("kinds", [])
    return [k for k in kinds if k in GRANT_EFFECT_KINDS]


def penalty_digest(penalty: dict | None) -> str:
    """A fingerprint of the penalty as shown: what the julgador confirmed."""
    return hashlib.sha256(json.dumps(penalty or {}, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _when(pack, modality: str | None) -> str:
    """When the effect on the grant starts (as ``infraction_judge`` and ``decision_notice_record`` apply it)."""
    days = pack.value("appeal.days", modality)
    if not days:
        return "Desde a decisão: a lei não prevê recurso, a decisão é definitiva."
    notice = decision_notice_required(pack, modality)
    if appeal_is_suspensive(pack, modality):
        return ("Quando a decisão se tornar definitiva (fim do prazo de recurso sem recurso, ou recurso não provido); "
                f"o prazo de recurso é de {days} dias"
                + (f", contados da ciência da notificação da decisão ({pack.basis('appeal.counted_from', modality)})."
                   if notice else f" ({pack.basis('appeal.days', modality)})."))
    start = "Desde a notificação da decisão ao autorizatário" if notice else "Desde já"
    return (f"{start}: o recurso não tem efeito suspensivo ({pack.basis('appeal.suspensive', modality)}); se for "
            f"provido, o efeito é desfeito. O prazo de recurso é de {days} dias"
            + (f", contados da ciência da notificação ({pack.basis('appeal.counted_from', modality)})."
               if notice else f" ({pack.basis('appeal.days', modality)})."))


def judgement_preview(inf: Infraction, pack=None) -> dict:
    """The summary of an upheld decision: penalty, effects on the grant, when, and the articles."""
    pack = pack or regulation.current()
    modality = inf.modality or None
    penalty = compute_penalty_for(inf, pack)
    effects = grant_effect_kinds(penalty)
    auth = inf.authorization
    bar = None
    if set(effects) & rules.ENDING_KINDS:
        months = pack.value("cassation.bar_months", modality)
        if months:
            bar = (f"O titular e os condutores auxiliares ficam impedidos de nova outorga por {months} meses "
                   f"({pack.basis('cassation.bar_months', modality)}).")
        elif pack.value("revocation.bars_future_grants", modality):
            bar = (f"O titular e os condutores auxiliares ficam impedidos de nova outorga, sem prazo "
                   f"({pack.basis('revocation.bars_future_grants', modality)}).")
    return {
        "penalty": penalty,
        "digest": penalty_digest(penalty),
        "effects": effects,
        "effect_labels": [rules.KIND_LABELS[k] for k in effects],
        "ends_grant": bool(set(effects) & rules.ENDING_KINDS),
        "suspension_days": penalty.get("suspension_days") or 0,
        "grant": ({"act_name": auth.act_name, "number": auth.number, "status": auth.get_status_display(),
                   "valid_until": auth.valid_until, "modality": pack.modality_label(auth.modality)}
                  if auth is not None else None),
        "when": _when(pack, modality),
        "bar": bar,
        "legal_basis": penalty.get("legal_basis", []),
    }


def needs_confirmation(preview: dict) -> bool:
    """A decision that suspends or ends the grant is confirmed first."""
    return bool(preview["effects"])
