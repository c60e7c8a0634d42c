"""Notices to people: an in-portal inbox and an e-mail outbox drained by a job."""

from __future__ import annotations

import io
import logging
import time
from dataclasses import dataclass
from datetime import timedelta

from django.core.mail import EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.utils import timezone

from portal.models import Notification

logger = logging.getLogger(__name__)
MAX_ATTEMPTS = 6
# Above this many e-mails after one commit, one outbox drain is queued instead of one task each.
DISPATCH_ONE_BY_ONE = 50


def notify(*, recipient, subject: str, body: str, link: str = "", dedup_key: str | None = None,
           pix_payload: str = "") -> Notification | None:
    """Record a notice (inbox + pending e-mail) and send it after the commit.

    With ``dedup_key`` the same notice is recorded once, however often this is called.
    When the broker is down the e-mail stays pending and the outbox job sends it later.
    """
    if dedup_key and Notification.objects.filter(dedup_key=dedup_key).exists():
        return None
    try:
        with transaction.atomic():
            note = Notification.objects.create(
                recipient=recipient,
                subject=subject[:200],
                body=body,
                link=link,
                pix_payload=pix_payload,
                dedup_key=dedup_key,
                email_status=Notification.Status.PENDING if recipient.email else Notification.Status.SKIPPED,
            )
    except IntegrityError:
        return None
    if note.email_status == Notification.Status.PENDING:
        transaction.on_commit(lambda: _dispatch(note.pk))
    return note


def inbox(user):
    """The person's notices, unread first and then the newest (the inbox of the portal and of the API)."""
    from django.db.models import Case, IntegerField, Value, When

    return (Notification.objects.filter(recipient=user)
            .annotate(unread=Case(When(read_at__isnull=True, then=Value(1)), default=Value(0),
                                  output_field=IntegerField()))
            .order_by("-unread", "-created_at", "-id"))


def mark_read(note: Notification) -> Notification:
    """Mark the notice read (once: the first reading's time stays). A person's own inbox, not an
    act of the proceedings, so it is not audited (a formal notice has its own record)."""
    if note.read_at is None:
        Notification.objects.filter(pk=note.pk, read_at__isnull=True).update(read_at=timezone.now())
        note.refresh_from_db(fields=["read_at"])
    return note


def _dispatch(notification_id: int) -> None:
    from portal.tasks import send_notification_email

    try:
        send_notification_email.delay(notification_id)
    except Exception:  # broker unreachable: the outbox job will send it
        logger.warning("Fila indisponível; notificação %s fica no outbox.", notification_id)


@dataclass(frozen=True)
class Notice:
    """One notice of a batch (see ``notify_many``); ``dedup_key`` is required there."""

    recipient_id: int
    subject: str
    body: str
    dedup_key: str
    has_email: bool
    link: str = ""


def notify_many(notices: list[Notice]) -> int:
    """Record many notices at once (bulk insert), each at most once by its ``dedup_key``.

    Call it inside the transaction of the change: the rows commit with it, and the e-mails
    are dispatched after the commit (one task each for a few, one outbox drain for many).
    Returns how many notices were new.
    """
    if not notices:
        return 0
    by_key = {n.dedup_key: n for n in notices}
    existing = set(
        Notification.objects.filter(dedup_key__in=list(by_key)).values_list("dedup_key", flat=True)
    )
    fresh = [n for key, n in by_key.items() if key not in existing]
    if not fresh:
        return 0
    now = timezone.now()
    Notification.objects.bulk_create(
        [
            Notification(
                recipient_id=n.recipient_id,
                subject=n.subject[:200],
                body=n.body,
                link=n.link,
                dedup_key=n.dedup_key,
                created_at=now,
                next_attempt_at=now,
                email_status=Notification.Status.PENDING if n.has_email else Notification.Status.SKIPPED,
            )
            for n in fresh
        ],
        batch_size=1000,
        ignore_conflicts=True,
    )
    keys = [n.dedup_key for n in fresh if n.has_email]
    if keys:
        transaction.on_commit(lambda: dispatch_pending(keys))
    return len(fresh)


def dispatch_pending(dedup_keys: list[str] | None) -> None:
    """Queue the e-mails of notices recorded in bulk (after their commit); ``None`` = many."""
    if dedup_keys is None or len(dedup_keys) > DISPATCH_ONE_BY_ONE:
        from portal.tasks import drain_outbox as drain_task

        try:
            drain_task.delay()
        except Exception:  # broker unreachable: the periodic drain sends them
            logger.warning("Fila indisponível; as notificações ficam no outbox.")
        return
    ids = Notification.objects.filter(
        dedup_key__in=dedup_keys, email_status=Notification.Status.PENDING
    ).values_list("id", flat=True)
    for pk in ids:
        _dispatch(pk)


PIX_QR_CID = "pix-qr"


def _attach_qr(message: EmailMultiAlternatives, payload: str) -> None:
    """The Pix QR Code as an inline PNG (``cid:pix-qr``): mail clients show neither SVG nor
    data: images, and run no script, so the e-mail carries the picture and the code as text."""
    from email.mime.image import MIMEImage

    import qrcode

    buf = io.BytesIO()
    qrcode.make(payload, box_size=6, border=2).save(buf, format="PNG")
    image = MIMEImage(buf.getvalue(), "png")
    image.add_header("Content-ID", f"<{PIX_QR_CID}>")
    image.add_header("Content-Disposition", "inline", filename="pix-qr.png")
    message.mixed_subtype = "related"
    message.attach(image)


def send_email_now(notification_id: int) -> bool:
    """Send one pending notice; safe to call twice (the row is locked and re-checked)."""
    with transaction.atomic():
        note = (
            Notification.objects.select_for_update()
            .select_related("recipient")
            .filter(pk=notification_id, email_status=Notification.Status.PENDING)
            .first()
        )
        if note is None:
            return False
        from portal.site_url import site_url

        context = {"notification": note, "site_url": site_url()}
        message = EmailMultiAlternatives(
            subject=note.subject,
            body=render_to_string("portal/email/notification.txt", context),
            to=[note.recipient.email],
        )
        message.attach_alternative(render_to_string("portal/email/notification.html", context), "text/html")
        if note.pix_payload:
            _attach_qr(message, note.pix_payload)
        note.email_attempts += 1
        try:
            message.send()
        except Exception as exc:  # SMTP failure: retry with backoff
            note.email_error = str(exc)[:1000]
            if note.email_attempts >= MAX_ATTEMPTS:
                note.email_status = Notification.Status.FAILED
            note.next_attempt_at = timezone.now() + timedelta(minutes=2**note.email_attempts)
            note.save(update_fields=["email_attempts", "email_error", "email_status", "next_attempt_at"])
            return False
        note.email_status = Notification.Status.SENT
        note.email_sent_at = timezone.now()
        note.email_error = ""
        note.save(update_fields=["email_attempts", "email_status", "email_sent_at", "email_error"])
        return True


def drain_outbox(limit: int = 200, budget_seconds: float = 45.0) -> int:
    """Send pending e-mails whose time has come, in batches of ``limit`` while the time
    budget lasts (the job runs every minute). Returns how many were sent."""
    started = time.monotonic()
    sent = 0
    after = 0
    while True:
        ids = list(
            Notification.objects.filter(
                email_status=Notification.Status.PENDING, next_attempt_at__lte=timezone.now(), id__gt=after
            )
            .order_by("id")
            .values_list("id", flat=True)[:limit]
        )
        if not ids:
            return sent
        sent += sum(1 for pk in ids if send_email_now(pk))
        after = ids[-1]
        if time.monotonic() - started > budget_seconds:
            return sent
