"""The transit room cites the pack's bus law, never an article written in code."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from licensing.transit import services as svc
from licensing.transit.citations import law_basis
from portal import regulation
from portal.audit import history_for
from portal.models import Municipality

ROOM = Path(__file__).resolve().parents[3] / "licensing" / "transit"
ARTICLE = re.compile(r"\barts?\.\s*\d", re.IGNORECASE)
# Field attributes frozen in the migrations (changing them is a schema change): the integrator
# may move them with a migration of their own.
FROZEN = {("models.py", "fundamentos (art. 20, §1º)"), ("models.py", "Art. 3, §1º: publicado na imprensa oficial.")}


def test_no_article_number_in_the_rooms_strings():
    found = []
    for path in sorted(ROOM.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
                    and ARTICLE.search(node.value) and (path.name, node.value) not in FROZEN):
                found.append(f"{path.relative_to(ROOM)}:{node.lineno}: {node.value[:60]}")
    assert not found


@pytest.fixture
def renumbered(alegre):
    """The same municipality whose bus law numbers its articles otherwise."""
    m = Municipality.objects.get(is_active=True)
    m.pack["collective_transport"]["articles"].update({"complaints": "art. 99, X", "contract": "art. 40 a 42",
                                                       "clauses": "art. 41"})
    m.save(update_fields=["pack"])
    regulation.invalidate()
    yield regulation.current()
    regulation.invalidate()


def test_the_audit_cites_the_packs_article(running, renumbered):
    _, line = running
    complaint = svc.complaint_file(line=line, text="O ônibus das 6h não passou.")
    entry = history_for(complaint).get()
    assert entry.data["legal_basis"] == law_basis(renumbered, "complaints")
    assert entry.data["legal_basis"].endswith(", art. 99, X") and "art. 11" not in entry.data["legal_basis"]


def test_the_contract_cites_the_packs_articles(running, renumbered):
    from licensing.transit.documents import contract_context

    c, _ = running
    ctx = contract_context(c)
    assert ctx["legal_basis"].endswith(", art. 40 a 42")
    assert ctx["art"]["clauses"] == "art. 41"


def test_with_the_current_pack_the_texts_are_the_laws(alegre):
    """Alegre's bus law: the same citations as before they moved into the pack."""
    assert law_basis(alegre, "complaints").endswith(", art. 11, VII")
    assert law_basis(alegre, "contract").endswith(", art. 8, 9 e 25")
    assert law_basis(alegre, "contract_category").endswith(", art. 3, §1º; art. 9, I")
