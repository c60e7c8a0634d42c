"""Beat entries of the base (plain data; times in the municipality's zone, CELERY_TIMEZONE)."""

BEAT = {
    "drain-outbox": {"task": "portal.tasks.drain_outbox", "schedule": 60.0},
}
