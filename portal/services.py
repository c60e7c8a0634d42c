"""Services of the base: accounts."""

from __future__ import annotations

import re
from datetime import date

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.roles import Role
from portal.validators import driver_dates_errors, normalize_cpf, validate_cpf

CPF_CHARACTERS = re.compile(r"\s*[\d.\-\s]+\s*")

# The same words whether the CPF or the e-mail is taken, and no "já existe uma conta": the
# sign-up does not confirm who is registered (the owner is told by e-mail instead).
TAKEN_MESSAGE = (
    "Não foi possível concluir o cadastro com estes dados. Se você já tem conta, entre com o "
    "CPF ou recupere a senha; se não conseguir, procure o atendimento com um documento."
)


class AccountTaken(ValidationError):
    """A sign-up refused because the CPF or the e-mail has an account: ``owners`` are warned."""

    def __init__(self, errors, owners):
        super().__init__(errors)
        self.owners = owners


def sign_up(**kwargs):
    """applicant_sign_up, warning by e-mail the owner of a CPF or e-mail someone tried to sign
    up with (once a day), outside the refused transaction."""
    try:
        return applicant_sign_up(**kwargs)
    except AccountTaken as exc:
        warn_owners(exc.owners)
        raise ValidationError(exc.error_dict) from None


def _site_domain() -> str:
    from urllib.parse import urlsplit

    from portal.site_url import site_url

    return urlsplit(site_url()).netloc


def _site_https() -> bool:
    from portal.site_url import site_url

    return site_url().startswith("https://")


def warn_owners(owners) -> None:
    from django.utils import timezone

    from portal.notifications import notify

    today = timezone.localdate().isoformat()
    for owner in owners:
        if not owner.email:
            continue
        if claimable(owner):  # the link to complete the account goes to the e-mail on record
            from portal.auth_forms import queue_reset_email

            queue_reset_email(owner.email, _site_domain(), _site_https())
            continue
        notify(
            recipient=owner,
            subject="Tentativa de cadastro com os seus dados",
            body=("Alguém tentou criar uma conta no portal com o seu CPF ou e-mail. Se foi você, "
                  "entre com o CPF ou use “Esqueci a senha”. Se não foi, nada muda na sua conta; "
                  "em caso de dúvida, procure o atendimento."),
            dedup_key=f"signup-attempt:{owner.pk}:{today}",
        )


def claimable(user) -> bool:
    """An account the portal created on someone's behalf (an auxiliary driver named in an
    application): no password, never signed in. It is claimed only through a link sent to an
    e-mail on record ("Esqueci a senha", or the clerk's page at the counter, which records the
    e-mail after checking a document) — never by a sign-up that only knows the CPF."""
    return not user.has_usable_password() and user.last_login is None


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
    owners = []
    if existing is not None:
        errors["cpf"] = [TAKEN_MESSAGE]
        owners.append(existing)
    email_owner = User.objects.filter(email__iexact=email).order_by("pk").first() if email else None
    if email_owner is not None:
        errors.setdefault("cpf" if "cpf" in errors else "email", [TAKEN_MESSAGE])
        if email_owner not in owners:
            owners.append(email_owner)
    if not name.strip():
        errors["name"] = ["Informe o nome completo."]
    candidate = User(username=digits, name=name, email=email)
    try:
        validate_password(password, candidate)
    except ValidationError as exc:
        errors["password"] = exc.messages
    if birth_date:  # a requerente is a driver: no future date, not under the CNH age
        errors.update(driver_dates_errors(birth_date=birth_date, cnh_first_issued=None,
                                          today=timezone.localdate()))
    if owners:
        raise AccountTaken(errors, owners)
    if errors:
        raise ValidationError(errors)
    try:
        with transaction.atomic():
            user = User.objects.create_user(
                username=digits, email=email, password=password, name=name.strip(), cpf=digits,
                birth_date=birth_date, phone=phone or "",
            )
    except IntegrityError:  # the same CPF signed up at the same moment
        raise ValidationError({"cpf": [TAKEN_MESSAGE]}) from None
    user.groups.add(Group.objects.get_or_create(name=Role.APPLICANT)[0])
    audit_log(actor=user, obj=user, action=AuditAction.ACCOUNT_CREATED, to_state="active", reason="Cadastro de requerente")
    return user
