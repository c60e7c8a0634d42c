"""Domain exceptions raised by services and rules."""

from __future__ import annotations


class RuleViolation(Exception):
    """A legal rule refuses the action. Carries the article that says so.

    ``conflict`` marks a refusal caused by the state of things (quota full, deadline
    passed): the API answers 409 instead of 400.
    """

    def __init__(
        self,
        code: str,
        message: str,
        legal_basis: str = "",
        *,
        field: str = "non_field_errors",
        conflict: bool = False,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.legal_basis = legal_basis
        self.field = field
        self.conflict = conflict

    def __str__(self) -> str:
        if self.legal_basis and self.legal_basis not in self.message:
            return f"{self.message} ({self.legal_basis})"
        return self.message

    def as_dict(self) -> dict:
        return {"code": self.code, "legal_basis": self.legal_basis}


class RuleViolations(Exception):
    """Several rule violations found at once (a form with many problems)."""

    def __init__(self, violations: list[RuleViolation]) -> None:
        super().__init__("; ".join(str(v) for v in violations))
        self.violations = violations


class InvalidTransition(Exception):
    """The object is not in a state that allows the action (API: 409)."""

    def __init__(self, message: str, *, field: str = "status") -> None:
        super().__init__(message)
        self.message = message
        self.field = field
