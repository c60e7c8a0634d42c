"""Services of collective transport concessions: the only writers of the transit models.

Keyword-only, one transaction per action, each state change audited. Legal rules come
from ``licensing.transit.rules`` with the pack's parameters (``[collective_transport]``).

Two refusals also record their legal consequence, which must survive the refusal: a
contract signed after the deadline (art. 8, §ún.: the winner renounces and the next
classified is called) and a service started after the deadline (art. 22: the delegation
lapses). Those services commit the consequence in their own atomic block and raise the
``RuleViolation`` after it; they must not be wrapped in an outer transaction.

One module per aggregate; this package re-exports the services for ``svc.<name>`` callers.
"""

from licensing.transit import rules  # noqa: F401 - svc.rules
from licensing.transit.services._common import (  # noqa: F401
    Segment,
    categories,
    category_entry,
    pack_list,
    param,
    transit_pack,
)
from licensing.transit.services.buses import (  # noqa: F401
    bus_register,
    bus_withdraw,
)
from licensing.transit.services.complaints import (  # noqa: F401
    complaint_answer,
    complaint_file,
)
from licensing.transit.services.concessions import (  # noqa: F401
    called_bidder,
    concession_call_next,
    concession_clauses_record,
    concession_contract_sign,
    concession_create,
    concession_extinguish,
    concession_renew,
    concession_service_start,
    concessionaire_create,
    current_clauses,
    latest_clause_review,
    missing_clauses,
)
from licensing.transit.services.deadlines import (  # noqa: F401
    transit_deadlines_sweep,
)
from licensing.transit.services.defaults import (  # noqa: F401
    default_conclude,
    default_mark_cured,
    default_notify,
    default_open,
)
from licensing.transit.services.fares import (  # noqa: F401
    fare_set,
)
from licensing.transit.services.interventions import (  # noqa: F401
    intervention_conclude,
    intervention_declare,
    intervention_open_procedure,
)
from licensing.transit.services.lines import (  # noqa: F401
    SCHEDULE_DAYS,
    busline_create,
    current_itinerary,
    itinerary_change_approve,
    itinerary_change_discard,
    itinerary_change_propose,
    original_itinerary,
)
