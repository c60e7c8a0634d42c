"""Beat entries of enforcement (plain data): deadlines close and suspensions end.

Hourly, so that a window closed at midnight (municipality time) is advanced early in the
morning; each job is idempotent, running it again changes nothing more.
"""

BEAT = {
    "enforcement-close-defense-windows": {"task": "enforcement.tasks.close_defense_windows", "schedule": 3600.0},
    "enforcement-close-appeal-windows": {"task": "enforcement.tasks.close_appeal_windows", "schedule": 3600.0},
    "enforcement-lift-ended-suspensions": {"task": "enforcement.tasks.lift_ended_suspensions", "schedule": 3600.0},
}
