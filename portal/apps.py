from django.apps import AppConfig


class PortalConfig(AppConfig):
    name = "portal"
    verbose_name = "Portal"

    def ready(self) -> None:
        from portal import dates, menu, security
        from portal.modality_views import pack_waits_for_a_decree
        from portal.roles import Role

        dates.install()
        security.connect()
        from portal import tenant_revisions

        tenant_revisions.connect()

        from django.db.models.signals import post_migrate

        from portal import row_security

        # once per migrate (the portal app's signal), after every app's tables exist
        post_migrate.connect(row_security.after_migrate, sender=self, dispatch_uid="portal-row-security")

        menu.register(
            menu.MenuItem("Início", "home", (), order=0),
            menu.MenuItem("Meu painel", "dashboard", ("*",), order=1),
            menu.MenuItem("Notificações", "notifications", ("*",), order=90),
            menu.MenuItem("Legislação", "legislation", (), order=95),
            menu.MenuItem("Tarefas automáticas", "ops-jobs", (Role.CLERK, Role.ADMIN), order=80, group="Operação"),
            menu.MenuItem("Decretos das modalidades", "ops-modality-decrees", (Role.ADMIN,), order=81,
                          visible=pack_waits_for_a_decree, group="Operação"),
            menu.MenuItem("Equipe do município", "ops-staff", (Role.ADMIN,), order=85, group="Operação"),
            menu.MenuItem("Municípios do consórcio", "consortium", (Role.CONSORTIUM,), order=86),
        )
        from portal import page_cache
        from portal.public.api import direct_open_data_page, direct_verification
        from portal.public.views import direct_transparency_page, direct_verification_page

        # verification by code: every QR code is new to the cache (portal.page_cache, direct answers)
        page_cache.direct_route("api-verify", direct_verification, kwarg="code")
        page_cache.direct_route("public-verify-code", direct_verification_page, kwarg="code")
        # the transparency list, page and open-data API: every deep page is asked once or twice,
        # and built once for every worker (many round trips of work: kept in the shared cache too)
        page_cache.direct_route("public-transparency", direct_transparency_page, query="page", shared=True)
        page_cache.direct_route("api-open-authorizations", direct_open_data_page, query="page", shared=True)

        from portal import registry

        registry.register_job("drain_outbox", "Envio de e-mails pendentes", task="portal.tasks.drain_outbox", order=90)
