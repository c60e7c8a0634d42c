"""Security glue of the portal: what a login, a logout and a password change set off.

- a password change or reset (any path: the pages, the admin, ``changepassword``) revokes the
  person's API tokens and is recorded in the audit;
- logins (pages, admin, API token) are recorded in the audit.

Connected in PortalConfig.ready().
"""

from __future__ import annotations

import logging

from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_logged_in
from django.db.models.signals import post_save, pre_save

logger = logging.getLogger(__name__)


def _remember_password_change(sender, instance, raw=False, update_fields=None, **kwargs):
    instance._portal_password_changed = False
    if raw or instance.pk is None or (update_fields is not None and "password" not in update_fields):
        return
    old = sender.objects.filter(pk=instance.pk).values_list("password", flat=True).first()
    instance._portal_password_changed = old is not None and old != instance.password


def _after_password_change(sender, instance, created=False, raw=False, **kwargs):
    if raw or created or not getattr(instance, "_portal_password_changed", False):
        return
    instance._portal_password_changed = False
    from portal.audit import audit_log
    from portal.tokens import revoke_tokens

    revoked = revoke_tokens(instance, "senha alterada")
    audit_log(actor=instance, obj=instance, action="password_changed",
              reason="Senha alterada ou redefinida", data={"tokens_revoked": revoked})


def _record_login(sender, request, user, **kwargs):
    import time

    from portal.audit import audit_log
    from portal.client_ip import client_ip
    from portal.middleware import SESSION_STARTED_KEY

    session = getattr(request, "session", None)
    if session is not None and not getattr(request, "path", "").startswith("/api/"):
        session[SESSION_STARTED_KEY] = int(time.time())  # the absolute lifetime counts from here

    path = getattr(request, "path", "") if request is not None else ""
    channel = "api" if path.startswith("/api/") else ("admin" if "/login/" in path and "conta" not in path else "web")
    audit_log(actor=user, obj=user, action="login", reason="Entrada no portal",
              data={"channel": channel, "ip": client_ip(request) if request is not None else ""})


def connect() -> None:
    User = get_user_model()
    pre_save.connect(_remember_password_change, sender=User, dispatch_uid="portal_password_change_pre")
    post_save.connect(_after_password_change, sender=User, dispatch_uid="portal_password_change_post")
    user_logged_in.connect(_record_login, dispatch_uid="portal_record_login")
