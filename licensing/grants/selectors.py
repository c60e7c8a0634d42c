"""Reads of grants and alvarás, and who may see them."""

from __future__ import annotations

from datetime import date

from django.db.models import Q, QuerySet
from django.http import Http404

from licensing.grants.models import CURRENT_STATUSES, Alvara, Authorization, GrantBar
from portal.roles import Role, has_role
from portal.validators import normalize_plate, only_digits


def current_authorization_for_plate(plate: str) -> Authorization | None:
    return (
        Authorization.objects.select_related("holder", "vehicle")
        .filter(vehicle__plate=normalize_plate(plate), status__in=CURRENT_STATUSES)
        .first()
    )


def latest_authorization_for_plate(plate: str) -> Authorization | None:
    return (
        Authorization.objects.select_related("holder", "vehicle")
        .filter(vehicle__plate=normalize_plate(plate))
        .order_by("-issued_at", "-id")
        .first()
    )


def current_alvaras(authorization: Authorization):
    return authorization.alvaras.filter(status__in=["active", "suspended", "retained"]).select_related("person")


def active_bar(cpf: str, on: date) -> GrantBar | None:
    digits = only_digits(cpf)
    if not digits:
        return None
    return (
        GrantBar.objects.filter(cpf=digits, lifted_on__isnull=True)
        .filter(Q(until__isnull=True) | Q(until__gte=on))
        .order_by("-until")
        .first()
    )


def count_current_grants(modality: str) -> int:
    return Authorization.objects.filter(modality=modality, status__in=CURRENT_STATUSES).count()


def find_document_by_code(code: str):
    """An issued authorization or alvará by its verification code (None if unknown)."""
    auth = Authorization.objects.select_related("holder", "vehicle").filter(verification_code=code).first()
    if auth:
        return auth
    return Alvara.objects.select_related("authorization", "person", "vehicle", "authorization__vehicle").filter(
        verification_code=code
    ).first()


def can_see_grant(user, authorization) -> bool:
    """The grant act: the holder and staff only (an auxiliary driver sees their own alvará)."""
    from portal.roles import STAFF_ROLES, has_role

    if not getattr(user, "is_authenticated", False):
        return False
    return has_role(user, *STAFF_ROLES) or authorization.holder_id == user.pk


def can_see_alvara(user, alvara) -> bool:
    """An alvará: staff, the holder of its grant, and the driver it names."""
    return can_see_grant(user, alvara.authorization) or (
        getattr(user, "is_authenticated", False) and alvara.person_id == user.pk)


DESK_ROLES = (Role.CLERK, Role.ADMIN)
INSPECTION_ROLES = (Role.CLERK, Role.ADMIN, Role.AGENT)


def is_desk(user) -> bool:
    return has_role(user, *DESK_ROLES)


def authorizations_visible_to(user) -> QuerySet[Authorization]:
    qs = Authorization.objects.select_related("holder", "vehicle")
    if is_desk(user):
        return qs
    return qs.filter(holder=user)


def authorization_for(user, pk: int) -> Authorization:
    """The grant if the user may act on it (holder or desk); 404 otherwise."""
    auth = authorizations_visible_to(user).filter(pk=pk).first()
    if auth is None:
        raise Http404("Autorização não encontrada.")
    return auth


def holder_authorizations(user) -> list[Authorization]:
    """The user's grants, current first."""
    qs = Authorization.objects.filter(holder=user).select_related("vehicle")
    return sorted(qs, key=lambda a: (a.status not in CURRENT_STATUSES, -a.pk))
