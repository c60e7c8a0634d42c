"""A judgement that suspends or ends the grant is confirmed first, with a summary of what it will do."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse

from enforcement.models import Infraction, Judgement
from enforcement.services.preview import (
    GRANT_EFFECT_KINDS,
    grant_effect_kinds,
    needs_confirmation,
    penalty_digest,
)

pytestmark = pytest.mark.django_db


def _judgeable(pack, grant, issue, chain, code):
    today = pack.today()
    body = issue(grant.vehicle.plate, code, today - timedelta(days=40))
    chain.notify(body["id"], today - timedelta(days=35))  # the defense period is over
    return Infraction.objects.get(pk=body["id"])


def _digest(page: str) -> str:
    return re.search(r'name="digest" value="([0-9a-f]+)"', page).group(1)


def test_cassation_is_shown_before_it_is_recorded_and_recorded_only_when_confirmed(web, itagiba, grant, issue,
                                                                                    chain, judge):
    inf = _judgeable(itagiba, grant, issue, chain, "19-VII")
    url = reverse("enforcement:judge", args=[inf.pk])
    r = web(judge).post(url, {"upheld": "1", "grounds": "Fatos comprovados pelo agente."})
    page = r.content.decode()
    assert r.status_code == 200 and "Confirmar a decisão" in page and "encerra a outorga" in page
    assert f"{grant.act_name} nº {grant.number}" in page
    assert "Cassação da autorização" in page and "60 meses" in page and "art. 19, §4" in page
    assert "não tem efeito suspensivo" in page and "art. 25, §4" in page  # when the effect starts, and why
    assert "Fatos comprovados pelo agente." in page
    inf.refresh_from_db()
    assert inf.status == "notified" and not Judgement.objects.filter(infraction=inf).exists()
    r = web(judge).post(url, {"upheld": "1", "grounds": "Fatos comprovados pelo agente.", "confirm": "1",
                              "digest": _digest(page)})
    assert r.status_code == 302
    inf.refresh_from_db()
    assert inf.status == "upheld" and "cassation" in inf.penalty["kinds"]
    assert inf.judgement.grounds == "Fatos comprovados pelo agente."


def test_a_confirmation_of_another_penalty_is_shown_again(web, itagiba, grant, issue, chain, judge):
    inf = _judgeable(itagiba, grant, issue, chain, "19-VII")
    r = web(judge).post(reverse("enforcement:judge", args=[inf.pk]),
                        {"upheld": "1", "grounds": "x", "confirm": "1", "digest": "0" * 16})
    assert r.status_code == 200 and 'id="penalty-changed"' in r.content.decode()
    assert not Judgement.objects.filter(infraction=inf).exists()


def test_a_fine_only_judgement_needs_no_extra_step(web, alegre, grant, issue, chain, judge):
    fine_only = _judgeable(alegre, grant, issue, chain, "19-I")
    r = web(judge).post(reverse("enforcement:judge", args=[fine_only.pk]), {"upheld": "1", "grounds": "x"})
    assert r.status_code == 302 and Judgement.objects.filter(infraction=fine_only).exists()


def test_dismissing_a_cassation_auto_needs_no_extra_step(web, itagiba, grant, issue, chain, judge):
    inf = _judgeable(itagiba, grant, issue, chain, "19-VII")
    r = web(judge).post(reverse("enforcement:judge", args=[inf.pk]), {"upheld": "0", "grounds": "Sem provas."})
    assert r.status_code == 302
    inf.refresh_from_db()
    assert inf.status == "dismissed"


def test_the_api_decides_in_one_call(api, itagiba, grant, issue, chain, judge):
    inf = _judgeable(itagiba, grant, issue, chain, "19-VII")
    r = api(judge).post(f"/api/v1/infractions/{inf.pk}/judge/", {"upheld": True, "grounds": "Fatos."}, format="json")
    assert r.status_code == 200 and "cassation" in r.json()["penalty"]["kinds"]


@pytest.mark.parametrize("kinds,expected", [
    (["fine"], []), (["warning", "fine"], []), (["fine", "suspension"], ["suspension"]),
    (["cassation"], ["cassation"]), (["cancellation"], ["cancellation"]),
    (["fine", "impediment"], ["impediment"]), (["suspension_until_regularised"], ["suspension_until_regularised"]),
    (["seizure", "new_inspection"], []),
])
def test_which_penalties_touch_the_grant(kinds, expected):
    assert grant_effect_kinds({"kinds": kinds}) == expected
    assert needs_confirmation({"effects": grant_effect_kinds({"kinds": kinds})}) is bool(expected)
    assert set(expected) <= GRANT_EFFECT_KINDS


def test_the_digest_changes_with_the_penalty():
    assert penalty_digest({"kinds": ["fine"], "amount": "10.00"}) != penalty_digest({"kinds": ["fine"], "amount": "20.00"})
    assert penalty_digest({"a": 1, "b": 2}) == penalty_digest({"b": 2, "a": 1})


def test_a_suspension_shows_its_days_and_waits_for_the_final_decision_where_the_appeal_suspends(
        web, arapora, grant, issue, chain, judge):
    """Lei 724/2008 (Araporã) art. 23, XIV: code C-1, 5 days of suspension; art. 25, §§1º–2º: the
    suspension takes effect with the final decision."""
    inf = _judgeable(arapora, grant, issue, chain, "23-XIV")
    r = web(judge).post(reverse("enforcement:judge", args=[inf.pk]), {"upheld": "1", "grounds": "Intimado, faltou."})
    page = " ".join(r.content.decode().split())
    assert r.status_code == 200 and "suspende a outorga" in page
    assert "Suspensão por <strong>5 dias</strong>" in page and "Quando a decisão se tornar definitiva" in page
    assert "art. 23, XIV" in page and "prazo de recurso é de 10 dias" in page
    assert not Judgement.objects.filter(infraction=inf).exists()
