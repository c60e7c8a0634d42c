"""What the transit room registers at start-up (from LicensingConfig.ready()): its menu
entries (only when the active pack has collective transport), its home section and demo
data, and the bus fares the tariffs pages show (portal.registry.BUS_FARES)."""

from __future__ import annotations


class BusFares:
    """The bus fares source of portal.registry.BUS_FARES: the transit selectors the tariffs
    pages use, and the label of a zone."""

    def __init__(self) -> None:
        from licensing.transit import selectors

        self.transit_enabled = selectors.transit_enabled
        self.fares_fingerprint = selectors.fares_fingerprint
        self.quotable_lines = selectors.quotable_lines
        self.public_lines = selectors.public_lines
        self.fares_in_force = selectors.fares_in_force
        self.line_tariff_api = selectors.line_tariff_api
        self.line_fare_quote = selectors.line_fare_quote

    @staticmethod
    def zone_label(zone: str) -> str:
        from licensing.transit.models import FareZone

        return str(FareZone(zone).label)


def register() -> None:
    from licensing.transit.demo import home_section, seed_transit_demo
    from licensing.transit.selectors import transit_enabled
    from portal import registry
    from portal.hooks import register_demo_seed, register_home_section
    from portal.menu import MenuItem
    from portal.menu import register as register_menu
    from portal.roles import Role

    transit_staff = (Role.CLERK, Role.JUDGE, Role.ADMIN)
    register_menu(  # collective transport: only when the active pack has it
        MenuItem("Linhas de ônibus", "transit-lines", (), 60, visible=transit_enabled),
        MenuItem("Concessões (ônibus)", "transit-concessions", transit_staff, 61, visible=transit_enabled, group="Transporte coletivo"),
        MenuItem("Reclamações (ônibus)", "transit-complaints", transit_staff, 62, visible=transit_enabled, group="Transporte coletivo"),
    )
    register_home_section(home_section)
    register_demo_seed(seed_transit_demo)
    bus_fares = BusFares()
    registry.provide(registry.BUS_FARES, lambda: bus_fares)
