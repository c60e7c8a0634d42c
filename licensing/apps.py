from django.apps import AppConfig


class LicensingConfig(AppConfig):
    name = "licensing"
    verbose_name = "Licenciamento"

    def ready(self) -> None:
        from licensing import hooks
        from portal.menu import MenuItem, register
        from portal.roles import Role

        register(
            MenuItem("Meus requerimentos", "licensing-my-applications", (Role.APPLICANT,), 20),
            MenuItem("Meu perfil", "licensing-profile", (Role.APPLICANT,), 25),
            MenuItem("Requerimentos", "licensing-queue", (Role.CLERK, Role.ADMIN), 20),
            MenuItem("Editais", "licensing-calls", (Role.CLERK, Role.ADMIN), 22),
            MenuItem("Classificação", "licensing-ranking", (Role.CLERK, Role.ADMIN), 24),
            MenuItem("Vistorias", "licensing-agent-inspections", (Role.AGENT,), 20),
        )
        hooks.connect()
        from licensing import hooks_lifecycle
        from licensing.jobs import register_hooks

        hooks_lifecycle.register()
        register_hooks()  # quota check after load_regulation
        from licensing.jobs import register_renewal_hold
        from licensing.selectors import renewals_filed_in_time

        register_renewal_hold(renewals_filed_in_time)  # a renewal filed in time keeps the grant valid
        from licensing.transit.wiring import register as register_transit

        register_transit()  # collective transport: menu, home section, demo, bus fares
        from licensing import portal_providers

        portal_providers.register()  # public pages, ops page: through portal.registry
