"""Beat entries of the grant jobs, at local times of each municipality (``portal.beat``).

Each job also judges dates by the pack's own time zone, so a run a little late never
expires a document on its last valid day. Plain data, no Django imports.
"""

from portal.beat import daily_local

BEAT = {
    "licensing-expire-grants": daily_local("licensing.tasks.expire_grants", 0, 5),
    "licensing-renewal-reminders": daily_local("licensing.tasks.send_renewal_reminders", 7, 0),
    "licensing-vehicle-age": daily_local("licensing.tasks.check_vehicle_ages", 7, 15),
    "licensing-quota-check": daily_local("licensing.tasks.check_quotas", 2, 30),
}
