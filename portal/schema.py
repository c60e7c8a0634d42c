"""OpenAPI schema generation: the error responses every operation can give, in one place.

Each view declares its success shape (``extend_schema``); the errors follow from what the
view is, so they are added here rather than by ninety decorators:

- 400 ``Error`` everywhere: a body or parameter that does not parse, and a NUL in any path or
  query string (portal.middleware.NullCharacterMiddleware) even where nothing else is read;
- 401 wherever a token or session is read (a missing, wrong or expired token);
- 403 for a role check, and for unsafe methods (CSRF of a session; a holder's own action);
- 404 ``Error`` for a path with an id (a missing object and another person's look the same)
  and for a page number past the end of a list;
- 409 ``Error`` with the rule for a state change (POST/PUT/PATCH/DELETE on a resource);
- 415 for a body in a media type the view does not read; 429 for throttled views.

A code the view declares itself (the verification's ``{"valid": false}`` 404) is kept.
"""

from __future__ import annotations

import re

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, inline_serializer
from rest_framework import permissions, serializers
from rest_framework.authentication import SessionAuthentication
from rest_framework.generics import GenericAPIView

_ENDS_WITH_PARAM = re.compile(r"\{[^}]+\}/?$")
_UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}
_OPEN = (permissions.AllowAny, permissions.IsAuthenticated)


class RuleSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="código da regra (estável)")
    legal_basis = serializers.CharField(help_text="lei e artigo que a fundamentam")


class ErrorSerializer(serializers.Serializer):
    """The error body of API.md: ``errors`` by field (``non_field_errors`` for the request as a
    whole, ``vehicle.plate`` for a nested field) and, for a legal rule, ``rule``."""

    errors = serializers.DictField(child=serializers.ListField(child=serializers.CharField()), required=False,
                                   help_text="mensagens por campo")
    rule = RuleSerializer(required=False, help_text="a regra legal que recusou o pedido")
    rules = RuleSerializer(many=True, required=False, help_text="todas as regras, quando mais de uma recusou")
    detail = serializers.CharField(required=False, help_text="a mensagem, para 401, 403, 404, 405, 415 e 429")


ERROR_DESCRIPTIONS = {
    "400": "Dados inválidos: `errors` por campo; `rule` quando uma regra legal recusa.",
    "401": "Sem credenciais, ou token inválido, expirado ou revogado.",
    "403": "O perfil de quem chama não pode realizar esta ação.",
    "404": "Não encontrado: inexistente ou de outra pessoa (`{\"detail\": \"Não encontrado.\"}`).",
    "409": "Conflito com o estado das coisas (situação, prazo, vaga): `errors` e `rule`.",
    "415": "Tipo de conteúdo do corpo não aceito.",
    "429": "Muitas requisições: tente de novo mais tarde (cabeçalho `Retry-After`).",
}


# For a view that looks up an object named in its body (no id in the path).
NOT_FOUND = OpenApiResponse(ErrorSerializer, description=ERROR_DESCRIPTIONS["404"])


def _permission_classes(view) -> list:
    try:
        return [type(p) for p in view.get_permissions()]
    except Exception:  # noqa: BLE001 — a get_permissions that reads the request: fall back to the class attribute
        return list(getattr(view, "permission_classes", []))


def _throttled(view) -> bool:
    try:
        return bool(view.get_throttles())
    except Exception:  # noqa: BLE001
        return bool(getattr(view, "throttle_classes", None) or getattr(view, "throttle_scope", None))


# --- response shapes -------------------------------------------------------------------
# The views answer with dicts built by their selectors; these helpers describe those dicts for
# the schema in a line each (``shape("Fee", id=integer(), amount=money(), ...)``).
def shape(component: str, /, *, many: bool = False, null: bool = False, **fields) -> serializers.Serializer:
    """A named object with the given fields (a component of the schema)."""
    kwargs = {"many": many} if many else {}
    if null:
        kwargs["allow_null"] = True
    return inline_serializer(name=component, fields=fields, **kwargs)


def page(component: str, /, **item_fields) -> serializers.Serializer:
    """A page of a list (``count``, ``next``, ``previous``, ``results``) of ``component`` items."""
    return shape(component + "Page", count=integer(), next=text(null=True), previous=text(null=True),
                 results=shape(component, many=True, **item_fields))


def text(null: bool = False, **kw):
    return serializers.CharField(allow_null=null, **kw)


