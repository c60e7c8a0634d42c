"""The whole journey through the HTML pages, the clerk's queue at constant queries, the demo seed."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.urls import reverse
from validate_docbr import CNH, CPF, RENAVAM

from licensing.models import Application, ApplicationStatus, Authorization
from portal.models import AuditEntry
from tests.licensing.applications.helpers import next_plate, open_call, pdf_file

JOURNEYS = [("alegre", "taxi"), ("alegre", "mototaxi"), ("itagiba", "taxi"), ("itagiba", "mototaxi"),
            ("arapora", "taxi")]


def _br(d):
    return d.strftime("%d/%m/%Y")


@pytest.mark.django_db
@pytest.mark.parametrize("slug,modality", JOURNEYS)
def test_html_journey(slug, modality, load_pack, web, applicant, clerk, agent):
    pack = load_pack(slug)
    if pack.decree_requirement(modality):  # Alegre's mototáxi: only once its decree is recorded (art. 29, p. ú.)
        from tests.factories import record_modality_decree

        record_modality_decree(modality)
    open_call(modality)
    today = pack.today()
    me = web(applicant)
    assert me.get(reverse("licensing-application-new")).status_code == 200
    data = {"modality": modality, "kind": "new"}
    if pack.value("selection.method", modality) == "bidding":
        data["bid_amount"] = "2000.00"
    r = me.post(reverse("licensing-application-new"), data)
    assert r.status_code == 302, r.content.decode()[:2000]
    app = Application.objects.get(applicant=applicant)
    step = lambda s: reverse("licensing-application-step", kwargs={"pk": app.pk, "step": s})  # noqa: E731
    assert r["Location"] == step("vehicle")
    moto = modality == "mototaxi"
    vehicle = {"plate": next_plate(), "renavam": RENAVAM().generate(), "make": "Honda", "model": "X",
               "color": (pack.value("vehicle.colors", modality) or ["branca"])[0],
               "manufacture_year": today.year - 1, "first_registration_date": _br(today - timedelta(days=200)),
               "doors": "0" if moto else "5", "seats": "2" if moto else "5", "engine_cc": "160" if moto else "1600"}
    # a refused value keeps what was typed and names the article
    bad = {**vehicle, "manufacture_year": today.year - 30, "first_registration_date": _br(today.replace(year=today.year - 30))}
    r = me.post(step("vehicle"), bad)
    assert r.status_code == 400 and "art." in r.content.decode() and vehicle["model"] in r.content.decode()
    # save and continue later, then resume
    assert me.post(step("vehicle"), {**vehicle, "later": "1"})["Location"] == reverse("licensing-my-applications")
    assert me.get(reverse("licensing-my-applications")).content.decode().count(step("driver")) == 1
    cats = pack.value("driver.cnh_categories", modality) or ["B"]
    r = me.post(step("driver"), {"cnh_number": CNH().generate(), "cnh_category": cats[-1],
                                 "cnh_first_issued": "15/01/2010", "cnh_ear": "on", "schooling": "4",
                                 "dependents": "2"})
    assert r.status_code == 302 and r["Location"] == step("auxiliaries")
    aux = {"aux1_name": "Paulo Auxiliar", "aux1_cpf": CPF().generate(), "aux1_cnh_number": CNH().generate(),
           "aux1_cnh_category": cats[-1], "aux1_cnh_first_issued": "01/02/2012", "aux1_cnh_ear": "on"}
    if pack.param("driver.min_age", modality) is not None:  # the auxiliary's age is asked like the holder's
        r = me.post(step("auxiliaries"), aux)
        assert r.status_code == 400 and "idade mínima" in r.content.decode()
    r = me.post(step("auxiliaries"), {**aux, "aux1_birth_date": "10/03/1985"})
    assert r.status_code == 302 and r["Location"] == step("documents")
    body = me.get(step("documents")).content.decode()
    assert "Paulo Auxiliar" in body
    from licensing.applications.selectors import required_documents

    for item in required_documents(app):
        r = me.post(reverse("licensing-document-upload", kwargs={"pk": app.pk}), {"type": item.code, "file": pdf_file()})
        assert r.status_code == 302
    assert me.get(step("review")).status_code == 200
    r = me.post(reverse("licensing-application-submit", kwargs={"pk": app.pk}))
    assert r.status_code == 302
    page = me.get(r["Location"]).content.decode()
    app.refresh_from_db()
    assert app.status == "submitted" and app.protocol in page and "comprovante" in page
    receipt = me.get(reverse("licensing-receipt-pdf", kwargs={"pk": app.pk}))
    assert receipt.status_code == 200 and receipt.content.startswith(b"%PDF")

    desk = web(clerk)
    assert app.protocol in desk.get(reverse("licensing-queue")).content.decode()
    for doc in app.documents.all():
        view = desk.get(reverse("licensing-document-file", kwargs={"pk": app.pk, "doc_id": doc.pk}))
        assert view.status_code == 200 and view["Content-Disposition"].startswith("inline")
        assert view["X-Frame-Options"] == "SAMEORIGIN" and view["X-Content-Type-Options"] == "nosniff"
        r = desk.post(reverse("licensing-document-review", kwargs={"pk": app.pk, "doc_id": doc.pk}),
                      {f"d{doc.pk}-accepted": "1"})
        assert r.status_code == 302
    assert AuditEntry.objects.filter(action="document_viewed", object_id=str(app.pk)).count() == app.documents.count()
    r = desk.post(reverse("licensing-schedule", kwargs={"pk": app.pk}),
                  {"agent": agent.pk, "date": _br(today + timedelta(days=2)), "time": "09:30",
                   "location": "Pátio da Secretaria"})
    assert r.status_code == 302
    field = web(agent)
    inspection = app.inspections.get()
    assert field.get(reverse("licensing-agent-inspections")).status_code == 200
    items = pack.inspection_items(modality)
    r = field.post(reverse("licensing-inspection-record", kwargs={"pk": inspection.pk}),
                   {"approved": "1", "notes": "ok", **{f"item_{i['code']}": "on" for i in items}})
    assert r.status_code == 302
    assert desk.get(reverse("licensing-ranking") + f"?modality={modality}").status_code == 200
    # issuing is deliberate: the clerk sees what the act will say; only the confirmation issues it
    summary = desk.get(reverse("licensing-approve", kwargs={"pk": app.pk})).content.decode()
    assert "Confirmar e emitir o ato" in summary and app.vehicle.display_plate in summary
    assert pack.act("authorization")["legal_basis"] in summary and app.applicant.display_name in summary
    assert desk.post(reverse("licensing-approve", kwargs={"pk": app.pk})).status_code == 200
    app.refresh_from_db()
    assert app.status != ApplicationStatus.APPROVED and app.authorization is None
    r = desk.post(reverse("licensing-approve", kwargs={"pk": app.pk}), {"confirm": "1"})
    assert r.status_code == 302
    app.refresh_from_db()
    assert app.status == ApplicationStatus.APPROVED and app.authorization is not None
    page = me.get(reverse("licensing-application", kwargs={"pk": app.pk})).content.decode()
    assert app.authorization.number in page
    assert me.get(reverse("api-authorization-act-pdf", kwargs={"pk": app.authorization.pk})).status_code == 200


@pytest.mark.django_db
def test_html_upload_errors_keep_previous_file(alegre, web, applicant, settings):
    from django.core.files.uploadedfile import SimpleUploadedFile

    open_call("taxi")
    me = web(applicant)
    me.post(reverse("licensing-application-new"), {"modality": "taxi", "kind": "new"})
    app = Application.objects.get(applicant=applicant)
    url = reverse("licensing-document-upload", kwargs={"pk": app.pk})
    code = "cnh_ear"
    me.post(url, {"type": code, "file": pdf_file()})
    r = me.post(url, {"type": code, "file": SimpleUploadedFile("x.pdf", b"MZ\x90\x00binary")})
    assert r["Location"].endswith(f"#doc-{code}")  # back to the item that failed
    body = me.get(r["Location"]).content.decode()
    assert "não foi aceito" in body and f'id="doc-{code}"' in body
    assert "O último arquivo enviado não foi aceito" in body  # beside the item, not only at the top
    assert app.documents.count() == 1


def _make_queue(n, start=0):
    from tests.factories import UserFactory, VehicleFactory

    for i in range(start, start + n):
        u = UserFactory()
        Application.objects.create(applicant=u, modality="taxi", status="submitted", protocol=f"2026/{i + 1:06d}",
                                   vehicle=VehicleFactory(owner=u))


@pytest.mark.django_db
def test_queue_constant_queries(alegre, web, clerk, django_assert_num_queries):
    client = web(clerk)
    _make_queue(1)
    client.get(reverse("licensing-queue"))  # warm the pack cache and session
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as one:
        assert client.get(reverse("licensing-queue")).status_code == 200
    _make_queue(29, start=1)
    with CaptureQueriesContext(connection) as thirty:
        body = client.get(reverse("licensing-queue")).content.decode()
    assert body.count("2026/0000") >= 25
    assert len(one.captured_queries) == len(thirty.captured_queries)
    r = client.get(reverse("licensing-queue") + "?status=submitted&modality=taxi&order=-submitted_at&protocol=2026")
    assert r.status_code == 200


@pytest.mark.django_db
def test_calls_form_opens_call(alegre, web, clerk):
    r = web(clerk).post(reverse("licensing-calls"), {"modality": "taxi", "start": "01/12/2026", "end": "31/12/2026",
                                                      "slots": "5"})
    assert r.status_code == 302
    r = web(clerk).post(reverse("licensing-calls"), {"modality": "taxi", "start": "31/12/2026", "end": "01/12/2026"})
    assert r.status_code == 400 and "posterior" in r.content.decode()


@pytest.mark.django_db
def test_home_shows_open_calls(alegre, client):
    open_call("taxi")
    assert "Editais abertos" in client.get("/").content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("slug", ["alegre", "itagiba", "arapora"])
def test_seed_demo_is_idempotent(slug, load_pack):
    load_pack(slug)
    import io

    call_command("seed_demo", stdout=io.StringIO())
    assert Authorization.objects.count() == 0  # alone: nothing that changes a rule's outcome
    call_command("seed_demo", "--sample-data", stdout=io.StringIO())
    call_command("seed_demo", "--sample-data", stdout=io.StringIO())
    assert Authorization.objects.count() == 1
    statuses = sorted(Application.objects.filter(applicant__username="requerente").values_list("status", flat=True))
    assert statuses == ["draft", "submitted"]


@pytest.mark.django_db
def test_profile_saves(alegre, web, applicant):
    r = web(applicant).post(reverse("licensing-profile"), {"address": "Rua A, 1", "cnh_number": "123", "schooling": "4"})
    assert r.status_code == 400 and "11 dígitos" in r.content.decode()
    r = web(applicant).post(reverse("licensing-profile"), {"address": "Rua A, 1", "residence_since": "01/01/2020",
                                                           "schooling": "4", "dependents": "2"})
    assert r.status_code == 302 and applicant.applicant_profile.dependents == 2


@pytest.mark.django_db
def test_html_requirement_answered_from_status_page(alegre, api, web, applicant, clerk):
    from tests.licensing.applications.helpers import create_and_submit

    open_call("taxi")
    app = Application.objects.get(pk=create_and_submit(api, applicant)["id"])
    code = "cnh_ear"
    r = web(clerk).post(reverse("licensing-requirement", kwargs={"pk": app.pk}),
                        {"text": "Envie a CNH frente e verso", "document_type": code})
    assert r.status_code == 302
    page = web(applicant).get(reverse("licensing-application", kwargs={"pk": app.pk})).content.decode()
    assert "Envie a CNH frente e verso" in page and "Enviar novo arquivo" in page
    r = web(applicant).post(reverse("licensing-document-upload", kwargs={"pk": app.pk}), {"type": code, "file": pdf_file()})
    assert r.status_code == 302
    app.refresh_from_db()
    assert app.status == "in_review" and app.documents.filter(type=code).count() == 2
    r = web(clerk).post(reverse("licensing-reject", kwargs={"pk": app.pk}), {"reason": ""})
    assert r.status_code == 400 and "Informe" in r.content.decode()


@pytest.mark.django_db
def test_agent_sees_only_what_the_vistoria_needs(alegre, api, web, applicant, clerk, agent):
    from tests.licensing.applications.helpers import create_and_submit

    open_call("taxi")
    app = Application.objects.get(pk=create_and_submit(api, applicant)["id"])
    assert web(agent).get(reverse("licensing-application", kwargs={"pk": app.pk})).status_code == 404
    api(clerk).post(f"/api/v1/applications/{app.pk}/inspection/",
                    {"scheduled_for": "2030-01-10T09:00:00-03:00", "agent": agent.username}, format="json")
    page = web(agent).get(reverse("licensing-application", kwargs={"pk": app.pk})).content.decode()
    assert app.vehicle.display_plate in page and "Registrar vistoria" in page
    assert "Ver arquivo" not in page and applicant.cpf not in page
    detail = api(agent).get(f"/api/v1/applications/{app.pk}/").json()
    assert "documents" not in detail and detail["inspection"]["checklist_items"]


@pytest.mark.django_db
def test_declaration_offered_where_the_pack_has_one(itagiba, web, applicant):
    open_call("taxi")
    me = web(applicant)
    me.post(reverse("licensing-application-new"), {"modality": "taxi", "kind": "new"})
    app = Application.objects.get(applicant=applicant)
    page = me.get(reverse("licensing-application-step", kwargs={"pk": app.pk, "step": "documents"})).content.decode()
    url = reverse("licensing-declaration-pdf", kwargs={"pk": app.pk})
    assert url in page
    pdf = me.get(url)
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")


@pytest.mark.django_db
def test_bidding_ranking_and_withdrawal_moves_the_next_up(arapora, api, web, applicant, outsider, clerk):
    """Araporã art. 4: ranking by the offer; a winner who gives up is replaced by the next (§3)."""
    from tests.licensing.applications.helpers import create_and_submit

    open_call("taxi")
    high = create_and_submit(api, applicant, bid_amount="2500.00")
    low = create_and_submit(api, outsider, bid_amount="1800.00")
    url = reverse("licensing-ranking") + "?modality=taxi"
    page = web(clerk).get(url).content.decode()
    assert page.index(high["protocol"]) < page.index(low["protocol"]) and "R$ 2.500,00" in page
    assert "art. 4" in page
    r = api(applicant).post(f"/api/v1/applications/{high['id']}/withdraw/", {"reason": "Mudei de cidade"}, format="json")
    assert r.status_code == 200 and r.json()["status"] == "withdrawn"
    page = web(clerk).get(url).content.decode()
    assert high["protocol"] not in page and low["protocol"] in page
    assert api(applicant).post(f"/api/v1/applications/{high['id']}/withdraw/").status_code == 409


@pytest.mark.django_db
def test_clerk_is_told_where_a_request_stands_when_requests_exceed_the_free_places(load_pack, api, web, applicant,
                                                                                    outsider, clerk):
    from tests.licensing.applications.helpers import create_and_submit

    load_pack("alegre", population=800)  # one táxi place
    open_call("taxi")
    first = create_and_submit(api, applicant)
    second = create_and_submit(api, outsider)
    page = web(clerk).get(reverse("licensing-application", kwargs={"pk": second["id"]})).content.decode()
    assert "2º de 2" in page and "fora das vagas" in page and "2 pedidos novos para 1 vaga livre" in page
    page = web(clerk).get(reverse("licensing-application", kwargs={"pk": first["id"]})).content.decode()
    assert "1º de 2" in page and "dentro das vagas" in page
    r = api(outsider).post(f"/api/v1/applications/{second['id']}/withdraw/", {"reason": "desisto"}, format="json")
    assert r.status_code == 200
    page = web(clerk).get(reverse("licensing-application", kwargs={"pk": first["id"]})).content.decode()
    assert "Classificação:" not in page  # no longer more requests than places


@pytest.mark.django_db
def test_wizard_first_step_says_what_to_choose_and_where_the_open_application_is(itagiba, web, applicant):
    open_call("taxi")
    me = web(applicant)
    body = me.post(reverse("licensing-application-new"), {"kind": "new"}).content.decode()
    assert "Escolha uma opção em “Modalidade”." in body
    # the options are a fieldset named by its legend; the error summary links to the first option
    assert '<fieldset class="choice-group"' in body and 'href="#id_modality_0"' in body
    assert 'aria-describedby="-error"' not in body
    assert me.post(reverse("licensing-application-new"), {"modality": "taxi", "kind": "new"}).status_code == 302
    Application.objects.filter(applicant=applicant).update(status=ApplicationStatus.SUBMITTED)
    r = me.post(reverse("licensing-application-new"), {"modality": "taxi", "kind": "new"})
    body = r.content.decode()
    assert r.status_code == 400 and "no máximo 1 outorga;" in body, body[:3000]
    assert "Veja a situação dos seus pedidos" in body


@pytest.mark.django_db
def test_save_for_later_keeps_an_invalid_step_and_submit_waits_for_it(alegre, web, applicant):
    open_call("taxi")
    me = web(applicant)
    me.post(reverse("licensing-application-new"), {"modality": "taxi", "kind": "new"})
    app = Application.objects.get(applicant=applicant)
    url = reverse("licensing-application-step", kwargs={"pk": app.pk, "step": "vehicle"})
    r = me.post(url, {"plate": "QAB1C23", "manufacture_year": "20", "later": "1", "csrfmiddlewaretoken": "x"})
    assert r.status_code == 302 and r["Location"] == reverse("licensing-my-applications")
    app.refresh_from_db()
    assert app.typed == {"vehicle": {"plate": "QAB1C23", "manufacture_year": "20"}} and app.vehicle is None
    entry = AuditEntry.objects.filter(action="application_draft_saved", object_id=str(app.pk)).get()
    assert entry.data["unjudged_fields"] == ["manufacture_year", "plate"]
    body = me.get(url).content.decode()
    assert 'value="QAB1C23"' in body and 'value="20"' in body
    assert f'href="{url}">Continuar pedido' in me.get(reverse("licensing-my-applications")).content.decode()
    # protocolling refuses while a step holds values not judged yet, naming the step
    r = me.post(reverse("licensing-application-submit", kwargs={"pk": app.pk}))
    assert r.status_code == 400 and "ainda não conferidos" in r.content.decode()
    # a valid "continue" judges the step and forgets the kept values
    pack = alegre
    today = pack.today()
    r = me.post(url, {"plate": "QAB1C23", "renavam": RENAVAM().generate(), "make": "Fiat", "model": "Uno",
                      "color": (pack.value("vehicle.colors", "taxi") or ["branca"])[0],
                      "manufacture_year": today.year - 1, "first_registration_date": _br(today - timedelta(days=90)),
                      "doors": "5", "seats": "5", "engine_cc": "1600"})
    import re
    assert r.status_code == 302, re.findall(r'invalid-feedback[^>]*>(.*?)</div>', r.content.decode(), re.S)
    app.refresh_from_db()
    assert app.typed == {} and app.vehicle is not None
