"""API v1 URLs of collective transport (included under /api/v1/ by portal/urls.py)."""

from django.urls import path

from licensing import api_transit as api

urlpatterns = [
    path("transit/lines/", api.LineListView.as_view(), name="api-transit-lines"),
    path("transit/lines/<int:pk>/", api.LineDetailView.as_view(), name="api-transit-line"),
    path("transit/lines/<int:pk>/fare/", api.LineFareView.as_view(), name="api-transit-line-fare"),
    path("transit/lines/<int:pk>/complaints/", api.LineComplaintView.as_view(), name="api-transit-line-complaint"),
    path("transit/lines/<int:pk>/fares/", api.FareCreateView.as_view(), name="api-transit-line-fares"),
    path("transit/lines/<int:pk>/itinerary-changes/", api.ItineraryChangeView.as_view(),
         name="api-transit-itinerary-change"),
    path("transit/itinerary-changes/<int:pk>/approve/", api.ItineraryApproveView.as_view(),
         name="api-transit-itinerary-approve"),
    path("transit/concessionaires/", api.ConcessionaireListView.as_view(), name="api-transit-concessionaires"),
    path("transit/concessionaires/<int:pk>/", api.ConcessionaireDetailView.as_view(),
         name="api-transit-concessionaire"),
    path("transit/concessions/", api.ConcessionListView.as_view(), name="api-transit-concessions"),
    path("transit/concessions/<int:pk>/", api.ConcessionDetailView.as_view(), name="api-transit-concession"),
    path("transit/concessions/<int:pk>/contract/", api.ContractSignView.as_view(), name="api-transit-contract"),
    path("transit/concessions/<int:pk>/call-next/", api.CallNextView.as_view(), name="api-transit-call-next"),
    path("transit/concessions/<int:pk>/start/", api.ServiceStartView.as_view(), name="api-transit-start"),
    path("transit/concessions/<int:pk>/renew/", api.RenewView.as_view(), name="api-transit-renew"),
    path("transit/concessions/<int:pk>/clauses/", api.ClausesView.as_view(), name="api-transit-clauses"),
    path("transit/concessions/<int:pk>/extinguish/", api.ExtinguishView.as_view(), name="api-transit-extinguish"),
    path("transit/concessions/<int:pk>/lines/", api.LineCreateView.as_view(), name="api-transit-line-create"),
    path("transit/concessions/<int:pk>/buses/", api.BusCreateView.as_view(), name="api-transit-bus-create"),
    path("transit/concessions/<int:pk>/interventions/", api.InterventionCreateView.as_view(),
         name="api-transit-intervention-create"),
    path("transit/concessions/<int:pk>/defaults/", api.DefaultCreateView.as_view(), name="api-transit-default-create"),
    path("transit/interventions/<int:pk>/procedure/", api.ProcedureOpenView.as_view(),
         name="api-transit-intervention-procedure"),
    path("transit/interventions/<int:pk>/conclude/", api.InterventionConcludeView.as_view(),
         name="api-transit-intervention-conclude"),
    path("transit/defaults/<int:pk>/cure/", api.DefaultCureView.as_view(), name="api-transit-default-cure"),
    path("transit/defaults/<int:pk>/open/", api.DefaultOpenView.as_view(), name="api-transit-default-open"),
    path("transit/defaults/<int:pk>/conclude/", api.DefaultConcludeView.as_view(), name="api-transit-default-conclude"),
    path("transit/complaints/", api.ComplaintListView.as_view(), name="api-transit-complaints"),
    path("transit/complaints/<int:pk>/answer/", api.ComplaintAnswerView.as_view(), name="api-transit-complaint-answer"),
]
