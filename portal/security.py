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
    old = sender.objects.filter(pk=instance.pk).values_list("password", "last_login").first()
    instance._portal_password_changed = old is not None and old[0] != instance.password
    from django.contrib.auth.hashers import is_password_usable

    # an account created on the person's behalf gets its first password: claimed
    instance._portal_claimed = (instance._portal_password_changed and not is_password_usable(old[0])
                                and old[1] is None and instance.has_usable_password())


def _after_password_change(sender, instance, created=False, raw=False, **kwargs):
    if raw or created or not getattr(instance, "_portal_password_changed", False):
        return
    instance._portal_password_changed = False
    from portal.audit import audit_log
    from portal.tokens import revoke_tokens

    if getattr(instance, "_portal_claimed", False):
        from django.contrib.auth.models import Group

        from portal.roles import Role

        instance._portal_claimed = False
        instance.groups.add(Group.objects.get_or_create(name=Role.APPLICANT)[0])
        audit_log(actor=instance, obj=instance, action="account_claimed", to_state="active",
                  reason="Conta criada em nome da pessoa concluída pelo link enviado ao e-mail cadastrado")
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


def _record_role_change(sender, instance, action, reverse, model, pk_set, **kwargs):
    """Role grants and removals (User.groups, from either side) in the audit, with the actor of
    the request when there is one."""
    if action not in ("post_add", "post_remove", "pre_clear") or (action != "pre_clear" and not pk_set):
        return
    from django.contrib.auth.models import Group

    from portal.audit import audit_log
    from portal.second_factor import current_actor

    User = get_user_model()
    if action == "pre_clear":
        if reverse:
            pairs = [(u, instance) for u in instance.user_set.all()]
        else:
            pairs = [(instance, g) for g in instance.groups.all()]
    elif reverse:  # group.user_set.add(users)
        pairs = [(u, instance) for u in User.objects.filter(pk__in=pk_set)]
    else:
        pairs = [(instance, g) for g in Group.objects.filter(pk__in=pk_set)]
    actor = current_actor.get()
    name = "role_granted" if action == "post_add" else "role_revoked"
    for user, group in pairs:
        if name == "role_granted":
            audit_log(actor=actor, obj=user, action="role_granted", to_state=group.name,
                      reason="Perfil concedido", data={"role": group.name})
        else:
            audit_log(actor=actor, obj=user, action="role_revoked", from_state=group.name,
                      reason="Perfil retirado", data={"role": group.name})


def connect() -> None:
    from django.db.models.signals import m2m_changed

    User = get_user_model()
    m2m_changed.connect(_record_role_change, sender=User.groups.through, dispatch_uid="portal_role_change")
    pre_save.connect(_remember_password_change, sender=User, dispatch_uid="portal_password_change_pre")
    post_save.connect(_after_password_change, sender=User, dispatch_uid="portal_password_change_post")
    user_logged_in.connect(_record_login, dispatch_uid="portal_record_login")
