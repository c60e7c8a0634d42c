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
        register(
            MenuItem("Tarefas automáticas", "ops-jobs", (Role.CLERK, Role.ADMIN), 80),
            MenuItem("Veículos na idade máxima", "ops-aged-vehicles", (Role.CLERK, Role.ADMIN), 81),
        )
