"""API v1 of collective transport (/api/v1/transit/...). 404 when the pack has no such section.

Public: lines with itinerary, schedule, fares in force and operator; the fare of a line
(``?zone=&student=&at=``); complaints about a line. Staff: concessionaires, concessions and
their lifecycle, lines, buses, fares, itinerary changes, interventions, default
proceedings, complaint answers. Writes go through ``licensing.transit.services``.
"""

from licensing.transit.api.public import (  # noqa: F401
    LineComplaintView,
    LineDetailView,
    LineFareView,
    LineListView,
)
from licensing.transit.api.staff import (  # noqa: F401
    BusCreateView,
    BusWithdrawView,
    CallNextView,
    ClausesView,
    ComplaintAnswerView,
    ComplaintListView,
    ConcessionaireDetailView,
    ConcessionaireListView,
    ConcessionDetailView,
    ConcessionListView,
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
