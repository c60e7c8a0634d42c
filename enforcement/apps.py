from django.apps import AppConfig


class EnforcementConfig(AppConfig):
    name = "enforcement"
    verbose_name = "Fiscalização"

    def ready(self) -> None:
        from portal.hooks import register_demo_seed
        from portal.menu import MenuItem, register
        from portal.roles import Role

        register(
            MenuItem("Consultar placa", "enforcement:lookup", (Role.AGENT, Role.CLERK, Role.ADMIN), 30, group="Fiscalização"),
            MenuItem("Lavrar auto", "enforcement:new", (Role.AGENT,), 31),
            MenuItem("Autos de infração", "enforcement:list", (Role.CLERK, Role.AGENT, Role.JUDGE, Role.ADMIN), 32, group="Fiscalização"),
            MenuItem("Notificar autos", "enforcement:notice-queue", (Role.CLERK, Role.ADMIN), 33, group="Fiscalização"),
            MenuItem("Fila de julgamento", "enforcement:queue", (Role.JUDGE, Role.APPEAL_AUTHORITY), 34),
            # the decisions to publish are on the one publication desk (licensing-publications)
            MenuItem("Meus autos", "enforcement:mine", (Role.APPLICANT,), 36),
            MenuItem("Infrações e penalidades", "enforcement:catalogue", (), 80),
        )
        from enforcement.demo import seed_demo

        register_demo_seed(seed_demo)
        from portal.hooks import register_home_section

        register_home_section(open_deadlines_section)
        from enforcement import portal_providers

        portal_providers.register()  # public pages: through portal.registry
        from enforcement import consortium_figures

        consortium_figures.register()  # the consortium's aggregate figures
        from enforcement.services.fine_dam import on_fee_paid
        from licensing.fees.signals import fee_paid

        fee_paid.connect(on_fee_paid, dispatch_uid="enforcement-fine-paid")


def open_deadlines_section(request):
    """Home: a holder with a defense or appeal period running sees it first."""
    user = request.user
    if not getattr(user, "is_authenticated", False):
        return None
    from django.db.models import Q

    from enforcement.models import Infraction, InfractionStatus
    from portal import regulation

    pack = regulation.current(required=False)
    if pack is None:
        return None
    today = pack.today()
    rows = Infraction.objects.filter(
        Q(status=InfractionStatus.NOTIFIED, defense_deadline__gte=today)
        | Q(status=InfractionStatus.UPHELD, appeal_deadline__gte=today),
        holder=user,
    ).values_list("status", "defense_deadline", "appeal_deadline")
    deadlines = [d if s == InfractionStatus.NOTIFIED else a for s, d, a in rows]
    if not deadlines:
        return None
    return {"title": "Autos de infração", "template": "enforcement/_home.html",
            "context": {"count": len(deadlines), "next": min(deadlines)}}
