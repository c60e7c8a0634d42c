"""The protocol every kind of request about a grant follows, and what the kinds share.

A kind is one module of this package holding one ``Kind``: whether the pack offers it
(``offered``), why the grant's state refuses it today whatever the data (``refusal``), the
check of its data at filing and again at decision (``clean``, returning the clean data and
the legal basis) and its effects once granted (``apply``). ``licensing.requests.services``
files and decides every kind through the registry, never by name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from licensing.grants.models import (
    Alvara,
    AlvaraStatus,
    Authorization,
)
from licensing.grants.services import alvara_issue
from licensing.requests.models import (
    AuxiliaryDriver,
    AuxiliaryStatus,
    LifecycleRequest,
    RequestKind,
    RequestStatus,
    YearlyNotice,
)
from licensing.requests.rules import missing_documents
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import RuleViolation, RuleViolations
from portal.notifications import notify
from portal.roles import Role, staff_users
from portal.validators import (
    only_digits,
    validate_cpf,
)


def _always(pack, modality: str) -> bool:
    return True


def _no_refusal(pack, auth: Authorization, state: dict, today: date) -> Exception | None:
    return None


def _plain_form(form_class, data, *, auth: Authorization, user):
    return form_class(data)


@dataclass(frozen=True)
class Kind:
    """One kind of request. ``state`` (for ``refusal``) is what ``services._filing_state``
    reads once for all kinds: filed kinds, filed auxiliary additions, auxiliaries being
    re-registered and the active auxiliaries of the grant."""

    code: str
    form: type
    clean: Callable[..., tuple[dict, str]]  # (pack, auth, data, on, exclude_pk)
    apply: Callable[..., dict]  # (*, actor, req, auth, pack, reason)
    offered: Callable[[Any, str], bool] = _always  # (pack, modality)
    refusal: Callable[..., Exception | None] = _no_refusal  # (pack, auth, state, today)
    make_form: Callable[..., Any] = _plain_form  # (form_class, data, *, auth, user)
    after_filing: Callable[..., None] | None = None  # (*, actor, req, auth, clean, basis)
    multiple_open: bool = False  # more than one of this kind may be in analysis at once
    yearly: bool = False  # a yearly obligation: filed after its due date is recorded late
    inspected: bool = False  # a vistoria is recorded before the grant
    recheck_on_decision: bool = True  # ``clean`` runs again at the decision
    keep_filed_data: bool = False  # the recheck does not overwrite the filed data
    amends: bool = False  # granting it issues an act of amendment: the clerk confirms it first
    labels: dict[str, str] = field(default_factory=dict)  # its data and effects, in Portuguese
    action_labels: dict[str, str] = field(default_factory=dict)  # its own audit actions


KINDS: dict[str, Kind] = {}


def register(kind: Kind) -> Kind:
    if kind.code in KINDS:
        raise ValueError(f"Request kind registered twice: {kind.code}")
    KINDS[kind.code] = kind
    return kind


def active_auxiliaries(auth: Authorization):
    return AuxiliaryDriver.objects.filter(authorization=auth, status=AuxiliaryStatus.ACTIVE).select_related("person")


def no_auxiliary(what: str) -> RuleViolation:
    return RuleViolation("auxiliary_none", f"Esta autorização não tem condutor auxiliar ativo: não há quem {what}.",
                         field="kind", conflict=True)


def read_text(data: dict, field: str, label: str, *, required: bool = True, max_length: int = 500) -> str:
    value = str(data.get(field) or "").strip()
    if required and not value:
        raise ValidationError({field: [f"Informe {label}."]})
    if len(value) > max_length:
        raise ValidationError({field: [f"{label.capitalize()}: no máximo {max_length} caracteres."]})
    return value


def read_date(data: dict, field: str, label: str, *, required: bool = True) -> date | None:
    raw = data.get(field)
    if raw in (None, ""):
        if required:
            raise ValidationError({field: [f"Informe {label} (AAAA-MM-DD)."]})
        return None
    if isinstance(raw, date):
        return raw
    try:
        return date.fromisoformat(str(raw).strip())
    except ValueError:
        raise ValidationError({field: [f"{label.capitalize()} inválida: use o formato AAAA-MM-DD."]}) from None


def read_int(data: dict, field: str, label: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    raw = data.get(field)
    try:
        value = int(str(raw).strip())
    except (TypeError, ValueError):
        raise ValidationError({field: [f"Informe {label} em número inteiro."]}) from None
    if minimum is not None and value < minimum:
        raise ValidationError({field: [f"{label.capitalize()}: no mínimo {minimum}."]})
    if maximum is not None and value > maximum:
        raise ValidationError({field: [f"{label.capitalize()}: no máximo {maximum}."]})
    return value


def read_bool(data: dict, field: str) -> bool:
    raw = data.get(field)
    if isinstance(raw, bool):
        return raw
    return str(raw).strip().lower() in {"1", "true", "on", "sim", "yes"}


def read_choice(data: dict, field: str, label: str, choices: dict) -> str:
    value = str(data.get(field) or "").strip()
    if value not in choices:
        options = "; ".join(f"{k} ({v if isinstance(v, str) else v[0]})" for k, v in choices.items())
        raise ValidationError({field: [f"Escolha {label}: {options}."]})
    return value


def read_cpf(data: dict, field: str = "cpf") -> str:
    digits = only_digits(str(data.get(field) or ""))
    try:
        validate_cpf(digits)
    except ValidationError as exc:
        raise ValidationError({field: exc.messages}) from None
    return digits


def user_by_cpf(cpf: str, field: str):
    user = get_user_model().objects.filter(cpf=cpf).first()
    if user is None:
        raise ValidationError({field: ["CPF sem cadastro no portal: a pessoa precisa criar a conta antes do pedido."]})
    return user


def raise_all(violations: list[RuleViolation]) -> None:
    if len(violations) == 1:
        raise violations[0]
    if violations:
        raise RuleViolations(violations)


def clerks():
    """The clerks of the municipality in scope."""
    return staff_users(Role.CLERK)


def notify_clerks(*, subject: str, body: str, link: str, dedup: str) -> None:
    for clerk in clerks():
        notify(recipient=clerk, subject=subject, body=body, link=link, dedup_key=f"{dedup}:{clerk.pk}")


def request_link(req: LifecycleRequest) -> str:
    return reverse("lifecycle-request-detail", kwargs={"pk": req.pk})


def alvara_scope(pack) -> str:
    return pack.act("alvara").get("scope", "none")


def vehicle_alvara_reissue(*, actor, auth: Authorization, pack, reason: str) -> Alvara | None:
    """Per-vehicle alvará (it names the drivers): supersede the current one with a new one."""
    if alvara_scope(pack) != "vehicle":
        return None
    current = auth.alvaras.filter(status=AlvaraStatus.ACTIVE, is_auxiliary=False).order_by("-issued_at", "-id").first()
    if current is None:
        return None
    new = alvara_issue(actor=actor, authorization=auth, person=auth.holder, supersedes=current)
    audit_log(actor=actor, obj=new, action=AuditAction.ALVARA_REISSUED, reason=reason,
              data={"supersedes": current.number, "number": new.number})
    return new


def auxiliary_for(auth: Authorization, data: dict) -> AuxiliaryDriver:
    aux_id = data.get("auxiliary")
    qs = AuxiliaryDriver.objects.filter(authorization=auth, status=AuxiliaryStatus.ACTIVE).select_related("person")
    aux = None
    if aux_id not in (None, ""):
        try:
            aux = qs.filter(pk=int(aux_id)).first()
        except (TypeError, ValueError):
            aux = None
    elif data.get("cpf"):
        aux = qs.filter(person__cpf=only_digits(str(data["cpf"]))).first()
    if aux is None:
        raise ValidationError({"auxiliary": ["Escolha um condutor auxiliar ativo desta autorização."]})
    return aux


def documents_presented(pack, auth, data: dict, applies_to: str, kind: str = "renewal") -> list[str]:
    """The pack's checklist for the person (``kind``: the documents of a renewal, or of a new
    application for a driver included after the grant): every item must be presented."""
    raw = data.get("documents") or []
    if isinstance(raw, str):
        raw = [c for c in raw.replace(";", ",").split(",") if c.strip()]
    if not isinstance(raw, (list, tuple)):
        raise ValidationError({"documents": ["Informe a lista de documentos apresentados (códigos da lista do pedido)."]})
    required = pack.documents(auth.modality, kind, applies_to=applies_to)
    missing = missing_documents(required=required, presented=raw)
    if missing:
        labels = "; ".join(f"{d['label']} ({d.get('legal_basis', '')})" for d in missing)
        raise ValidationError({"documents": [f"Apresente os documentos exigidos: {labels}."]})
    return [d["code"] for d in required]


def auxiliary_registered_on(aux: AuxiliaryDriver) -> date:
    return aux.registered_on or aux.added_on


def compliance_proven_years(auth, exclude_pk: int | None) -> set[int]:
    qs = LifecycleRequest.objects.filter(authorization=auth, kind=RequestKind.COMPLIANCE_PROOF,
                                         status__in=[RequestStatus.FILED, RequestStatus.APPROVED])
    if exclude_pk:
        qs = qs.exclude(pk=exclude_pk)
    return {int(d.get("year") or 0) for d in qs.values_list("data", flat=True)}


def resolve_notices(**filters) -> int:
    return YearlyNotice.objects.filter(resolved_at__isnull=True, **filters).update(resolved_at=timezone.now())
