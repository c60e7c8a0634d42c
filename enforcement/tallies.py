"""The summary behind the public statistics' autos by article and month (``portal.tallies``):
every auto not cancelled, per infraction code and local month of the infraction, kept by the
database. The migration that installs it names this spec; a change here needs a migration that
installs it again."""

from __future__ import annotations

from enforcement.models import InfractionStatus
from portal.tallies import Tally, column, month_of, one

AUTOS = Tally(
    name="enforcement_infraction_tally",
    source="enforcement_infraction",
    target="enforcement_infractiontally",
    keys={"infraction_code": column("infraction_code"), "month": month_of("occurred_at")},
    sums={"n": one()},
    where=lambda d, r: f"{r}.status <> '{InfractionStatus.CANCELLED.value}'",
    watch=("infraction_code", "occurred_at", "status"),
)
