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

        from licensing.demo_transit import home_section, seed_transit_demo
        from licensing.selectors_transit import transit_enabled
        from portal.hooks import register_demo_seed, register_home_section
        from portal.menu import MenuItem, register
        from portal.roles import Role

        transit_staff = (Role.CLERK, Role.JUDGE, Role.ADMIN)
        register(  # collective transport: only when the active pack has it
            MenuItem("Linhas de ônibus", "transit-lines", (), 60, visible=transit_enabled),
            MenuItem("Concessões (ônibus)", "transit-concessions", transit_staff, 61, visible=transit_enabled),
            MenuItem("Reclamações (ônibus)", "transit-complaints", transit_staff, 62, visible=transit_enabled),
        )
        register_home_section(home_section)
        register_demo_seed(seed_transit_demo)
        grants.connect_menu()
