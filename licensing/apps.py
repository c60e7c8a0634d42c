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
        from licensing.demo_transit import home_section, seed_transit_demo
        from licensing.selectors_transit import transit_enabled
        from portal.hooks import register_demo_seed, register_home_section

        transit_staff = (Role.CLERK, Role.JUDGE, Role.ADMIN)
        register(  # collective transport: only when the active pack has it
            MenuItem("Linhas de ônibus", "transit-lines", (), 60, visible=transit_enabled),
            MenuItem("Concessões (ônibus)", "transit-concessions", transit_staff, 61, visible=transit_enabled),
            MenuItem("Reclamações (ônibus)", "transit-complaints", transit_staff, 62, visible=transit_enabled),
        )
        register_home_section(home_section)
        register_demo_seed(seed_transit_demo)
        from licensing import portal_providers

        portal_providers.register()  # public pages, ops page: through portal.registry
