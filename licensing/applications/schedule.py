"""Beat entry of applications (plain data, no Django imports)."""

from celery.schedules import crontab

# LGPD retention: files of refused, withdrawn or abandoned applications past the pack's period.
BEAT = {
    "licensing-purge-documents": {
        "task": "licensing.tasks.purge_expired_documents", "schedule": crontab(minute=45, hour=3),
    },
}
