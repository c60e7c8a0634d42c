"""Beat entries of collective transport (plain data; seconds). settings/celery.py reads only
<app>/schedule.py: the integrator merges this BEAT into licensing/schedule.py."""

BEAT = {
    # hourly: the sweep is idempotent and compares dates, so a missed run is caught up next hour
    "transit-deadlines": {"task": "licensing.tasks_transit.transit_deadlines", "schedule": 3600.0},
}
