"""Celery settings: Redis when REDIS_URL is set, an embedded filesystem broker otherwise."""

from __future__ import annotations

import importlib
import os
from pathlib import Path

_var = Path(os.environ.get("VAR_DIR", Path(__file__).resolve().parent.parent.parent / "var"))
_redis = os.environ.get("REDIS_URL", "")

# Worker loss. Every task is killed at CELERY_TASK_TIME_LIMIT (the jobs work in chunks and the
# longest, a large city's expiry or a burst of PDFs, takes minutes), warned a minute before. With
# late acks a task whose worker dies is redelivered: its child dying is rejected at once
# (task_reject_on_worker_lost); the whole worker killed leaves the message unacknowledged, and
# Redis hands it to another worker after the visibility timeout — sized just above the time
# limit (a shorter one would deliver a running task twice), not the hour it used to be. A run
# left without an end after the limit is shown as interrupted on the jobs page (portal.jobs).
CELERY_TASK_TIME_LIMIT = int(os.environ.get("CELERY_TASK_TIME_LIMIT", "900"))
CELERY_TASK_SOFT_TIME_LIMIT = max(CELERY_TASK_TIME_LIMIT - 60, 1)
CELERY_VISIBILITY_TIMEOUT = max(int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "0") or 0),
                                CELERY_TASK_TIME_LIMIT + 120)

if _redis:
    CELERY_BROKER_URL = _redis
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_VISIBILITY_TIMEOUT}
else:
    _queue = _var / "celery-queue"
    (_queue / "processed").mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_queue),
        "data_folder_out": str(_queue),
        "processed_folder": str(_queue / "processed"),
        "control_folder": str(_queue / "control"),
        "store_processed": False,
    }
CELERY_TASK_ALWAYS_EAGER = os.environ.get("CELERY_TASK_ALWAYS_EAGER", "") == "1"
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = os.environ.get("TIME_ZONE", "America/Sao_Paulo")
CELERY_BEAT_SCHEDULE_FILENAME = str(_var / "celerybeat-schedule")
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Periodic jobs; each task is idempotent (safe to run twice).
# Each app declares its entries in <app>/schedule.py as BEAT (plain data, no Django imports).
CELERY_BEAT_SCHEDULE: dict = {}
for _app in ("portal", "fleet", "licensing", "enforcement", "tariffs"):
    try:
        _module = importlib.import_module(f"{_app}.schedule")
    except ModuleNotFoundError:
        continue
    CELERY_BEAT_SCHEDULE.update(_module.BEAT)
