"""HTML URLs of collective transport (included at the root by portal/urls.py). Menu entries,
home section and demo seed: LicensingConfig.ready(), shown only when the pack has buses."""

from django.urls import path

from licensing.transit import views as v

P = "transporte-coletivo"
G = f"{P}/gestao"

urlpatterns = [
    path(f"{P}/linhas/", v.PublicLineListView.as_view(), name="transit-lines"),
    path(f"{P}/linhas/<int:pk>/", v.PublicLineView.as_view(), name="transit-line"),
    path(f"{P}/linhas/<int:pk>/reclamar/", v.PublicComplaintView.as_view(), name="transit-complaint"),
    path(f"{P}/reclamacoes/consulta/", v.PublicComplaintLookupView.as_view(), name="transit-complaint-lookup"),
    path(f"{G}/empresas/", v.ConcessionaireListView.as_view(), name="transit-concessionaires"),
    path(f"{G}/empresas/nova/", v.ConcessionaireCreateView.as_view(), name="transit-concessionaire-new"),
    path(f"{G}/empresas/<int:pk>/", v.ConcessionaireDetailView.as_view(), name="transit-concessionaire"),
    path(f"{G}/concessoes/", v.ConcessionListView.as_view(), name="transit-concessions"),
    path(f"{G}/concessoes/nova/", v.ConcessionCreateView.as_view(), name="transit-concession-new"),
    path(f"{G}/concessoes/<int:pk>/", v.ConcessionDetailView.as_view(), name="transit-concession"),
    path(f"{G}/concessoes/<int:pk>/contrato/", v.ContractSignView.as_view(), name="transit-contract"),
    path(f"{G}/concessoes/<int:pk>/contrato.pdf", v.ContractPdfView.as_view(), name="transit-contract-pdf"),
    path(f"{G}/concessoes/<int:pk>/convocar-proxima/", v.CallNextView.as_view(), name="transit-call-next"),
    path(f"{G}/concessoes/<int:pk>/inicio/", v.ServiceStartView.as_view(), name="transit-start"),
    path(f"{G}/concessoes/<int:pk>/renovar/", v.RenewView.as_view(), name="transit-renew"),
    path(f"{G}/concessoes/<int:pk>/clausulas/", v.ClausesView.as_view(), name="transit-clauses"),
    path(f"{G}/concessoes/<int:pk>/extinguir/", v.ExtinguishView.as_view(), name="transit-extinguish"),
    path(f"{G}/concessoes/<int:pk>/linhas/nova/", v.LineCreateView.as_view(), name="transit-line-new"),
    path(f"{G}/concessoes/<int:pk>/veiculos/novo/", v.BusCreateView.as_view(), name="transit-bus-new"),
    path(f"{G}/concessoes/<int:pk>/intervencao/", v.InterventionCreateView.as_view(), name="transit-intervention-new"),
    path(f"{G}/concessoes/<int:pk>/inadimplencia/", v.DefaultCreateView.as_view(), name="transit-default-new"),
    path(f"{G}/linhas/<int:pk>/", v.LineManageView.as_view(), name="transit-line-manage"),
    path(f"{G}/linhas/<int:pk>/tarifa/", v.FareCreateView.as_view(), name="transit-fare-new"),
    path(f"{G}/linhas/<int:pk>/alterar-itinerario/", v.ItineraryChangeView.as_view(), name="transit-itinerary-change"),
    path(f"{G}/itinerarios/<int:pk>/aprovar/", v.ItineraryApproveView.as_view(), name="transit-itinerary-approve"),
    path(f"{G}/itinerarios/<int:pk>/descartar/", v.ItineraryDiscardView.as_view(), name="transit-itinerary-discard"),
    path(f"{G}/veiculos/<int:pk>/retirar/", v.BusWithdrawView.as_view(), name="transit-bus-withdraw"),
    path(f"{G}/intervencoes/<int:pk>/procedimento/", v.ProcedureOpenView.as_view(), name="transit-procedure"),
    path(f"{G}/intervencoes/<int:pk>/concluir/", v.InterventionConcludeView.as_view(),
         name="transit-intervention-conclude"),
    path(f"{G}/inadimplencia/<int:pk>/corrigida/", v.DefaultCureView.as_view(), name="transit-default-cure"),
    path(f"{G}/inadimplencia/<int:pk>/instaurar/", v.DefaultOpenView.as_view(), name="transit-default-open"),
    path(f"{G}/inadimplencia/<int:pk>/decidir/", v.DefaultConcludeView.as_view(), name="transit-default-conclude"),
    path(f"{G}/reclamacoes/", v.ComplaintListView.as_view(), name="transit-complaints"),
    path(f"{G}/reclamacoes/<int:pk>/responder/", v.ComplaintAnswerView.as_view(), name="transit-complaint-answer"),
]
