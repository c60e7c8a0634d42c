"""The app's models module: Django and the migrations find every model through it.

Each room keeps its own models (``licensing/<room>/models.py``); this hub only re-exports
them, by name. ``_document_upload_to`` is named by migration 0002.
"""

from licensing.applications.models import (  # noqa: F401
    APPLICATION_TRANSITIONS,
    OPEN_APPLICATION_STATUSES,
    UPLOAD_STATUSES,
    ApplicantProfile,
    Application,
    ApplicationAuxiliary,
    ApplicationDocument,
    ApplicationKind,
    ApplicationStatus,
    Call,
    DocumentStatus,
    Inspection,
    Publication,
    PublishedAct,
    Requirement,
    Schooling,
    _document_upload_to,
)
from licensing.fees.models import (  # noqa: F401
    FEE_TRANSITIONS,
    Fee,
    FeeKind,
    FeeStatus,
    PaymentImport,
    PaymentLine,
    PaymentOutcome,
    PaymentSource,
)
from licensing.grants.models import (  # noqa: F401
    ALVARA_TRANSITIONS,
    AUTHORIZATION_TRANSITIONS,
    CURRENT_STATUSES,
    Alvara,
    AlvaraStatus,
    Amendment,
    AmendmentKind,
    Authorization,
    AuthorizationStatus,
    GrantBar,
    GrantLock,
    Modality,
)
from licensing.requests.models import (  # noqa: F401
    REQUEST_TRANSITIONS,
    AuxiliaryDriver,
    AuxiliaryStatus,
    LeaveOfAbsence,
    LeaveReason,
    LeaveStatus,
    LifecycleRequest,
    Preposto,
    RequestKind,
    RequestStatus,
    YearlyNotice,
    YearlyNoticeStage,
    YearlyObligation,
)
from licensing.stands.models import (  # noqa: F401
    AssignmentStatus,
    StandAssignment,
    TaxiStand,
)
from licensing.transit.models import (  # noqa: F401
    CONCESSION_TRANSITIONS,
    DEFAULT_TRANSITIONS,
    INTERVENTION_TRANSITIONS,
    BidderStatus,
    Bus,
    BusFare,
    BusLine,
    BusStatus,
    ClassifiedBidder,
    Complaint,
    ComplaintStatus,
    Concession,
    Concessionaire,
    ConcessionStatus,
    DefaultProceeding,
    DefaultStatus,
    FareZone,
    Intervention,
    InterventionStatus,
    Itinerary,
    ItinerarySegment,
    ItineraryStatus,
)
