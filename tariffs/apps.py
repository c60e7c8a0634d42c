from django.apps import AppConfig


class TariffsConfig(AppConfig):
    name = "tariffs"
    verbose_name = "Tarifas"

    def ready(self) -> None:
        from portal import hooks, menu
        from portal.roles import Role

        menu.register(
            menu.MenuItem("Tarifas", "tariffs-calculator", (), order=20),
            menu.MenuItem("Verificar autorização", "public-verify", (), order=21),
            menu.MenuItem("Transparência", "public-transparency", (), order=22),
            menu.MenuItem("Publicar tarifa", "tariffs-admin", (Role.ADMIN, Role.JUDGE), order=80, group="Operação"),
        )
        from tariffs.services import on_pack_loaded
        from tariffs.views import home_section

        hooks.register_pack_loaded(on_pack_loaded)
        hooks.register_home_section(home_section)

        # Public pages are cached while the grants they show are unchanged: any saved grant,
        # alvará or audit entry makes this process look again (others within 2 seconds).
        from django.db.models.signals import post_save

        from portal.public.http import forget_grants_fingerprint

        for model in ("portal.AuditEntry", "licensing.Authorization", "licensing.Alvara"):
            post_save.connect(
                forget_grants_fingerprint, sender=model, dispatch_uid=f"public-pages-{model}"
            )
