"""Celery finds each app's ``tasks`` module only: this hub imports every room's tasks by name.
Task names are pinned with ``name=`` in the rooms (queued messages and beat entries carry them)."""

from __future__ import annotations

from licensing.applications.tasks import freeze_receipt, purge_expired_documents
from licensing.fees.tasks import freeze_dam
from licensing.grants.tasks import (
    check_quotas,
    check_vehicle_ages,
    expire_grants,
    freeze_grant_document,
    send_renewal_reminders,
)
from licensing.requests.tasks import leaves_flag_overdue_task, yearly_obligations_check_task
from licensing.transit.tasks import freeze_contract, transit_deadlines

__all__ = [
    "check_quotas",
    "check_vehicle_ages",
    "expire_grants",
    "freeze_contract",
    "freeze_dam",
    "freeze_grant_document",
    "freeze_receipt",
    "leaves_flag_overdue_task",
    "purge_expired_documents",
    "send_renewal_reminders",
    "transit_deadlines",
    "yearly_obligations_check_task",
]
