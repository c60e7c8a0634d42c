"""The consortium's view of the installation: aggregate figures of every municipality in
service and the consolidated open data (issue 17).

Aggregates are computed by the figures the domain apps register (``portal.registry.
register_figure``), each one query for all municipalities. The consolidated open data is
each municipality's own public open data (``GRANTS_OPEN_DATA_STREAM``, the same fields the
public CSV publishes), read with that municipality in scope, one after the other, with the
municipality named on each row. Nothing here reads a person's record."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

from django.utils import timezone

from portal import registry, tenancy
from portal.models import Municipality


@dataclass
class MunicipalityFigures:
    municipality: Municipality
    year: int
    values: dict = field(default_factory=dict)  # figure key -> value


def municipalities_in_service() -> list[Municipality]:
    return list(Municipality.objects.filter(is_active=True).order_by("name"))


def this_year(municipality: Municipality, now: datetime | None = None) -> int:
    """The current year where the municipality is (1 January comes at its own midnight)."""
    return timezone.localtime(now or timezone.now(), ZoneInfo(municipality.time_zone or "America/Sao_Paulo")).year


def consortium_figures(now: datetime | None = None) -> tuple[list[registry.Figure], list[MunicipalityFigures]]:
    municipalities = municipalities_in_service()
    rows = [MunicipalityFigures(m, this_year(m, now)) for m in municipalities]
    pairs = [(r.municipality.pk, r.year) for r in rows]
    figures = registry.figures()
    for figure in figures:
        computed = figure.compute(pairs) if pairs else {}
        for row in rows:
            row.values[figure.key] = computed.get(row.municipality.pk)
    return figures, rows


def breakdown_labels(rows: list[MunicipalityFigures], key: str) -> list[str]:
    """The labels of a breakdown figure seen in any municipality (e.g. the modalities)."""
    labels: list[str] = []
    for row in rows:
        value = row.values.get(key)
        if isinstance(value, dict):
            labels.extend(label for label in value if label not in labels)
    return labels


def _scoped(municipality: Municipality, make: Callable[[], object]) -> Iterator[dict]:
    """Rows of ``make()`` with ``municipality`` in scope for every step of the iteration
    (the scope is put back between rows: a streamed response interleaves with nothing else,
    but the scope must never leak outside the municipality being read)."""
    with tenancy.activate(municipality):
        iterator = iter(make())
    while True:
        with tenancy.activate(municipality):
            try:
                row = next(iterator)
            except StopIteration:
                return
        yield row


def consolidated_open_data(q: str = "", modality: str = "") -> Iterator[dict]:
    """Every municipality's public open-data rows, each with the municipality's name, UF and
    IBGE code first."""
    for municipality in municipalities_in_service():
        label = {"municipality": municipality.name, "uf": municipality.uf, "ibge_code": municipality.ibge_code}
        for row in _scoped(municipality, lambda: registry.call(registry.GRANTS_OPEN_DATA_STREAM, q, modality)):
            yield {**label, **row}
