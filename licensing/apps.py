from django.apps import AppConfig


class LicensingConfig(AppConfig):
    """One Django app, cut into rooms (``licensing/<room>/``); each room's ``wiring`` registers
    its menu entries, hooks and demo data here, in this order."""

    name = "licensing"
    verbose_name = "Licenciamento"

    def ready(self) -> None:
        from licensing.applications import wiring as applications
        from licensing.fees import wiring as fees
        from licensing.grants import wiring as grants
        from licensing.requests import wiring as requests
        from licensing.stands import wiring as stands

        applications.connect()
        requests.connect()
        stands.connect()
        fees.connect()
        grants.connect()

        from licensing.transit.wiring import register as register_transit

        register_transit()  # collective transport: menu, home section, demo, bus fares
        from licensing import portal_providers

        portal_providers.register()  # public pages, ops page: through portal.registry
        from licensing import consortium_figures

        consortium_figures.register()  # the consortium's aggregate figures
