"""Residence and self-declared criteria (PL 015/2025 (Itagibá/BA), art. 9, II; art. 17, §6, I–V):
each value that ranks or admits is proven by a document item the clerk accepts or shown as
declared by the applicant; a value whose proof the clerk rejected does not count."""

from __future__ import annotations

from datetime import date

import pytest

from licensing.applications import rules
from licensing.applications.selectors import pending_ranking, proving_items
from licensing.grants.rules import add_months, add_years
from tests.licensing.applications.helpers import create_and_submit, open_call

CRITERIA = ["renewal_first", "cnh_years_desc", "vehicle_newer", "cnh_points_asc", "schooling_desc", "dependents_desc"]


@pytest.mark.parametrize("criterion,codes,statuses,expected", [
    ("renewal_first", [], {}, rules.PROOF_RECORDED),
    ("bid_desc", ["x"], {"x": "rejected"}, rules.PROOF_RECORDED),  # the offer is the portal's own record
    ("schooling_desc", [], {}, rules.PROOF_DECLARED),  # no item proves it (art. 17, §6, IV)
    ("cnh_years_desc", ["cnh"], {}, rules.PROOF_PENDING),  # not sent yet
    ("cnh_years_desc", ["cnh"], {"cnh": "pending"}, rules.PROOF_PENDING),
    ("cnh_years_desc", ["cnh"], {"cnh": "accepted"}, rules.PROOF_ACCEPTED),
    ("cnh_years_desc", ["cnh"], {"cnh": "rejected"}, rules.PROOF_REJECTED),
    ("cnh_years_desc", ["cnh", "extrato"], {"cnh": "rejected", "extrato": "accepted"}, rules.PROOF_ACCEPTED),
])
def test_criterion_proof(criterion, codes, statuses, expected):
    assert rules.criterion_proof(criterion, codes, statuses) == expected


def _entry(key, *, cnh_since, year=2024, at=0, proofs=()):
    years, months, days = rules.held_for(cnh_since, date(2026, 6, 1))
    return rules.RankingEntry(key=key, renewal=False, cnh_years=years, cnh_months=months, cnh_days=days,
                              vehicle_year=year, cnh_points=None, schooling=None, dependents=None, bid=None,
                              submitted_at=at, proofs=proofs)


def test_a_value_proven_by_a_rejected_document_does_not_count():
    longer = _entry("longer", cnh_since=date(2000, 1, 1), year=2020, at=0)
    shorter = _entry("shorter", cnh_since=date(2015, 1, 1), year=2020, at=1)
    assert [e.key for e in rules.rank([shorter, longer], CRITERIA)] == ["longer", "shorter"]
    rejected = _entry("longer", cnh_since=date(2000, 1, 1), year=2020, at=0,
                      proofs=(("cnh_years_desc", rules.PROOF_REJECTED),))
    assert [e.key for e in rules.rank([shorter, rejected], CRITERIA)] == ["shorter", "longer"]
    assert "não conta: documento recusado" in rules.criterion_display(rejected, "cnh_years_desc")
    # the next criterion still counts: a rejected CNH ties at zero, then the newer vehicle decides
    newer = _entry("newer", cnh_since=date(2000, 1, 1), year=2025, at=2, proofs=(("cnh_years_desc", rules.PROOF_REJECTED),))
    assert [e.key for e in rules.rank([rejected, newer], CRITERIA)] == ["newer", "longer"]


def test_itagiba_items_prove_residence_cnh_and_vehicle_the_rest_is_declared(itagiba):
    proving = proving_items(itagiba, "taxi")
    assert proving == {"residence": ["comprovante_residencia"], "cnh_years_desc": ["cnh_taxi"],
                       "vehicle_newer": ["crlv_propriedade"]}
    assert proving_items(itagiba, "mototaxi")["cnh_years_desc"] == ["cnh_mototaxi"]
    assert not {"cnh_points_asc", "schooling_desc", "dependents_desc"} & set(proving)


def test_a_pack_item_proving_an_unknown_criterion_is_refused():
    from portal import regulation

    data = regulation.read_pack_file("itagiba")
    data["documents"][0]["proves"] = ["renda"]
    with pytest.raises(regulation.PackError, match="proves"):
        regulation.validate_pack_data(data)


@pytest.mark.django_db
def test_ranking_page_shows_proven_declared_and_rejected_values(load_pack, api, web, clerk):
    from tests.conftest import make_user

    pack = load_pack("itagiba", population=1000)  # one taxi place (art. 4, §3)
    today = pack.today()
    open_call("taxi")
    first = make_user("a1", "requerente", cpf="39053344705", name="Ana CNH curta", birth_date=date(1980, 1, 1))
    second = make_user("a2", "requerente", cpf="11144477735", name="Bia CNH longa", birth_date=date(1980, 1, 1))
    a = create_and_submit(api, first, driver={"cnh_first_issued": add_months(add_years(today, -10), -1).isoformat(),
                                              "schooling": 3, "dependents": 2})
    b = create_and_submit(api, second, driver={"cnh_first_issued": add_months(add_years(today, -10), -11).isoformat()})
    ranking = pending_ranking("taxi")
    assert [e.key.pk for e in ranking.entries] == [b["id"], a["id"]]  # not yet reviewed: counts provisionally
    c = api(clerk)
    for app, accepted in ((a, True), (b, False)):
        docs = {d["type"]: d for d in c.get(f"/api/v1/applications/{app['id']}/").json()["documents"]}
        for code in ("cnh_taxi", "comprovante_residencia"):
            r = c.post(f"/api/v1/applications/{app['id']}/documents/{docs[code]['id']}/review/",
                       {"accepted": accepted, "reason": "" if accepted else "Ilegível."}, format="json")
            assert r.status_code == 200, r.json()
    ranking = pending_ranking("taxi")
    assert [e.key.pk for e in ranking.entries] == [a["id"], b["id"]]  # Bia's CNH time was rejected: it does not count
    assert ranking.entries[0].proof_of("cnh_years_desc") == rules.PROOF_ACCEPTED
    assert ranking.entries[0].proof_of("schooling_desc") == rules.PROOF_DECLARED
    assert ranking.entries[1].proof_of("residence") == rules.PROOF_REJECTED
    body = web(clerk).get("/atendimento/classificacao/", {"modality": "taxi"}).content.decode()
    rows = body.split("<tbody>")[1]
    ana, bia = rows.split("</tr>")[:2]
    assert "Ana CNH curta" in ana and "comprovado por documento aceito" in ana and "declarado pelo requerente" in ana
    assert "Bia CNH longa" in bia and "documento recusado: não conta" in bia
    assert "Residência no Município" in body
