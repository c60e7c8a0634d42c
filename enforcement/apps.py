from django.apps import AppConfig


class EnforcementConfig(AppConfig):
    name = "enforcement"
    verbose_name = "Fiscalização"

    def ready(self) -> None:
        from portal.hooks import register_demo_seed
        from portal.menu import MenuItem, register
        from portal.roles import Role

        register(
            MenuItem("Consultar placa", "enforcement:lookup", (Role.AGENT, Role.CLERK, Role.ADMIN), 30),
            MenuItem("Lavrar auto", "enforcement:new", (Role.AGENT,), 31),
            MenuItem("Autos de infração", "enforcement:list", (Role.CLERK, Role.AGENT, Role.JUDGE, Role.ADMIN), 32),
            MenuItem("Notificar autos", "enforcement:notice-queue", (Role.CLERK, Role.ADMIN), 33),
            MenuItem("Fila de julgamento", "enforcement:queue", (Role.JUDGE,), 34),
            MenuItem("Diário Oficial", "enforcement:publication", (Role.JUDGE, Role.CLERK, Role.ADMIN), 35),
            MenuItem("Meus autos", "enforcement:mine", (Role.APPLICANT,), 36),
            MenuItem("Infrações e penalidades", "enforcement:catalogue", (), 80),
        )
        from enforcement.demo import seed_demo

        register_demo_seed(seed_demo)
