"""API v1 base: error format, role permissions, token login, public sign-up."""

from __future__ import annotations

from django.contrib.auth import authenticate
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.exceptions import NotFound, ParseError, Throttled
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

from portal.exceptions import RuleViolation
from portal.refusals import SERVICE_ERRORS, refusal_response
from portal.roles import Role, has_role
from portal.schema import ErrorSerializer
from portal.throttling import PortalScopedRateThrottle


def flatten_errors(detail, prefix: str = "") -> dict[str, list[str]]:
    """Nested serializer errors in the contract's flat shape: {"vehicle": {"plate": [..]}} →
    {"vehicle.plate": [..]}; items of a list numbered from 1 ({"grounds": {0: [..]}} →
    {"grounds.1": [..]})."""
    out: dict[str, list[str]] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            if isinstance(key, int):
                key = str(key + 1)
            name = key if key != "non_field_errors" or not prefix else ""
            out.update(flatten_errors(value, f"{prefix}.{name}".strip(".") if prefix else key))
    elif isinstance(detail, list) and detail and all(isinstance(d, (dict, list)) for d in detail):
        for i, value in enumerate(detail, start=1):
            if value:
                out.update(flatten_errors(value, f"{prefix}.{i}"))
    else:
        out[prefix or "non_field_errors"] = [str(d) for d in (detail if isinstance(detail, list) else [detail])]
    return out


def request_object(request):
    """The request body as a mapping; a JSON array, string or number is a 400 naming the problem."""
    from collections.abc import Mapping

    if not isinstance(request.data, Mapping):
        raise serializers.ValidationError(
            {"non_field_errors": ["O corpo da requisição deve ser um objeto JSON ({...})."]}
        )
    return request.data


def rule_response(violation: RuleViolation) -> Response:
    return refusal_response(violation)


NOT_FOUND = "Não encontrado."


def throttled_message(wait: float | None) -> str:
    if wait is None:
        return "Muitas requisições. Tente de novo mais tarde."
    seconds = max(1, round(wait))
    return f"Muitas requisições. Tente de novo em {seconds} segundo{'s' if seconds != 1 else ''}."


def exception_handler(exc, context):
    # One answer for every missing or hidden object: Django's get_object_or_404 names the model
    # ("No Application matches the given query.") and a hidden record must look like a missing one.
    if isinstance(exc, Http404 | NotFound):
        exc = NotFound(NOT_FOUND)
    elif isinstance(exc, Throttled):
        wait = exc.wait
        exc = Throttled(detail=throttled_message(wait))  # DRF's pt-BR text is garbled ("diponível")
        exc.wait = wait  # for the Retry-After header
    if isinstance(exc, SERVICE_ERRORS):  # a service's refusal: 400 invalid input, 409 conflict
        return refusal_response(exc)
    if isinstance(exc, DjangoPermissionDenied):
        return Response({"errors": {"detail": ["Sem permissão para esta ação."]}}, status=403)
    if isinstance(exc, ParseError):
        return Response(
            {"errors": {"non_field_errors": ["O corpo da requisição não é um JSON válido (UTF-8)."]}},
            status=status.HTTP_400_BAD_REQUEST,
        )
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    data = response.data
    if isinstance(exc, serializers.ValidationError):
        response.data = {"errors": flatten_errors(data)}
    elif isinstance(data, dict) and "detail" in data:
        response.data = {"errors": {"detail": [str(data["detail"])]}, "detail": str(data["detail"])}
    return response


def role_permission(*roles: str) -> type[permissions.BasePermission]:
    """A DRF permission class that admits only the given roles (403 for others)."""

    class HasRole(permissions.BasePermission):
        message = "Seu perfil não pode realizar esta ação."

        def has_permission(self, request, view):
            return bool(request.user and request.user.is_authenticated and has_role(request.user, *roles))

    HasRole.__name__ = "HasRole_" + "_".join(str(r) for r in roles)
    return HasRole


IsClerk = role_permission(Role.CLERK, Role.ADMIN)
IsAgent = role_permission(Role.AGENT)
IsJudge = role_permission(Role.JUDGE)
IsApplicant = role_permission(Role.APPLICANT)
IsStaff = role_permission(Role.CLERK, Role.AGENT, Role.JUDGE, Role.ADMIN)


class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField(label="usuário ou CPF", max_length=150)
    password = serializers.CharField(label="senha", max_length=256, trim_whitespace=False)
    otp = serializers.CharField(label="código do aplicativo autenticador", max_length=10, required=False,
                                allow_blank=True, allow_null=True,
                                help_text="Servidores com segundo fator obrigatório: o código de 6 dígitos.")


class TokenResponseSerializer(serializers.Serializer):
    token = serializers.CharField()
    expires_at = serializers.DateTimeField()


class FailedAttemptThrottle(PortalScopedRateThrottle):
    """The scope's rate counts only the attempts the view reports as failed (per client IP).

    "Throttled after repeated failures": a client that signs in correctly many times is
    never refused; one that keeps failing is, whatever usernames it tries (django-axes also
    locks a username after a few failures from the same address).
    """

    def throttle_success(self):
        return True

    def record_failure(self) -> None:
        if getattr(self, "key", None) is None:
            return
        self.history.insert(0, self.timer())
        self.cache.set(self.key, self.history, self.duration)


