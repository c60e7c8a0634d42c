"""Permission-matrix rows: (URL name, method, expected status per persona).

Each app keeps its rows in tests/<app>/matrix.py as ``ROWS`` and, when its URLs need
objects, a ``build(world, personas)`` that adds them to ``world``. The matrix test fails
when a named URL pattern has no row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

PERSONAS = ("anonymous", "requerente", "outsider", "atendente", "agente", "julgador", "admin")
LOGIN = "login"  # expected: redirect to the login page


@dataclass(frozen=True)
class Row:
    name: str
    expect: dict  # persona -> status code or LOGIN; "*" for the rest
    method: str = "get"
    kwargs: Callable[[dict], dict] | None = None
    data: Callable[[dict], dict] | None = None
    api: bool = False
    query: str = ""
    notes: str = ""
    extra: dict = field(default_factory=dict)

    def expected(self, persona: str):
        return self.expect.get(persona, self.expect.get("*"))


def everyone(code) -> dict:
    return {"*": code}


def only(roles: tuple[str, ...], ok=200, others=403, anonymous=LOGIN) -> dict:
    out = {"anonymous": anonymous, "*": others}
    for role in roles:
        out[role] = ok
    return out


def signed_in(ok=200, anonymous=LOGIN) -> dict:
    return {"anonymous": anonymous, "*": ok}
