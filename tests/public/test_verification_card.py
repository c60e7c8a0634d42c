"""The card of a verification result (portal_tags.verification_card): the markup the template
_verify_results.html had, each value escaped, each optional row only when the document has it."""

from datetime import date

import pytest
from django.template.loader import render_to_string

from portal.public.selectors import Verification
from portal.templatetags.portal_tags import verification_card

pytestmark = pytest.mark.django_db


def _v(**kw) -> Verification:
    base = dict(kind="authorization", document="Autorização", number="001/2026", status="active", valid=True,
                valid_until=date(2030, 1, 2), modality="taxi", modality_label="Táxi", plate="ABC1D23",
                holder="Maria", driver="", code="ABCD-EFGH-IJKL")
    return Verification(**{**base, **kw})


def test_every_value_is_escaped():
    evil = "<script>alert('x')</script>&\""
    card = str(verification_card(_v(holder=evil, document=evil, plate=evil, drivers=[evil, "Ana"],
                                     vehicle={"make": evil, "model": "Uno", "color": "azul"}, signer=evil,
                                     amended_by=[{"document": evil, "number": "2", "code": "QQQQ-WWWW-EEEE",
                                                  "what": evil}])))
    assert "<script>" not in card
    assert card.count("&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;&amp;&quot;") == 8
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;&amp;&quot;, Ana" in card


def test_rows_the_document_has_and_only_those():
    plain = str(verification_card(_v()))
    assert "Titular</dt><dd class=\"col-sm-8\">Maria</dd>" in plain
    assert "Validade</dt><dd class=\"col-sm-8\">até 02/01/2030</dd>" in plain
    for absent in ("Condutor<", "Veículo", "Condutores autorizados", "Ato alterado", "O que alterou", "Alterado por",
                   "Substituído por", "SHA-256", "Assinado"):
        assert absent not in plain
    assert '<a href="/verificar/ABCD-EFGH-IJKL/">ABCD-EFGH-IJKL</a>' in plain
    assert "✔ Documento válido — situação: ativa" in plain


def test_suspension_amendments_and_successor():
    card = str(verification_card(_v(status="suspended", valid=False, suspended_until=date(2027, 3, 4), plate="",
                                     amended_by=[{"document": "Ato de alteração", "number": "9/2026",
                                                  "code": "QQQQ-WWWW-EEEE", "what": "Troca de veículo"}],
                                     superseded_by={"document": "Alvará", "number": "4/2026", "code": "ZZZZ-YYYY-XXXX"})))
    assert "✖ Documento não válido" in card
    assert 'status-suspended">suspensa</span> até 04/03/2027</dd>' in card
    assert "Placa no ato emitido</dt><dd class=\"col-sm-8\">—</dd>" in card
    assert '<li><a href="/verificar/QQQQ-WWWW-EEEE/">Ato de alteração nº 9/2026</a>: Troca de veículo</li>' in card
    assert '<a href="/verificar/ZZZZ-YYYY-XXXX/">Alvará nº 4/2026</a> (o documento em vigor)' in card


def test_an_act_of_amendment_and_an_auto():
    amendment = str(verification_card(_v(kind="amendment", status="issued", label="emitido em 01/02/2026",
                                          valid_until=None, amends={"document": "Autorização", "number": "1",
                                                                    "code": "ABCD-EFGH-IJKL"},
                                          changes=[{"label": "Placa", "before": "", "after": "NEW1A23"},
                                                   {"label": "Cor", "before": "azul", "after": None}])))
    assert "✔ Ato de alteração autêntico — situação: emitido em 01/02/2026" in amendment
    assert "<li>Placa: — → NEW1A23</li><li>Cor: azul → —</li>" in amendment
    assert "Validade" not in amendment
    cancelled = str(verification_card(_v(kind="infraction", valid=False, status="cancelled", label="cancelado")))
    assert "✖ Auto de infração cancelado" in cancelled


def test_the_results_template_wraps_each_card():
    html = render_to_string("public/_verify_results.html", {"results": [_v(), _v(code="AAAA-BBBB-CCCC")],
                                                            "searched": True, "q": "x"})
    assert html.count('<article class="card mb-3">') == 2 and html.count("</article>") == 2
    assert html.startswith('<section aria-live="polite"') and html.rstrip().endswith("</section>")


def test_a_search_that_found_nothing_warns_that_the_document_is_not_valid():
    from portal.templatetags.portal_tags import verification_results

    class Pack:
        municipality = {"complaints_phone": "(28) <3552>"}

    found_none = str(verification_results([], searched=True, direct=True, q="<b>X", pack=Pack()))
    assert "Nenhum documento encontrado" in found_none and "com o código “&lt;b&gt;X”" in found_none
    assert "ligue para a Prefeitura ((28) &lt;3552&gt;)." in found_none
    by_text = str(verification_results([], searched=True, q="abc", pack=None))
    assert "o código, número ou placa “abc”" in by_text and "Prefeitura." in by_text
    assert "Nenhum documento" not in str(verification_results([], searched=True, error="Digite o código."))
    assert "Nenhum documento" not in str(verification_results([], searched=False))
