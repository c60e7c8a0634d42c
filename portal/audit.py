"""Audit log: one append-only entry per state change, decision or access to personal data."""

from __future__ import annotations

from typing import Any

from django.db import models

from portal.audit_actions import AuditAction
from portal.models import AuditEntry
from portal.validators import mask_cpf, only_digits

_PERSONAL_KEYS = {"cpf", "driver_cpf", "cnh", "cnh_number", "rg", "email", "phone", "renavam"}


def mask_personal(data: Any) -> Any:
    """Mask personal data (CPF, CNH, contacts) before it is written to the log."""
    if isinstance(data, dict):
        out = {}
        for key, value in data.items():
            if key in _PERSONAL_KEYS and isinstance(value, str) and value:
                digits = only_digits(value)
                out[key] = mask_cpf(value) if len(digits) == 11 and "cpf" in key else "***" + value[-2:]
            else:
                out[key] = mask_personal(value)
        return out
    if isinstance(data, list):
        return [mask_personal(v) for v in data]
    return data


def object_label(obj: models.Model) -> tuple[str, str, str]:
    return obj._meta.label_lower, str(obj.pk), str(obj)[:300]


def audit_log(
    *,
    actor,
    obj: models.Model,
    action: AuditAction | str,
    from_state: str = "",
    to_state: str = "",
    reason: str = "",
    data: dict | None = None,
) -> AuditEntry:
    """Write an audit entry in the current transaction.

    ``action`` is an ``AuditAction``; a plain string is still accepted while other branches
    write strings, but when running the tests it must be a member (a new action is declared).
    """
    action = _checked(action)
    object_type, object_id, object_repr = object_label(obj)
    is_user = actor is not None and getattr(actor, "is_authenticated", False)
    return AuditEntry.objects.create(
        actor=actor if is_user else None,
        actor_label=(actor.username if is_user else (str(actor) if actor else "sistema"))[:200],
        object_type=object_type,
        object_id=object_id,
        object_repr=object_repr,
        action=action,
        from_state=str(from_state or ""),
        to_state=str(to_state or ""),
        reason=reason or "",
        data=mask_personal(data or {}),
    )


def _checked(action: AuditAction | str) -> str:
    value = str(getattr(action, "value", action))
    if value not in _KNOWN:
        from django.conf import settings

        if getattr(settings, "TESTING", False):
            raise ValueError(f"ação de auditoria não declarada em portal.audit_actions.AuditAction: {value!r}")
    return value


_KNOWN = frozenset(AuditAction.values)


def history_for(obj: models.Model):
    object_type, object_id, _ = object_label(obj)
    return AuditEntry.objects.filter(object_type=object_type, object_id=object_id).select_related("actor").order_by("at", "id")
