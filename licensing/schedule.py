"""Beat entries of licensing, gathered from the rooms (times in CELERY_TIMEZONE, the
municipality's zone). Plain data, no Django imports. Run one beat only (see README).
"""

from licensing.applications.schedule import BEAT as _applications
from licensing.grants.schedule import BEAT as _grants
from licensing.requests.schedule import BEAT as _requests

BEAT = {**_grants, **_requests, **_applications}

# Collective transport: deadlines (contract, start of service, intervention, term). Hourly: the
# sweep compares dates and is idempotent, so a missed run is caught up the next hour.
BEAT["transit-deadlines"] = {"task": "licensing.tasks_transit.transit_deadlines", "schedule": 3600.0}
