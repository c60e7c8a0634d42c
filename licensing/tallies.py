"""The summaries behind the public statistics (``/transparencia/estatisticas/``), kept by the
database (``portal.tallies``): the page reads a few dozen rows however many grants there are.

- ``GRANTS`` → ``GrantTally``: every grant, per modality, status and local month of issue;
  the count and the sum of its local issue days (the average age of the current grants is
  today − their mean issue day).
- ``APPROVALS`` → ``ApprovalTally``: every approved application with protocol and decision,
  per modality; the count and the sum of its calendar days from protocol to decision.

The migration that installs them names these specs; a change here needs a migration that
installs them again (uninstall the old, install the new).
"""

from __future__ import annotations

from licensing.applications.models import ApplicationStatus
from portal.tallies import Tally, column, days_between, epoch_day_of, month_of, one

GRANTS = Tally(
    name="licensing_grant_tally",
    source="licensing_authorization",
    target="licensing_granttally",
    keys={"modality": column("modality"), "status": column("status"), "month": month_of("issued_at")},
    sums={"n": one(), "day_sum": epoch_day_of("issued_at")},
    watch=("modality", "status", "issued_at"),
)

APPROVALS = Tally(
    name="licensing_approval_tally",
    source="licensing_application",
    target="licensing_approvaltally",
    keys={"modality": column("modality")},
    sums={"n": one(), "days_sum": days_between("submitted_at", "decided_at")},
    where=lambda d, r: f"{r}.status = '{ApplicationStatus.APPROVED.value}' AND {r}.submitted_at IS NOT NULL AND {r}.decided_at IS NOT NULL",
    watch=("modality", "status", "submitted_at", "decided_at"),
)
