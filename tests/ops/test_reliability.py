"""Reliability: the outbox when the broker is down, SMTP retries with backoff, and a real
Celery worker on Redis (redelivery after SIGKILL) when REDIS_URL is set."""

from __future__ import annotations

import os
import signal
import smtplib
import subprocess
import sys
import time
import uuid
from datetime import date, timedelta
from pathlib import Path

import pytest
from django.core import mail
from django.core.mail.backends.base import BaseEmailBackend
from django.db import connection, transaction
from django.utils import timezone
from kombu.exceptions import OperationalError

from licensing.models import Authorization
from portal import notifications
from portal.models import JobRun, Notification
from portal.notifications import MAX_ATTEMPTS, drain_outbox, notify, send_email_now
from tests.factories import issue_authorization
from tests.ops.transactional import ensure_roles, restore_roles  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parents[2]


class FailingSMTPBackend(BaseEmailBackend):
    """An SMTP server that refuses every message."""

    def send_messages(self, email_messages):
        raise smtplib.SMTPServerDisconnected("servidor SMTP indisponível")


def _grant_with_notice():
    """A grant and its notice, in one transaction, as the grant service does."""
    with transaction.atomic():
        auth, _ = issue_authorization()
        note = notify(recipient=auth.holder, subject=f"{auth.act_name} nº {auth.number} emitida",
                      body="Sua outorga foi deferida.", dedup_key=f"grant-issued:{auth.pk}")
    return auth, note


@pytest.mark.django_db
def test_broker_unreachable_grant_commits_and_email_goes_after_it_returns(
    itagiba, monkeypatch, django_capture_on_commit_callbacks
):
    from portal import tasks

    def refuse(*args, **kwargs):
        raise OperationalError("Error 111 connecting to redis:6379. Connection refused.")

    monkeypatch.setattr(tasks.send_notification_email, "delay", refuse)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        auth, note = _grant_with_notice()
    assert callbacks  # the dispatch ran after the commit, and did not break the grant
    assert Authorization.objects.filter(pk=auth.pk, status="active").exists()
    note.refresh_from_db()
    assert note.email_status == Notification.Status.PENDING and mail.outbox == []

    monkeypatch.undo()  # the broker is back: the periodic drain sends what was kept
    assert tasks.drain_outbox() == 1
    note.refresh_from_db()
    assert note.email_status == Notification.Status.SENT and note.email_sent_at is not None
    assert len(mail.outbox) == 1 and mail.outbox[0].to == [auth.holder.email]
    assert "emitida" in mail.outbox[0].subject
    assert mail.outbox[0].alternatives and mail.outbox[0].alternatives[0][1] == "text/html"
    assert tasks.drain_outbox() == 0 and len(mail.outbox) == 1  # sent once
    assert list(JobRun.objects.filter(name="drain_outbox").order_by("id").values_list("changed", flat=True)) == [1, 0]


@pytest.mark.django_db
def test_many_notices_after_one_commit_queue_one_drain(itagiba, monkeypatch, django_capture_on_commit_callbacks):
    from portal import tasks

    drains = []
    monkeypatch.setattr(tasks.drain_outbox, "delay", lambda: drains.append(1))
    holder = issue_authorization()[0].holder
    notices = [
        notifications.Notice(recipient_id=holder.pk, subject=f"Aviso {i}", body="x", dedup_key=f"bulk:{i}",
                             has_email=True)
        for i in range(notifications.DISPATCH_ONE_BY_ONE + 1)
    ]
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        assert notifications.notify_many(notices) == len(notices)
    assert drains == [1] and mail.outbox == []
    with transaction.atomic():
        assert notifications.notify_many(notices) == 0  # each notice once
    assert drain_outbox() == len(notices)


@pytest.mark.django_db
def test_smtp_failure_retries_with_backoff_then_gives_up(itagiba, settings, monkeypatch):
    settings.EMAIL_BACKEND = "tests.ops.test_reliability.FailingSMTPBackend"
    monkeypatch.setattr(notifications, "_dispatch", lambda pk: None)  # leave it to the drain
    auth, note = _grant_with_notice()
    start = timezone.now()
    clock = [start]
    monkeypatch.setattr(timezone, "now", lambda: clock[0])

    delays = []
    for attempt in range(1, MAX_ATTEMPTS + 1):
        assert drain_outbox() == 0
        note.refresh_from_db()
        assert note.email_attempts == attempt and "SMTP" in note.email_error
        if attempt < MAX_ATTEMPTS:
            assert note.email_status == Notification.Status.PENDING
            delays.append(note.next_attempt_at - clock[0])
            # not due yet: a drain a minute early does not try again
            clock[0] = note.next_attempt_at - timedelta(seconds=1)
            assert drain_outbox() == 0
            note.refresh_from_db()
            assert note.email_attempts == attempt
            clock[0] = note.next_attempt_at
    assert delays == [timedelta(minutes=2 ** n) for n in range(1, MAX_ATTEMPTS)]  # 2, 4, 8, 16, 32 min
    assert note.email_status == Notification.Status.FAILED
    clock[0] += timedelta(days=1)
    assert drain_outbox() == 0  # a failed notice is not retried forever
    assert Notification.objects.get(pk=note.pk).email_attempts == MAX_ATTEMPTS


