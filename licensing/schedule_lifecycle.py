"""Beat entries of a grant's life (plain data; the integrator merges them into
licensing/schedule.py, which settings read)."""

BEAT = {
    "leaves-flag-overdue": {"task": "licensing.leaves_flag_overdue", "schedule": 3600.0 * 6},
}
