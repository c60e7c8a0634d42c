"""Notices to people: an in-portal inbox and an e-mail outbox drained by a job."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.utils import timezone

from portal.models import Notification

logger = logging.getLogger(__name__)
MAX_ATTEMPTS = 6


def notify(*, recipient, subject: str, body: str, link: str = "", dedup_key: str | None = None) -> Notification | None:
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
                dedup_key=dedup_key,
                email_status=Notification.Status.PENDING if recipient.email else Notification.Status.SKIPPED,
            )
    except IntegrityError:
        return None
    if note.email_status == Notification.Status.PENDING:
        transaction.on_commit(lambda: _dispatch(note.pk))
    return note


def _dispatch(notification_id: int) -> None:
    from portal.tasks import send_notification_email

    try:
        send_notification_email.delay(notification_id)
    except Exception:  # broker unreachable: the outbox job will send it
        logger.warning("Fila indisponível; notificação %s fica no outbox.", notification_id)


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
        context = {"notification": note, "site_url": settings.SITE_URL}
        message = EmailMultiAlternatives(
            subject=note.subject,
            body=render_to_string("portal/email/notification.txt", context),
            to=[note.recipient.email],
        )
        message.attach_alternative(render_to_string("portal/email/notification.html", context), "text/html")
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


def drain_outbox(limit: int = 200) -> int:
    """Send pending e-mails whose time has come. Returns how many were sent."""
    ids = list(
        Notification.objects.filter(
            email_status=Notification.Status.PENDING, next_attempt_at__lte=timezone.now()
        )
        .order_by("id")
        .values_list("id", flat=True)[:limit]
    )
    return sum(1 for pk in ids if send_email_now(pk))