@pytest.mark.django_db
def test_smtp_recovers_on_a_later_attempt(itagiba, settings, monkeypatch):
    settings.EMAIL_BACKEND = "tests.ops.test_reliability.FailingSMTPBackend"
    monkeypatch.setattr(notifications, "_dispatch", lambda pk: None)
    _, note = _grant_with_notice()
    assert send_email_now(note.pk) is False
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    note.refresh_from_db()
    Notification.objects.filter(pk=note.pk).update(next_attempt_at=timezone.now())
    assert drain_outbox() == 1
    note.refresh_from_db()
    assert (note.email_status, note.email_attempts, note.email_error) == ("sent", 2, "")
    assert send_email_now(note.pk) is False and len(mail.outbox) == 1  # a second send is a no-op


# --- a real worker on Redis --------------------------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "")
needs_redis = pytest.mark.skipif(
    not REDIS_URL, reason="REDIS_URL não definido: teste com worker Celery real em Redis pulado (roda no CI)."
)


def _celery_bin() -> str:
    candidate = Path(sys.executable).with_name("celery")
    return str(candidate) if candidate.exists() else "celery"


@pytest.fixture
def worker(tmp_path, settings):
    """Start ``celery -A portal worker`` on a private queue; yields (queue, process)."""
    queue = f"ops-test-{uuid.uuid4().hex[:10]}"
    db = connection.settings_dict
    env = {
        **os.environ,
        "REDIS_URL": REDIS_URL,
        "PORTAL_TESTING": "1",
        "VAR_DIR": str(tmp_path),
        "TIME_ZONE": settings.TIME_ZONE,
    }
    if db["ENGINE"] == "portal.dbbackend" or db["ENGINE"].endswith("postgresql"):
        # the test database of this run, where transaction=True tests commit
        env["DATABASE_URL"] = (
            f"postgres://{db['USER'] or 'postgres'}{':' + db['PASSWORD'] if db['PASSWORD'] else ''}@"
            f"{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
        )
    log = open(tmp_path / "worker.log", "w")  # noqa: SIM115
    process = subprocess.Popen(
        [_celery_bin(), "-A", "portal", "worker", "-Q", queue, "--concurrency=1", "--pool=prefork",
         "--without-gossip", "--without-mingle", "--without-heartbeat", "--loglevel=info",
         f"--hostname={queue}@%h"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    from portal.celery import app

    app.conf.task_always_eager = False
    try:
        yield queue, process
    finally:
        app.conf.task_always_eager = True
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=5)
        log.close()
        try:
            with app.connection_for_write() as conn:
                conn.default_channel.queue_delete(queue)
        except Exception:  # noqa: S110 - best effort: an empty private queue left behind is harmless
            pass


def _wait(predicate, timeout: float, what: str, log: Path | None = None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    tail = log.read_text()[-3000:] if log and log.exists() else ""
    raise AssertionError(f"tempo esgotado esperando {what}\n{tail}")


@needs_redis
def test_real_worker_runs_a_job_and_redelivers_after_sigkill(worker, tmp_path):
    from django.core.cache import cache

    from portal.tasks import ping

    queue, process = worker
    log = tmp_path / "worker.log"
    quick = uuid.uuid4().hex
    ping.apply_async(args=[quick], queue=queue)
    _wait(lambda: cache.get(f"ping:{quick}:done") == 1, 30, "o worker executar a tarefa", log)

    slow = uuid.uuid4().hex
    ping.apply_async(args=[slow, 4.0], queue=queue)
    pid = _wait(lambda: cache.get(f"ping:{slow}:pid"), 15, "a tarefa começar", log)
    assert cache.get(f"ping:{slow}:done") is None
    os.kill(int(pid), signal.SIGKILL)  # the process running the task dies mid-task
    _wait(lambda: cache.get(f"ping:{slow}:done") == 1, 30, "a tarefa ser reentregue e concluída", log)
    time.sleep(1.0)
    assert cache.get(f"ping:{slow}:started") == 2  # delivered again after the kill
    assert cache.get(f"ping:{slow}:done") == 1  # and completed once
    assert process.poll() is None  # the worker itself survived and replaced its child


@pytest.fixture
def postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("o worker só enxerga o banco de teste no PostgreSQL (o SQLite de teste fica em memória)")


@needs_redis
@pytest.mark.django_db(transaction=True)
def test_real_worker_runs_the_expiry_job_on_postgresql(postgres_only, restore_roles, worker, tmp_path):  # noqa: F811
    from licensing.tasks import expire_grants
    from portal import regulation

    ensure_roles()
    queue, _ = worker
    regulation.load_pack("itagiba")
    today = regulation.current().today()
    auth, _ = issue_authorization(valid_from=date(today.year - 2, 1, 1))
    expire_grants.apply_async(queue=queue)
    _wait(lambda: Authorization.objects.get(pk=auth.pk).status == "expired", 40,
          "o worker expirar a autorização", tmp_path / "worker.log")
    run = _wait(lambda: JobRun.objects.filter(name="licensing.expire_grants", finished_at__isnull=False).first(),
                10, "o registro da execução")
    assert run.changed == 2  # the grant and its alvará
    assert Notification.objects.filter(recipient=auth.holder).count() == 1
