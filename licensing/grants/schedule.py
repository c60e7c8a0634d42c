"""Beat entries of the grant jobs (times in CELERY_TIMEZONE, the municipality's zone).

Each job judges dates by the pack's own time zone, so a beat a little early or late never
expires a document on its last valid day. Plain data, no Django imports.
"""

from celery.schedules import crontab

BEAT = {
    "licensing-expire-grants": {"task": "licensing.tasks.expire_grants", "schedule": crontab(minute=5, hour=0)},
    "licensing-renewal-reminders": {
        "task": "licensing.tasks.send_renewal_reminders", "schedule": crontab(minute=0, hour=7),
    },
    "licensing-vehicle-age": {"task": "licensing.tasks.check_vehicle_ages", "schedule": crontab(minute=15, hour=7)},
    "licensing-quota-check": {"task": "licensing.tasks.check_quotas", "schedule": crontab(minute=30, hour=2)},
}
