"""HTML pages of collective transport: public lines and complaints; clerk and julgador screens.

Every view answers 404 when the active pack has no collective transport. Actions are
small form pages that call one service each; a refused rule shows the article beside the
field and keeps what was typed.
"""

from licensing.transit.views._base import (  # noqa: F401
    CLERKS,
    JUDGES,
    STAFF,
    ActionView,
    StaffMixin,
    TransitEnabledMixin,
)
from licensing.transit.views.actions import (  # noqa: F401
    BusCreateView,
    BusWithdrawView,
    CallNextView,
    ClausesView,
    ComplaintAnswerView,
    ConcessionaireCreateView,
    ConcessionCreateView,
    ContractSignView,
    DefaultConcludeView,
    DefaultCreateView,
    DefaultCureView,
    DefaultOpenView,
    ExtinguishView,
    FareCreateView,
    InterventionConcludeView,
    InterventionCreateView,
    ItineraryApproveView,
    ItineraryChangeView,
    ItineraryDiscardView,
    LineCreateView,
    ProcedureOpenView,
    RenewView,
    ServiceStartView,
)
from licensing.transit.views.public import (  # noqa: F401
    COMPLAINTS_PER_HOUR,
    PublicComplaintLookupView,
    PublicComplaintView,
    PublicLineListView,
    PublicLineView,
)
from licensing.transit.views.staff import (  # noqa: F401
    ComplaintListView,
    ConcessionaireDetailView,
    ConcessionaireListView,
    ConcessionDetailView,
    ConcessionListView,
    ContractPdfView,
    LineManageView,
)
