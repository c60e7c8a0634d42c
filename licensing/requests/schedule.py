"""Beat entries of a grant's requests (plain data, no Django imports)."""

from portal.beat import daily_local

BEAT = {
    # Overdue returns from leave of absence.
    "leaves-flag-overdue": {"task": "licensing.leaves_flag_overdue", "schedule": 3600.0 * 6},
    # Yearly obligations (auxiliary re-registration, permission's yearly proof): reminders 30
    # days before and overdue flags, each once.
    "yearly-obligations-check": daily_local("licensing.yearly_obligations_check", 6, 30),
}