def integer(null: bool = False, **kw):
    return serializers.IntegerField(allow_null=null, **kw)


def flag(null: bool = False, **kw):
    return serializers.BooleanField(allow_null=null, **kw)


def money(null: bool = False, **kw):
    """Money as a string with two decimals ("30.99")."""
    return serializers.DecimalField(max_digits=14, decimal_places=2, allow_null=null, **kw)


def day(null: bool = False, **kw):
    return serializers.DateField(allow_null=null, **kw)


def moment(null: bool = False, **kw):
    return serializers.DateTimeField(allow_null=null, **kw)


def texts(**kw):
    return serializers.ListField(child=serializers.CharField(), **kw)


def free(null: bool = False, **kw):
    """An object whose keys come from the pack (a penalty, a tariff's components)."""
    return serializers.JSONField(allow_null=null, **kw)


def pdf(description: str = "O documento em PDF.") -> dict:
    """The success response of a PDF endpoint."""
    return {(200, "application/pdf"): OpenApiResponse(OpenApiTypes.BINARY, description=description)}


class PortalAutoSchema(AutoSchema):
    """Plain APIViews without a declared serializer are described as a JSON object instead of
    being left out of the schema; list endpoints get a ``_list`` operation id; every operation
    gets the error responses it can give (module docstring)."""

    def _get_serializer(self):
        view = self.view
        declares = getattr(view, "serializer_class", None) is not None or (
            isinstance(view, GenericAPIView)
            and type(view).get_serializer_class is not GenericAPIView.get_serializer_class
        )
        if not declares:
            return OpenApiTypes.OBJECT
        return super()._get_serializer()

    def get_operation_id(self):
        operation_id = super().get_operation_id()
        if self.method == "GET" and operation_id.endswith("_retrieve") and not _ENDS_WITH_PARAM.search(self.path):
            operation_id = operation_id[: -len("_retrieve")] + "_list"
        return operation_id

    def error_codes(self) -> list[str]:
        """The 4xx codes this operation can answer with (module docstring)."""
        view, method = self.view, self.method
        perms = _permission_classes(view)
        authenticators = list(getattr(view, "authentication_classes", []) or [])
        codes = []
        has_body = method in {"POST", "PUT", "PATCH"}
        codes.append("400")  # a body or parameter that does not parse; a NUL in any path or query
        if authenticators:
            codes.append("401")
        if any(not issubclass(p, _OPEN) for p in perms) or (
                method in _UNSAFE and any(issubclass(a, SessionAuthentication) for a in authenticators)):
            codes.append("403")
        if "{" in self.path or self._get_pagination_parameters() or any(
                getattr(p, "name", None) == "page" for p in self.get_override_parameters()):
            codes.append("404")
        if method in _UNSAFE:
            codes.append("409")
        if has_body:
            codes.append("415")
        if _throttled(view):
            codes.append("429")
        return codes

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        if getattr(self.view, "created", False) and self.method == "POST" and set(responses) == {"200"}:
            responses = {"201": responses["200"]}  # the view answers 201 Created (``created = True``)
        for code in self.error_codes():
            if code not in responses:
                responses[code] = self._get_response_for_code(
                    OpenApiResponse(ErrorSerializer, description=ERROR_DESCRIPTIONS[code]), code,
                    ["application/json"], direction)
        return dict(sorted(responses.items()))


def portal_version() -> str:
    """The portal's version as packaged (pyproject.toml), read from the installed metadata or,
    in a checkout that was never installed, from pyproject.toml itself."""
    from importlib import metadata

    try:
        return metadata.version("portal-taxi")
    except metadata.PackageNotFoundError:
        import tomllib

        from django.conf import settings

        with open(settings.BASE_DIR / "pyproject.toml", "rb") as f:
            return tomllib.load(f)["project"]["version"]


def add_portal_info(result, generator, request, public):
    """Postprocessing hook: the schema says which portal (version) and which municipality (the
    active pack) it describes, so a client can tell two installations and two releases apart."""
    from django.db import DatabaseError

    from portal import regulation

    info = result.setdefault("info", {})
    info["version"] = portal_version()
    try:
        pack = regulation.current(required=False)
    except DatabaseError:  # `manage.py spectacular` on a checkout without a database: no municipality to name
        pack = None
    if pack is not None:
        info["title"] = f"{info.get('title', 'API')} — {pack.display_name}"
        info["x-municipality"] = {"name": pack.name, "uf": pack.uf, "pack": pack.slug}
    return result
