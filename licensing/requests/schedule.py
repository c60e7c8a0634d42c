"""Beat entries of a grant's requests (plain data, no Django imports)."""

from celery.schedules import crontab

BEAT = {
    # Overdue returns from leave of absence.
    "leaves-flag-overdue": {"task": "licensing.leaves_flag_overdue", "schedule": 3600.0 * 6},
    # Yearly obligations (auxiliary re-registration, permission's yearly proof): reminders 30
    # days before and overdue flags, each once.
    "yearly-obligations-check": {"task": "licensing.yearly_obligations_check", "schedule": crontab(minute=30, hour=6)},
}
