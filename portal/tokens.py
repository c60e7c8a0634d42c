"""API tokens that expire and can be revoked (portal.models.ApiToken).

Issued by ``POST /api/v1/auth/token/``, for API_TOKEN_TTL_STAFF_HOURS (staff) or
API_TOKEN_TTL_APPLICANT_DAYS (others); revoked by ``DELETE /api/v1/auth/token/``, by logging
out, by a password change or reset, and from the person's access page.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

EXPIRED_MESSAGE = "Token expirado. Entre de novo para obter outro."
INVALID_MESSAGE = "Token inválido ou revogado. Entre de novo para obter outro."
# last_used_at is written at most this often per token (one UPDATE, not one per request).
LAST_USE_GRANULARITY = timedelta(minutes=5)


def digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def token_ttl(user) -> timedelta:
    from portal.roles import is_staff_member

    if user.is_staff or user.is_superuser or is_staff_member(user):
        return timedelta(hours=settings.API_TOKEN_TTL_STAFF_HOURS)
    return timedelta(days=settings.API_TOKEN_TTL_APPLICANT_DAYS)


def issue_token(user, *, user_agent: str = ""):
    """A new token for ``user``: returns (ApiToken, key); the key is not stored."""
    from portal.models import ApiToken

    key = secrets.token_hex(20)
    now = timezone.now()
    token = ApiToken.objects.create(
        user=user, key_digest=digest(key), prefix=key[:8], created_at=now,
        expires_at=now + token_ttl(user), user_agent=(user_agent or "")[:200],
    )
    return token, key


def active_tokens(user):
    from portal.models import ApiToken

    return ApiToken.objects.filter(user=user, revoked_at__isnull=True, expires_at__gt=timezone.now())


def revoke_tokens(user, reason: str) -> int:
    """Revoke every active token of ``user``, in every municipality (the account is one across
    the installation: a password changed on one host closes the API sessions of all); returns
    how many."""
    from portal.models import ApiToken

    return ApiToken.all_tenants.using(settings.ADMIN_DATABASE).filter(user=user, revoked_at__isnull=True, expires_at__gt=timezone.now()).update(
        revoked_at=timezone.now(), revoked_reason=reason[:40])


def revoke_token(token, reason: str) -> None:
    from portal.models import ApiToken

    ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(
        revoked_at=timezone.now(), revoked_reason=reason[:40]
    )


class ExpiringTokenAuthentication(TokenAuthentication):
    """``Authorization: Token <key>`` against ApiToken: 401 in Portuguese when expired or revoked."""

    def authenticate_credentials(self, key):
        from portal.models import ApiToken

        token = ApiToken.objects.select_related("user").filter(key_digest=digest(key)).first()
        if token is None or token.revoked_at is not None:
            raise exceptions.AuthenticationFailed(INVALID_MESSAGE)
        now = timezone.now()
        if token.expires_at <= now:
            raise exceptions.AuthenticationFailed(EXPIRED_MESSAGE)
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("Esta conta está desativada.")
        if token.last_used_at is None or now - token.last_used_at > LAST_USE_GRANULARITY:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
            token.last_used_at = now
        return token.user, token
