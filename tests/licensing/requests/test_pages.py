"""HTML pages: the holder's page, request forms with errors beside the fields, the clerk's
queue and lists with a constant number of queries."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from licensing.fees.services import tff_issue
from licensing.requests.models import LifecycleRequest, RequestKind, RequestStatus
from licensing.requests.services import request_decide, request_file
from licensing.stands.services import stand_assign, stand_create
from tests.licensing.requests.helpers import aux_data, grant, vehicle_data

pytestmark = pytest.mark.django_db


def test_holder_page_shows_grant_alvaras_auxiliaries_vehicle_stand_fees_and_requests(itagiba, applicant, clerk, web):
    auth, (alvara,) = grant(applicant)
    add = request_file(actor=applicant, authorization=auth, kind=RequestKind.AUXILIARY_ADD,
                       data=aux_data(name="Bruno Auxiliar", cnh_category="B"))
    request_decide(actor=clerk, request=add, approved=True)
    stand = stand_create(actor=clerk, name="Ponto da Praça", location="Centro", capacity=2)
    stand_assign(actor=clerk, stand=stand, authorization=auth)
    fee = tff_issue(actor=clerk, authorization=auth)
    body = web(applicant).get("/minha-autorizacao/").content.decode()
    for text in (auth.number, alvara.number, "substituído", "Bruno Auxiliar", auth.vehicle.display_plate,
                 "Ponto da Praça", fee.number, "R$ 95,00", add.protocol, "deferido", "Renúncia"):
        assert text in body, text
    assert f"/taxas/{fee.pk}/dam.pdf" in body
    # the holder downloads the grant act and each alvará from the same page
    assert f"/api/v1/authorizations/{auth.pk}/act.pdf" in body
    assert f"/api/v1/alvaras/{alvara.pk}/pdf" in body


def test_holder_page_without_a_grant_points_to_the_applications(itagiba, applicant, web):
    body = web(applicant).get("/minha-autorizacao/").content.decode()
    assert "ainda não tem autorização" in body and "/requerimentos/" in body


def test_request_form_keeps_values_and_shows_the_article_beside_the_field(arapora, applicant, web):
    auth, _ = grant(applicant)
    url = f"/minha-autorizacao/{auth.pk}/pedidos/novo/leave/"
    assert web(applicant).get(url).status_code == 200
    r = web(applicant).post(url, {"reason": "theft", "starts_on": arapora.today().isoformat(), "days": "91"})
    assert r.status_code == 400
    body = r.content.decode()
    assert "error-summary" in body and "art. 18, I" in body and 'value="91"' in body
    ok = web(applicant).post(url, {"reason": "theft", "starts_on": arapora.today().isoformat(), "days": "90"})
    assert ok.status_code == 302
    req = LifecycleRequest.objects.get(authorization=auth)
    assert ok["Location"] == f"/pedidos/{req.pk}/"


def test_forbidden_request_is_announced_and_refused_with_the_article(alegre, applicant, outsider, web):
    auth, _ = grant(applicant)
    url = f"/minha-autorizacao/{auth.pk}/pedidos/novo/transfer/"
    assert "não prevê este pedido" in web(applicant).get(url).content.decode()
    r = web(applicant).post(url, {"ground": "holder_years", "new_holder_cpf": outsider.cpf})
    assert r.status_code == 400 and "art. 14" in r.content.decode()
    assert web(outsider).get(url).status_code == 404


def test_clerk_records_vistoria_and_decides_a_substitution_on_the_page(itagiba, applicant, clerk, agent, web):
    auth, _ = grant(applicant, manufacture_year=2020)
    req = request_file(actor=applicant, authorization=auth, kind=RequestKind.SUBSTITUTION,
                       data={"ground": "newer", "vehicle": vehicle_data()})
    detail = web(agent).get(f"/pedidos/{req.pk}/").content.decode()
    assert "Registrar vistoria" in detail and "Decidir o pedido" not in detail
    items = itagiba.inspection_items("taxi")
    data = {"approved": "on", "notes": "Tudo conforme"} | {f"item_{i['code']}": "on" for i in items}
    assert web(agent).post(f"/atendimento/pedidos/{req.pk}/vistoria/", data).status_code == 302
    # granting issues an act of amendment: the clerk first sees what it will say
    r = web(clerk).post(f"/atendimento/pedidos/{req.pk}/decidir/", {"approved": "1", "reason": ""})
    page = r.content.decode()
    assert r.status_code == 200 and "Confirmar, deferir e emitir o ato" in page
    assert "Apostila" in page and auth.number in page and "QWE1R23" in page
    req.refresh_from_db()
    assert req.status == RequestStatus.FILED
    r = web(clerk).post(f"/atendimento/pedidos/{req.pk}/decidir/", {"approved": "1", "reason": "", "confirm": "1"})
    assert r.status_code == 302
    req.refresh_from_db()
    assert req.status == RequestStatus.APPROVED and req.inspection_approved
    auth.refresh_from_db()
    assert auth.vehicle.plate == "QWE1R23"


def _renunciations(n):
    for _ in range(n):
        auth, _ = grant()
        request_file(actor=auth.holder, authorization=auth, kind=RequestKind.RENUNCIATION, data={})


def _count(client, url):
    client.get(url)  # warm the per-process caches (the host's municipality, its pack): counted is the page
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def test_queue_uses_a_constant_number_of_queries(itagiba, clerk, web, api, django_assert_num_queries):
    client = web(clerk)
    _renunciations(1)
    url = "/atendimento/pedidos/?status=filed"
    one = _count(client, url)
    _renunciations(29)
    with django_assert_num_queries(one):
        body = client.get(url).content.decode()
    assert "30 pedidos" in body
    api_client = api(clerk)
    api_client.get("/api/v1/requests/")  # warm the per-user role cache
    api_one = _count(api_client, "/api/v1/requests/?status=filed&page_size=1")
    with django_assert_num_queries(api_one):
        assert api_client.get("/api/v1/requests/?status=filed").json()["count"] == 30


def test_fee_list_uses_a_constant_number_of_queries(itagiba, clerk, web, django_assert_num_queries):
    client = web(clerk)
    auth, _ = grant()
    tff_issue(actor=clerk, authorization=auth)
    one = _count(client, "/atendimento/taxas/")
    for _ in range(29):
        tff_issue(actor=clerk, authorization=grant()[0])
    with django_assert_num_queries(one):
        assert client.get("/atendimento/taxas/").status_code == 200


def test_public_stands_use_a_constant_number_of_queries(alegre, clerk, client, django_assert_num_queries):
    stand = stand_create(actor=clerk, name="Ponto Grande", location="Centro", capacity=40)
    stand_assign(actor=clerk, stand=stand, authorization=grant()[0])
    one = _count(client, "/pontos/")
    for _ in range(29):
        stand_assign(actor=clerk, stand=stand, authorization=grant()[0])
    with django_assert_num_queries(one):
        body = client.get("/pontos/").content.decode()
    assert "<strong>30</strong> de <strong>40</strong>" in body


def test_queue_filters(itagiba, applicant, clerk, web):
    auth, _ = grant(applicant)
    req = request_file(actor=applicant, authorization=auth, kind=RequestKind.AUXILIARY_ADD, data=aux_data(cnh_category="B"))
    client = web(clerk)
    assert req.protocol in client.get("/atendimento/pedidos/?kind=auxiliary_add").content.decode()
    assert req.protocol not in client.get("/atendimento/pedidos/?kind=leave").content.decode()
    assert req.protocol in client.get(f"/atendimento/pedidos/?status=filed&q={auth.vehicle.plate}").content.decode()


def test_late_removal_is_shown_to_the_holder_and_the_clerk(itagiba, applicant, clerk, web):
    auth, _ = grant(applicant)
    add = request_file(actor=applicant, authorization=auth, kind=RequestKind.AUXILIARY_ADD, data=aux_data(cnh_category="B"))
    request_decide(actor=clerk, request=add, approved=True)
    aux = auth.auxiliary_drivers.get()
    r = web(applicant).post(f"/minha-autorizacao/{auth.pk}/pedidos/novo/auxiliary_remove/",
                            {"auxiliary": aux.pk, "left_on": (itagiba.today() - timedelta(days=3)).isoformat()})
    assert r.status_code == 302
    detail = web(applicant).get(r["Location"]).content.decode()
    assert "fora do prazo" in detail and "art. 19, §2" in detail
    assert "fora do prazo" in web(clerk).get("/atendimento/pedidos/").content.decode()


def test_substitution_filed_on_the_form_and_shown_in_portuguese(itagiba, applicant, web):
    from validate_docbr import RENAVAM

    auth, _ = grant(applicant, manufacture_year=2020)
    url = f"/minha-autorizacao/{auth.pk}/pedidos/novo/substitution/"
    data = {"ground": "newer", "vehicle_plate": "abc-1d23", "vehicle_renavam": RENAVAM().generate(),
            "vehicle_make": "Fiat", "vehicle_model": "Cronos", "vehicle_color": "branca",
            "vehicle_manufacture_year": "2025", "vehicle_first_registration_date": "2025-03-01",
            "vehicle_doors": "4", "vehicle_seats": "5", "vehicle_engine_cc": "1000"}
    bad = web(applicant).post(url, {**data, "vehicle_renavam": "123"})
    assert bad.status_code == 400 and "RENAVAM inválido" in bad.content.decode()
    # the substitute meets the entry rules: a 2-door, 999 cc, black car is refused, each with its article
    bad = web(applicant).post(url, {**data, "vehicle_doors": "2", "vehicle_engine_cc": "999", "vehicle_color": "preta"})
    page = bad.content.decode()
    assert bad.status_code == 400
    for article in ("art. 13, IV", "art. 13, VI", "art. 13, III"):
        assert article in page
    r = web(applicant).post(url, data)
    assert r.status_code == 302, r.content.decode()[:3000]
    body = web(applicant).get(r["Location"]).content.decode()
    assert "Veículo substituto" in body and "ABC1D23" in body and "01/03/2025" in body
    assert "pedido protocolado" in body


def test_agent_queue_lists_only_substitutions(itagiba, applicant, agent, web):
    auth, _ = grant(applicant, manufacture_year=2020)
    sub = request_file(actor=applicant, authorization=auth, kind=RequestKind.SUBSTITUTION,
                       data={"ground": "newer", "vehicle": vehicle_data()})
    other, _ = grant()
    ren = request_file(actor=other.holder, authorization=other, kind=RequestKind.RENUNCIATION, data={})
    body = web(agent).get("/atendimento/pedidos/?kind=renunciation").content.decode()
    assert sub.protocol in body and ren.protocol not in body
