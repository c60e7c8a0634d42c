"""Services of the base: accounts."""

from __future__ import annotations

import re
from datetime import date

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.roles import Role
from portal.validators import normalize_cpf, validate_cpf

CPF_CHARACTERS = re.compile(r"\s*[\d.\-\s]+\s*")


def _never_used(user) -> bool:
    """An account the portal created on someone's behalf: no password, no e-mail, never signed in."""
    return not user.has_usable_password() and user.last_login is None and not user.email


@transaction.atomic
def applicant_sign_up(
    *, cpf: str, name: str, email: str, password: str, birth_date: date | None = None, phone: str = ""
):
    """Create a requerente account. The username is the CPF (digits)."""
    User = get_user_model()
    errors: dict[str, list[str]] = {}
    digits = normalize_cpf(cpf)
    try:
        if CPF_CHARACTERS.fullmatch(cpf or "") is None:  # digits, with or without the usual punctuation
            raise ValidationError("CPF inválido: use só números, com ou sem pontos e hífen.")
        validate_cpf(digits)
    except ValidationError as exc:
        errors["cpf"] = exc.messages
    existing = User.objects.select_for_update().filter(cpf=digits).first() if "cpf" not in errors else None
    claim = existing is not None and _never_used(existing)
    if existing is not None and not claim:
        errors["cpf"] = ["Já existe uma conta com este CPF. Entre com ele ou recupere a senha."]
    if email and User.objects.filter(email__iexact=email).exclude(pk=existing.pk if claim else None).exists():
        errors["email"] = ["Já existe uma conta com este e-mail."]
    if not name.strip():
        errors["name"] = ["Informe o nome completo."]
    candidate = User(username=digits, name=name, email=email)
    try:
        validate_password(password, candidate)
    except ValidationError as exc:
        errors["password"] = exc.messages
    if birth_date and birth_date >= date.today():  # noqa: DTZ011
        errors["birth_date"] = ["A data de nascimento deve estar no passado."]
    if errors:
        raise ValidationError(errors)
    if claim:
        # A person the portal registered for someone else's grant (an auxiliary driver named in an
        # application) has an account with no password, never used: signing up completes it.
        existing.email, existing.name, existing.birth_date, existing.phone = email, name.strip(), birth_date, phone or ""
        existing.set_password(password)
        existing.save()
        existing.groups.add(Group.objects.get_or_create(name=Role.APPLICANT)[0])
        audit_log(actor=existing, obj=existing, action=AuditAction.ACCOUNT_CLAIMED, to_state="active",
                  reason="Cadastro concluído pela própria pessoa (conta criada como condutor auxiliar)")
        return existing
    try:
        with transaction.atomic():
            user = User.objects.create_user(
                username=digits, email=email, password=password, name=name.strip(), cpf=digits,
                birth_date=birth_date, phone=phone or "",
            )
    except IntegrityError:  # the same CPF signed up at the same moment
        raise ValidationError(
            {"cpf": ["Já existe uma conta com este CPF. Entre com ele ou recupere a senha."]}
        ) from None
    user.groups.add(Group.objects.get_or_create(name=Role.APPLICANT)[0])
    audit_log(actor=user, obj=user, action=AuditAction.ACCOUNT_CREATED, to_state="active", reason="Cadastro de requerente")
    return user
