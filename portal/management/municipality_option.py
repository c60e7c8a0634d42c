"""``--municipality <slug>`` of the management commands that touch a municipality's data."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.core.management.base import CommandError

from portal import tenancy


def add_municipality_argument(parser) -> None:
    parser.add_argument(
        "--municipality", metavar="SLUG",
        help="município (identificador do pacote) sobre o qual agir; dispensável quando há um só em funcionamento",
    )


def chosen_municipality(slug: str | None):
    """The municipality named, or the only one in service; a clear error otherwise."""
    from portal.models import Municipality

    if slug:
        found = Municipality.objects.filter(slug=slug).first()
        if found is None:
            known = ", ".join(Municipality.objects.values_list("slug", flat=True)) or "nenhum"
            raise CommandError(f"--municipality: município {slug!r} não encontrado (carregados: {known}).")
        return found
    in_service = list(Municipality.objects.filter(is_active=True)[:2])
    if len(in_service) == 1:
        return in_service[0]
    if not in_service:
        raise CommandError("Nenhum município em funcionamento: rode `python manage.py load_regulation <pacote>`.")
    raise CommandError("--municipality: há vários municípios em funcionamento; diga sobre qual agir.")


@contextmanager
def municipality_scope(options: dict) -> Iterator:
    municipality = chosen_municipality(options.get("municipality"))
    with tenancy.activate(municipality):
        yield municipality