class TokenView(APIView):
    """POST /api/v1/auth/token/ — exchange username (or CPF) and password for a token that
    expires; DELETE revokes the token it is called with (204)."""

    authentication_classes: list = []
    permission_classes = [permissions.AllowAny]
    throttle_scope = "login"

    def get_authenticators(self):
        if getattr(self.request, "method", None) == "DELETE":
            from portal.tokens import ExpiringTokenAuthentication

            return [ExpiringTokenAuthentication()]
        return []

    def get_permissions(self):
        if getattr(self.request, "method", None) == "DELETE":
            return [permissions.IsAuthenticated()]
        return super().get_permissions()

    def get_throttles(self):
        self.failures = FailedAttemptThrottle()
        return [self.failures]

    @extend_schema(request=TokenRequestSerializer, responses={
        200: TokenResponseSerializer,
        401: OpenApiResponse(ErrorSerializer, description="Usuário, senha ou código do segundo fator incorretos."),
        403: OpenApiResponse(ErrorSerializer, description="Servidor sem segundo fator cadastrado."),
        429: OpenApiResponse(ErrorSerializer, description="Tentativas demais: acesso bloqueado por um tempo."),
    })
    def post(self, request):
        serializer = TokenRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        from portal.auth import LOCKOUT_MESSAGE
        from portal.tokens import issue_token

        user = authenticate(
            request._request,
            username=serializer.validated_data["username"],
            password=serializer.validated_data["password"],
        )
        if getattr(request._request, "axes_locked_out", False):
            self.failures.record_failure()
            return Response(
                {"errors": {"non_field_errors": [LOCKOUT_MESSAGE]}},
                status=status.HTTP_429_TOO_MANY_REQUESTS,
            )
        if user is None:
            self.failures.record_failure()
            return Response(
                {"errors": {"non_field_errors": ["Usuário ou senha incorretos."]}},
                status=status.HTTP_401_UNAUTHORIZED,
            )
        from portal import second_factor

        if second_factor.needs_second_factor(user):
            if second_factor.confirmed_device(user) is None:
                return Response({"errors": {"otp": [second_factor.OTP_NOT_ENROLLED]}}, status=status.HTTP_403_FORBIDDEN)
            code = serializer.validated_data.get("otp") or ""
            if not code:
                return Response({"errors": {"otp": [second_factor.OTP_MISSING]}}, status=status.HTTP_401_UNAUTHORIZED)
            if second_factor.check_code(user, code) is None:
                self.failures.record_failure()
                return Response({"errors": {"otp": [second_factor.WRONG_CODE]}}, status=status.HTTP_401_UNAUTHORIZED)
        from django.contrib.auth.signals import user_logged_in

        token, key = issue_token(user, user_agent=request.META.get("HTTP_USER_AGENT", ""))
        user_logged_in.send(sender=user.__class__, request=request._request, user=user)
        return Response({"token": key, "expires_at": token.expires_at})

    @extend_schema(request=None, responses={
        204: None, 401: OpenApiResponse(ErrorSerializer, description="Sem token, ou token já inválido.")})
    def delete(self, request):
        from portal.tokens import revoke_token

        revoke_token(request.auth, "revogado pela API")
        return Response(status=status.HTTP_204_NO_CONTENT)


class SignupSerializer(serializers.Serializer):
    cpf = serializers.CharField(label="CPF", max_length=20)
    name = serializers.CharField(label="nome completo", max_length=200)
    email = serializers.EmailField(label="e-mail", max_length=254)
    password = serializers.CharField(label="senha", max_length=256, write_only=True, trim_whitespace=False)
    birth_date = serializers.DateField(label="data de nascimento")
    phone = serializers.CharField(label="telefone", max_length=20, required=False, allow_blank=True)


class SignupResponseSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    name = serializers.CharField()
    email = serializers.EmailField()


class SignupView(APIView):
    """POST /api/v1/accounts/ — public sign-up of a requerente."""

    authentication_classes: list = []
    permission_classes = [permissions.AllowAny]
    throttle_scope = "signup"

    def get_throttles(self):
        return [PortalScopedRateThrottle()]

    @extend_schema(request=SignupSerializer, responses={201: SignupResponseSerializer})
    def post(self, request):
        from portal.services import sign_up

        serializer = SignupSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = sign_up(**serializer.validated_data)
        return Response(
            {"id": user.pk, "username": user.username, "name": user.name, "email": user.email},
            status=status.HTTP_201_CREATED,
        )


class MeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    name = serializers.CharField()
    roles = serializers.ListField(child=serializers.CharField())


class MeView(APIView):
    """GET /api/v1/me/ — who is signed in, with roles."""

    @extend_schema(responses={200: MeSerializer})
    def get(self, request):
        from portal.roles import user_roles

        u = request.user
        return Response(
            {"id": u.pk, "username": u.username, "name": u.display_name, "roles": sorted(user_roles(u))}
        )

