"""What every process's caches of the municipalities were built from: one check for all of them.

Each process keeps every municipality's parsed regulation pack (``portal.regulation``) and the
table of hosts (``portal.tenant_hosts``) in memory. They are not given a lifetime each — with
a hundred municipalities, a lifetime of a few seconds per municipality means that nearly every
request of a small municipality would read and parse its pack again (issue 17: the cost of a
request must not grow with the number of municipalities). Instead every change to what they are
built from bumps ``Municipality.revision`` in the same transaction (the receivers below: the
municipality row itself, its parameters, fiscal unit values, modality decrees and hosts; a bulk
``Municipality.objects.update()`` bumps it too), and each process reads the revisions of all
the municipalities **in one query, at most every ``CHECK_SECONDS``**: a cached pack is used
while its municipality's revision is the one it was built from, and only a municipality whose
revision changed is rebuilt. A change made in another process is thus seen within
``CHECK_SECONDS``; one made in this process at once (``regulation.invalidate`` calls ``forget``).

The comparison is by equality, not "newer than": a pack built inside a transaction that then
rolled back carries a revision the database no longer has, and is rebuilt at the next check.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

CHECK_SECONDS = 2.0


@dataclass(frozen=True)
class Row:
    id: int
    slug: str
    is_active: bool
    revision: int


@dataclass(frozen=True)
class Snapshot:
    """The municipalities as last read; ``generation`` changes whenever a read differs."""

    generation: int
    rows: dict[int, Row]


_lock = threading.Lock()
_snapshot = Snapshot(0, {})
_checked_at: float | None = None


def forget() -> None:
    """The next ``current()`` reads the revisions again (a change made in this process)."""
    global _checked_at
    _checked_at = None


def current(*, force: bool = False) -> Snapshot:
    """The revisions of every municipality, read again when ``CHECK_SECONDS`` passed."""
    global _snapshot, _checked_at
    now = time.monotonic()
    checked = _checked_at
    if not force and checked is not None and now - checked < CHECK_SECONDS:
        return _snapshot
    from portal.models import Municipality

    with _lock:
        rows = {
            pk: Row(pk, slug, is_active, revision)
            for pk, slug, is_active, revision in Municipality.objects.order_by().values_list(
                "pk", "slug", "is_active", "revision"
            )
        }
        if rows != _snapshot.rows:
            _snapshot = Snapshot(_snapshot.generation + 1, rows)
        _checked_at = now
        return _snapshot


def bump(municipality_id: int | None) -> None:
    """Tell every process that what its caches hold of this municipality changed."""
    if municipality_id is None:
        return
    from portal.models import Municipality

    Municipality.objects.filter(pk=municipality_id).update()  # MunicipalityQuerySet.update bumps
    forget()


def _bump_municipality(sender, instance, raw=False, **kwargs) -> None:
    if not raw:
        bump(instance.pk)


def _bump_owner(sender, instance, raw=False, **kwargs) -> None:
    if not raw:
        bump(instance.municipality_id)


def connect() -> None:
    """post_save/post_delete receivers on everything a pack or the host table is built from."""
    from django.db.models.signals import post_delete, post_save

    from portal.models import (
        FiscalUnitValue,
        ModalityDecree,
        Municipality,
        MunicipalityHost,
        RegulationParameter,
    )

    post_save.connect(_bump_municipality, sender=Municipality, dispatch_uid="tenant-revision-municipality")
    for model in (RegulationParameter, FiscalUnitValue, ModalityDecree, MunicipalityHost):
        for signal in (post_save, post_delete):
            signal.connect(_bump_owner, sender=model, dispatch_uid=f"tenant-revision-{model.__name__}")
