"""Pack access and the helpers every service of the transit room shares."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from licensing.transit import rules as rules
from licensing.transit.citations import law_basis as _law_basis
from licensing.transit.models import (
    CONCESSION_TRANSITIONS,
    Concession,
    ConcessionStatus,
)
from licensing.transit.selectors import forget_fares_state
from portal import regulation
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import InvalidTransition, RuleViolation

Segment = rules.Segment



# --- pack access ---------------------------------------------------------------------------
def transit_pack():
    """The active pack, which must have collective transport."""
    pack = regulation.current()
    if not pack.collective_transport:
        raise RuleViolation("transit_not_enabled", "O regulamento ativo não trata de transporte coletivo.",
                            field="non_field_errors", conflict=True)
    return pack


def param(pack, key: str) -> tuple:
    """(value, legal basis) of a collective-transport parameter."""
    found = pack.collective_param(key)
    if found is None:
        raise RuleViolation("transit_param_missing", f"Parâmetro {key} ausente do regulamento.", conflict=True)
    return found.value, found.legal_basis


def categories(pack) -> list[dict]:
    return list((pack.collective_transport or {}).get("categories", []))


def category_entry(pack, code: str) -> dict:
    entry = next((c for c in categories(pack) if c.get("code") == code), None)
    if entry is None:
        raise RuleViolation("bus_category_unknown", "Categoria de veículo não prevista no regulamento.",
                            _law_basis(pack, "category"), field="category")
    return entry


def pack_list(pack, name: str) -> list[dict]:
    return list((pack.collective_transport or {}).get(name, []))




def _user(actor):
    return actor if getattr(actor, "is_authenticated", False) else None


# --- concession status ---------------------------------------------------------------------
def _concession_to(*, actor, concession: Concession, to: str, reason: str, data: dict | None = None) -> Concession:
    if to not in CONCESSION_TRANSITIONS.get(concession.status, set()):
        raise InvalidTransition(
            f"A concessão nº {concession.number} está {concession.get_status_display()} e não pode passar a "
            f"{ConcessionStatus(to).label}."
        )
    before = concession.status
    forget_fares_state()  # the public lines of the fare calculator may change
    transaction.on_commit(forget_fares_state)
    concession.status = to
    concession.status_reason = reason
    concession.status_changed_at = timezone.now()
    concession.save(update_fields=["status", "status_reason", "status_changed_at"])
    audit_log(actor=actor, obj=concession, action=AuditAction.CONCESSION_STATUS, from_state=before, to_state=to,
              reason=reason, data=data or {})
    return concession


def _locked(model, obj):
    return model.objects.select_for_update().get(pk=obj.pk)
