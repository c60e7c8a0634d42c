"""The julgador's judgement screen breaks the penalty down: each infraction with its article, unit
and base value, the recidivism factor with links to the earlier autos, and a warning where a value
is only the pack's example (no regulation recorded yet)."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from enforcement import rules, services
from tests.enforcement.helpers import regulate_all

pytestmark = pytest.mark.django_db


def _breakdown(body: str) -> str:
    start = body.index('id="penalty-breakdown"')
    return body[start:body.index("</table>", start)]


def _notified(agent, clerk, grant, pack, code, days_ago=1):
    inf, _ = services.infraction_issue(actor=agent, plate=grant.vehicle.plate, infraction_code=code,
                                       occurred_at=timezone.now() - timedelta(days=days_ago), location="x",
                                       description="y")
    services.infraction_notify(actor=clerk, infraction=inf, acknowledged_on=pack.today())
    return inf


def test_each_infraction_shows_its_article_and_base_value(web, alegre, grant, agent, clerk, judge):
    regulate_all()
    inf = _notified(agent, clerk, grant, alegre, "19-I")
    table = _breakdown(web(judge).get(reverse("enforcement:judge", args=[inf.pk])).content.decode())
    assert "<caption>" in table and '<th scope="col">Base legal</th>' in table and '<th scope="row">19-I' in table
    assert "art. 19, I" in table and "R$ 150,00" in table
    assert "valor de exemplo" not in table


def test_a_fine_in_fiscal_units_shows_units_unit_value_and_base(web, arapora, grant, agent, clerk, judge):
    """Lei 724/2008 art. 22, II: the fine in UMT; art. 23, I: the infraction."""
    regulate_all()
    inf = _notified(agent, clerk, grant, arapora, "23-I")
    table = _breakdown(web(judge).get(reverse("enforcement:judge", args=[inf.pk])).content.decode())
    assert "art. 23, I" in table and "2 UMT × R$ 10,00" in table and "R$ 20,00" in table


def test_an_example_value_not_recorded_is_flagged(web, alegre, grant, agent, clerk, judge):
    """Lei 3.703/2022 art. 19: the fine's value is left to a regulation; the pack's value is an example."""
    inf = _notified(agent, clerk, grant, alegre, "19-I")
    table = _breakdown(web(judge).get(reverse("enforcement:judge", args=[inf.pk])).content.decode())
    assert "R$ 150,00 — valor de exemplo" in table
    assert "Atenção — valor de exemplo, sem efeito legal" in table and "infração 19-I" in table


def test_the_recidivism_factor_names_and_links_the_earlier_auto(web, alegre, grant, agent, clerk, judge):
    """Lei 3.703/2022 art. 23: a second fine within 30 days of the first is doubled."""
    regulate_all()
    day = timezone.now() - timedelta(days=20)
    first, _ = services.infraction_issue(actor=agent, plate=grant.vehicle.plate, infraction_code="19-I",
                                         occurred_at=day, location="x", description="y")
    services.infraction_notify(actor=clerk, infraction=first, acknowledged_on=alegre.today() - timedelta(days=19))
    services.infraction_judge(actor=judge, infraction=first, upheld=True, grounds="g")
    second = _notified(agent, clerk, grant, alegre, "19-II", days_ago=10)
    body = web(judge).get(reverse("enforcement:judge", args=[second.pk])).content.decode()
    start = body.index('id="penalty-recidivism"')
    block = body[start:body.index("</div>", start)]
    assert "multa × 2" in block and "art. 23" in block
    assert f'<a href="{reverse("enforcement:detail", args=[first.pk])}">auto nº {first.number}</a>' in block
    assert first.occurred_on.strftime("%d/%m/%Y") in block
    assert "valores antes da reincidência" in _breakdown(body)


def test_lines_of_the_pure_penalty_keep_each_infraction_apart():
    entries = [
        {"code": "A", "description": "a", "legal_basis": "art. 1", "penalties": [
            {"kind": "fine", "fine_units": 2, "legal_basis": "art. 1", "label": "multa"}]},
        {"code": "B", "description": "b", "legal_basis": "art. 2", "penalties": [
            {"kind": "fine", "fine_amount": "150.00", "example": True, "legal_basis": "art. 2", "label": "multa"},
            {"kind": "seizure", "legal_basis": "art. 2", "label": "apreensão do veículo"}]},
    ]
    pen = rules.compute_penalty(entries, unit_value=Decimal("10.00"), unit_name="UFP")
    a, b = pen["lines"]
    assert (a["legal_basis"], a["fine"]["fine_units"], a["fine"]["fiscal_unit"], a["fine"]["base_amount"]) == \
        ("art. 1", 2, "UFP", "20.00")
    assert a["fine"]["example"] is False and a["fine"]["missing_regulation"] is None
    assert b["fine"]["example"] is True and b["fine"]["base_amount"] is None and b["fine"]["example_amount"] == "150.00"
    assert "infração B" in b["fine"]["missing_regulation"] and b["penalties"] == ["multa", "apreensão do veículo"]
    recorded = rules.compute_penalty(entries, unit_value=Decimal("10.00"), unit_name="UFP",
                                     fine_overrides={"B": Decimal("90")})
    assert recorded["lines"][1]["fine"]["base_amount"] == "90.00" and recorded["lines"][1]["fine"]["recorded"]
