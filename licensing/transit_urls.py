"""HTML URLs of collective transport (included at the root by portal/urls.py).

The menu entries, the home section and the demo seed are registered here, at URLconf
import, because licensing/apps.py is shared; they belong in the app's AppConfig.ready().
Each shows only while the active pack has collective transport.
"""

from django.urls import path

from licensing import views_transit as v
from licensing.demo_transit import home_section, seed_transit_demo
from portal import hooks, menu
from portal.roles import Role

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


class PackGatedMenuItem:
    """A menu entry (same shape as portal.menu.MenuItem) hidden while the pack lacks transit.

    portal.menu has no visibility hook; hiding works by answering, as its roles, a role
    nobody holds. An integrator may replace this by a ``visible`` callable on MenuItem.
    """

    _NOBODY = ("__transporte_coletivo_indisponivel__",)

    def __init__(self, label: str, url_name: str, roles: tuple[str, ...], order: int) -> None:
        self.label, self.url_name, self._roles, self.order = label, url_name, roles, order

    @property
    def roles(self) -> tuple[str, ...]:
        from licensing.selectors_transit import transit_enabled

        return self._roles if transit_enabled() else self._NOBODY

    def __eq__(self, other) -> bool:
        return isinstance(other, PackGatedMenuItem) and (self.label, self.url_name) == (other.label, other.url_name)

    def __hash__(self) -> int:
        return hash((self.label, self.url_name))


STAFF_ROLES = (Role.CLERK.value, Role.JUDGE.value, Role.ADMIN.value)

menu.register(
    PackGatedMenuItem("Linhas de ônibus", "transit-lines", (), 60),
    PackGatedMenuItem("Concessões (ônibus)", "transit-concessions", STAFF_ROLES, 61),
    PackGatedMenuItem("Reclamações (ônibus)", "transit-complaints", STAFF_ROLES, 62),
)
hooks.register_home_section(home_section)
hooks.register_demo_seed(seed_transit_demo)
