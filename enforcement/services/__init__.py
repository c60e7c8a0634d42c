"""Every write of enforcement: issue, notice, defense, judgement, appeal, effects, cancel.

Each service is keyword-only, runs in one transaction, locks the auto, checks its status
against ``INFRACTION_TRANSITIONS`` (in ``_common._transition``), applies the rules of
``enforcement.rules`` with the pack's parameters and writes an audit entry.

One module per step of the process; this package re-exports the names callers use
(``from enforcement import services``; ``services.infraction_judge``). The modules import
in one direction: _common ← penalty ← effects ← deadlines ← notice/defense/judgement ←
appeals; autos, fines and regulations stand on the first ones.
"""

from enforcement.models import JUDGEABLE_STATUSES
from enforcement.services._common import (
    DEFAULT_FINE_DUE_DAYS,
    FUTURE_TOLERANCE,
    S,
    _transition,
)
from enforcement.services.appeals import (
    appeal_file,
    appeal_grant_suspensive_effect,
    appeal_judge,
    earlier_judges,
    review_allegations_file,
    review_hearing_open,
)
from enforcement.services.autos import infraction_cancel, infraction_issue
from enforcement.services.deadlines import (
    close_appeal_windows,
    close_defense_windows,
    lift_ended_suspensions,
    period,
)
from enforcement.services.defense import defense_file, defense_waive
from enforcement.services.effects import (
    EFFECTIVE_STATUSES,
    appeal_is_suspensive,
    apply_grant_effects,
    finalize,
    revert_grant_effects,
)
from enforcement.services.fines import fine_mark_paid, regularisation_record
from enforcement.services.judgement import decision_notice_required, infraction_judge
from enforcement.services.notice import decision_notice_record, infraction_notify
from enforcement.services.penalty import (
    catalogue_entries,
    compute_penalty_for,
    fine_overrides,
    prior_fines,
    recidivism_recompute,
    recorded_fine_values,
)
from enforcement.services.preview import judgement_preview, needs_confirmation
from enforcement.services.regulations import regulation_keys, regulation_record

__all__ = [
    "DEFAULT_FINE_DUE_DAYS",
    "EFFECTIVE_STATUSES",
    "FUTURE_TOLERANCE",
    "JUDGEABLE_STATUSES",
    "S",
    "_transition",
    "appeal_file",
    "appeal_grant_suspensive_effect",
    "appeal_is_suspensive",
    "appeal_judge",
    "apply_grant_effects",
    "catalogue_entries",
    "close_appeal_windows",
    "close_defense_windows",
    "compute_penalty_for",
    "decision_notice_record",
    "decision_notice_required",
    "defense_file",
    "defense_waive",
    "earlier_judges",
    "finalize",
    "fine_mark_paid",
    "fine_overrides",
    "infraction_cancel",
    "judgement_preview",
    "needs_confirmation",
    "infraction_issue",
    "infraction_judge",
    "infraction_notify",
    "lift_ended_suspensions",
    "period",
    "prior_fines",
    "recidivism_recompute",
    "recorded_fine_values",
    "regulation_keys",
    "regulation_record",
    "regularisation_record",
    "review_allegations_file",
    "review_hearing_open",
    "revert_grant_effects",
]
