"""Beat entries of the grant jobs (times in CELERY_TIMEZONE, the municipality's zone).

Each job judges dates by the pack's own time zone, so a beat a little early or late never
expires a document on its last valid day. Run one beat only (see README).
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

# A grant's life: overdue returns from leave of absence.
BEAT["leaves-flag-overdue"] = {"task": "licensing.leaves_flag_overdue", "schedule": 3600.0 * 6}

# Collective transport: deadlines (contract, start of service, intervention, term). Hourly: the
# sweep compares dates and is idempotent, so a missed run is caught up the next hour.
BEAT["transit-deadlines"] = {"task": "licensing.tasks_transit.transit_deadlines", "schedule": 3600.0}

# LGPD retention: files of refused, withdrawn or abandoned applications past the pack's period.
BEAT["licensing-purge-documents"] = {"task": "licensing.tasks.purge_expired_documents", "schedule": crontab(minute=45, hour=3)}

# A grant's life: yearly obligations (auxiliary re-registration, permission's yearly proof):
# reminders 30 days before and overdue flags, each once.
BEAT["yearly-obligations-check"] = {"task": "licensing.yearly_obligations_check", "schedule": crontab(minute=30, hour=6)}
