"""Account forms of the base: a password reset that answers the same for any e-mail."""

from __future__ import annotations

import logging
import threading

from django.contrib.auth.forms import PasswordResetForm

logger = logging.getLogger(__name__)


class BackgroundPasswordResetForm(PasswordResetForm):
    """The reset e-mail is looked up and sent by a background task (portal.tasks.
    send_password_reset): the page takes the same time whether or not the e-mail has an
    account, and the SMTP server's delay is never on the request."""

    def save(self, domain_override=None, use_https=False, request=None, **kwargs):
        email = self.cleaned_data["email"]
        domain = domain_override or (request.get_host() if request is not None else "")
        queue_reset_email(email, domain, bool(use_https or (request is not None and request.is_secure())))


def queue_reset_email(email: str, domain: str, use_https: bool) -> None:
    """The reset (or account-completion) link for ``email``, sent by the background task."""
    from portal.tasks import send_password_reset

    args = (email, domain, use_https)
    try:
        send_password_reset.delay(*args)
    except Exception:  # broker unreachable: still off the request, still the same answer
        logger.warning("Fila indisponível; e-mail de redefinição de senha enviado por uma thread.")
        import contextvars

        # a thread starts with no context: it takes the request's (its municipality in scope)
        threading.Thread(target=contextvars.copy_context().run, args=(_send_in_thread, *args), daemon=True).start()


class ClaimAwarePasswordResetForm(PasswordResetForm):
    """Django's reset e-mail, also for an account created on the person's behalf (no password,
    never used) whose e-mail is on record: the link is how such an account is claimed."""

    def get_users(self, email):
        from django.contrib.auth import get_user_model

        from portal.services import claimable

        User = get_user_model()
        email_field = User.get_email_field_name()
        for user in User._default_manager.filter(**{f"{email_field}__iexact": email, "is_active": True}):
            if user.has_usable_password() or claimable(user):
                yield user


def _send_in_thread(email: str, domain: str, use_https: bool) -> None:
    from django.db import connection

    try:
        send_reset_email(email, domain, use_https)
    finally:
        connection.close()


def send_reset_email(email: str, domain: str, use_https: bool) -> int:
    """Send the reset link to each active account of ``email`` with a usable password (Django's
    rules); returns how many were sent."""
    form = ClaimAwarePasswordResetForm(data={"email": email})
    if not form.is_valid():
        return 0
    users = list(form.get_users(email))
    if users:
        form.save(domain_override=domain, use_https=use_https,
                  subject_template_name="registration/password_reset_subject.txt",
                  email_template_name="registration/password_reset_email.html")
    return len(users)
