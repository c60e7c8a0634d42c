"""One way to turn a service's refusal into an answer: form errors for a page, the error body
for the API. The contract (docs API.md): 400 for invalid input, 409 for a conflict with the
state of things (``RuleViolation(conflict=True)``: quota full, deadline passed; and every
``InvalidTransition``: wrong status). The body is ``{"errors": {field: [message]}}`` and,
for a legal rule, ``"rule": {"code", "legal_basis"}`` (several rules: also ``"rules"``).
"""

from __future__ import annotations

from django.core.exceptions import ValidationError

from portal.exceptions import InvalidTransition, RuleViolation, RuleViolations

SERVICE_ERRORS = (RuleViolation, RuleViolations, InvalidTransition, ValidationError)
NON_FIELD = "non_field_errors"


def refusal_status(exc: Exception) -> int:
    """409 for a conflict with the state of things, 400 for invalid input."""
    if isinstance(exc, InvalidTransition):
        return 409
    if isinstance(exc, RuleViolation):
        return 409 if exc.conflict else 400
    if isinstance(exc, RuleViolations):
        return 409 if exc.violations and all(v.conflict for v in exc.violations) else 400
    return 400


def refusal_errors(exc: Exception) -> dict[str, list[str]]:
    """field → messages (``non_field_errors`` for the refusal as a whole)."""
    if isinstance(exc, RuleViolations):
        errors: dict[str, list[str]] = {}
        for v in exc.violations:
            errors.setdefault(v.field, []).append(str(v))
        return errors
    if isinstance(exc, RuleViolation):
        return {exc.field: [str(exc)]}
    if isinstance(exc, InvalidTransition):
        return {exc.field: [exc.message]}
    if isinstance(exc, ValidationError):
        if hasattr(exc, "error_dict"):
            return {k if k != "__all__" else NON_FIELD: list(v) for k, v in exc.message_dict.items()}
        return {NON_FIELD: list(exc.messages)}
    return {NON_FIELD: [str(exc)]}


def refusal_body(exc: Exception) -> dict:
    """The API's error body."""
    body: dict = {"errors": refusal_errors(exc)}
    if isinstance(exc, RuleViolation):
        body["rule"] = exc.as_dict()
    elif isinstance(exc, RuleViolations) and exc.violations:
        body["rule"] = exc.violations[0].as_dict()
        body["rules"] = [v.as_dict() for v in exc.violations]
    return body


def refusal_response(exc: Exception):
    """The DRF response for a refusal (portal.api.exception_handler answers with it)."""
    from rest_framework.response import Response

    return Response(refusal_body(exc), status=refusal_status(exc))


def apply_refusal(form, exc: Exception) -> int:
    """Put the refusal beside its field on ``form`` (at the top when the form has no such
    field; an InvalidTransition always at the top) and return the status to answer with."""
    if isinstance(exc, InvalidTransition):
        form.add_error(None, exc.message)
        return refusal_status(exc)
    for field, messages in refusal_errors(exc).items():
        for message in messages:
            form.add_error(field if field in form.fields else None, message)
    return refusal_status(exc)


def refusal_message(exc: Exception) -> str:
    """The refusal in one line (a flash message)."""
    return "; ".join(m for messages in refusal_errors(exc).values() for m in messages)
