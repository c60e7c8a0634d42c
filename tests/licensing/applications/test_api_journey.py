"""The whole journey through the API for each pack and modality, and the refusals with their article."""

from datetime import date, timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from licensing.models import Application, ApplicationDocument
from portal.models import Notification
from tests.licensing.applications.helpers import (
    create_and_submit,
    open_call,
    payload,
    pdf_file,
    review_all_and_inspect,
)

JOURNEYS = [("alegre", "taxi"), ("alegre", "mototaxi"), ("itagiba", "taxi"), ("itagiba", "mototaxi"),
            ("arapora", "taxi")]


@pytest.mark.django_db
@pytest.mark.parametrize("slug,modality", JOURNEYS)
def test_full_journey(slug, modality, load_pack, api, applicant, clerk, agent):
    pack = load_pack(slug)
    if pack.decree_requirement(modality):  # Alegre's mototáxi: only once its decree is recorded (art. 29, p. ú.)
        from tests.factories import record_modality_decree

        record_modality_decree(modality)
    open_call(modality)
    aux = 1
    app = create_and_submit(api, applicant, modality, auxiliaries=aux)
    assert app["status"] == "submitted" and len(app["protocol"]) == 11 and app["protocol"][4] == "/"
    codes = [d["code"] for d in app["required_documents"]]
    aux_codes = [c for c in codes if c.endswith(":aux1")]
    assert aux_codes and all(c.split(":")[0] in {d["code"] for d in pack.documents(modality, "new", "auxiliary")}
                             for c in aux_codes)
    assert any("Auxiliar 1" in d["label"] for d in app["required_documents"])
    review_all_and_inspect(api, clerk, agent, app["id"])
    r = api(clerk).post(f"/api/v1/applications/{app['id']}/approve/")
    assert r.status_code == 200, r.json()
    body = r.json()
    assert body["authorization"]["number"].endswith(f"/{pack.today().year}")
    scope = pack.act("alvara").get("scope")
    assert (body["alvara"] is None) == (scope == "none")
    if scope == "driver":
        assert len(body["alvaras"]) == 2  # holder and the auxiliary driver
    detail = api(applicant).get(f"/api/v1/applications/{app['id']}/").json()
    assert detail["status"] == "approved"
    assert [h["to"] for h in detail["history"] if h["to"]][:2] == ["draft", "submitted"]
    pdf = api(applicant).get(f"/api/v1/authorizations/{body['authorization']['id']}/act.pdf")
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    if body["alvara"]:
        pdf = api(applicant).get(f"/api/v1/alvaras/{body['alvara']['id']}/pdf")
        assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    subjects = list(Notification.objects.filter(recipient=applicant).values_list("subject", flat=True))
    assert any("deferido" in s for s in subjects) and any("protocolado" in s for s in subjects)


@pytest.mark.django_db
def test_no_open_call_is_refused_with_rule(itagiba, api, applicant):
    r = api(applicant).post("/api/v1/applications/", payload("taxi"), format="json")
    assert r.status_code == 400 and r.json()["rule"]["code"] == "calls.open"
    assert "art. 17" in r.json()["rule"]["legal_basis"]


@pytest.mark.django_db
def test_missing_documents_listed_with_basis(alegre, api, applicant):
    open_call("taxi")
    client = api(applicant)
    app = client.post("/api/v1/applications/", payload("taxi"), format="json").json()
    r = client.post(f"/api/v1/applications/{app['id']}/submit/")
    assert r.status_code == 400
    assert len(r.json()["errors"]["documents"]) == len(app["required_documents"])
    assert all(rule["legal_basis"].startswith("Lei 3.703/2022") for rule in r.json()["rules"])


@pytest.mark.django_db
def test_bad_uploads_lose_nothing(alegre, api, applicant, settings):
    settings.UPLOAD_MAX_BYTES = 2048
    open_call("taxi")
    client = api(applicant)
    app = client.post("/api/v1/applications/", payload("taxi"), format="json").json()
    code = app["required_documents"][0]["code"]
    url = f"/api/v1/applications/{app['id']}/documents/"
    assert client.post(url, {"type": code, "file": pdf_file()}, format="multipart").status_code == 201
    bad = [
        SimpleUploadedFile("virus.pdf", b"MZ\x90\x00" + b"\x00" * 200, content_type="application/pdf"),
        SimpleUploadedFile("vazio.pdf", b"", content_type="application/pdf"),
        SimpleUploadedFile("grande.pdf", b"%PDF-1.4\n" + b"0" * 4096 + b"\n%%EOF", content_type="application/pdf"),
        SimpleUploadedFile("cortado.pdf", b"%PDF-1.4\n1 0 obj<</Type/Catalog", content_type="application/pdf"),
    ]
    for f in bad:
        r = client.post(url, {"type": code, "file": f}, format="multipart")
        assert r.status_code == 400 and r.json()["errors"]["file"], f.name
    docs = ApplicationDocument.objects.filter(application_id=app["id"])
    assert docs.count() == 1 and docs.get().file.read().startswith(b"%PDF")


@pytest.mark.django_db
def test_outsider_sees_404_and_roles(alegre, api, applicant, outsider, clerk, judge):
    open_call("taxi")
    app = create_and_submit(api, applicant)
    assert api(outsider).get(f"/api/v1/applications/{app['id']}/").status_code == 404
    assert api(outsider).post(f"/api/v1/applications/{app['id']}/submit/").status_code == 404
    assert api(clerk).get(f"/api/v1/applications/{app['id']}/").status_code == 200
    assert api(judge).get(f"/api/v1/applications/{app['id']}/").status_code == 403
    assert api(applicant).post(f"/api/v1/applications/{app['id']}/approve/").status_code == 403
    assert api(None).get(f"/api/v1/applications/{app['id']}/").status_code == 401


@pytest.mark.django_db
def test_approve_needs_documents_and_inspection(alegre, api, applicant, clerk):
    open_call("taxi")
    app = create_and_submit(api, applicant)
    r = api(clerk).post(f"/api/v1/applications/{app['id']}/approve/")
    assert r.status_code == 409


@pytest.mark.django_db
def test_quota_full_is_409_with_article(load_pack, api, applicant, clerk, agent):
    from tests.factories import issue_authorization

    pack = load_pack("alegre", population=1600)  # 2 táxi slots (art. 10, §2: 1 per 800)
    open_call("taxi")
    app = create_and_submit(api, applicant)
    review_all_and_inspect(api, clerk, agent, app["id"])
    issue_authorization(modality="taxi")
    issue_authorization(modality="taxi")
    r = api(clerk).post(f"/api/v1/applications/{app['id']}/approve/")
    assert r.status_code == 409 and r.json()["rule"]["code"] == "quota.full"
    assert r.json()["rule"]["legal_basis"] == pack.basis("quota.inhabitants_per_slot", "taxi")
    assert Application.objects.get(pk=app["id"]).status == "in_review"


@pytest.mark.django_db
def test_rejected_document_superseded_by_new_upload(alegre, api, applicant, clerk):
    open_call("taxi")
    app = create_and_submit(api, applicant)
    detail = api(clerk).get(f"/api/v1/applications/{app['id']}/").json()
    doc = detail["documents"][0]
    r = api(clerk).post(f"/api/v1/applications/{app['id']}/documents/{doc['id']}/review/",
                        {"accepted": False, "reason": "Ilegível"}, format="json")
    assert r.status_code == 200 and r.json()["status"] == "rejected"
    r = api(applicant).post(f"/api/v1/applications/{app['id']}/documents/", {"type": doc["type"], "file": pdf_file()},
                            format="multipart")
    assert r.status_code == 201
    after = api(applicant).get(f"/api/v1/applications/{app['id']}/").json()
    assert [d["status"] for d in after["previous_documents"]] == ["rejected"]
    assert ApplicationDocument.objects.filter(application_id=app["id"], type=doc["type"]).count() == 2
    # an accepted item cannot be replaced
    other = after["documents"][1]
    api(clerk).post(f"/api/v1/applications/{app['id']}/documents/{other['id']}/review/", {"accepted": True}, format="json")
    r = api(applicant).post(f"/api/v1/applications/{app['id']}/documents/", {"type": other["type"], "file": pdf_file()},
                            format="multipart")
    assert r.status_code == 409


@pytest.mark.django_db
def test_requirement_answered_by_upload(alegre, api, applicant, clerk):
    open_call("taxi")
    app = create_and_submit(api, applicant)
    code = app["required_documents"][0]["code"]
    r = api(clerk).post(f"/api/v1/applications/{app['id']}/requirements/",
                        {"text": "Envie cópia legível", "document_type": code}, format="json")
    assert r.status_code == 201
    assert Application.objects.get(pk=app["id"]).status == "requirement"
    r = api(applicant).post(f"/api/v1/applications/{app['id']}/documents/", {"type": code, "file": pdf_file()},
                            format="multipart")
    assert r.status_code == 201
    assert Application.objects.get(pk=app["id"]).status == "in_review"


@pytest.mark.django_db
def test_reject_needs_reason(alegre, api, applicant, clerk):
    open_call("taxi")
    app = create_and_submit(api, applicant)
    assert api(clerk).post(f"/api/v1/applications/{app['id']}/reject/", {}, format="json").status_code == 400
    r = api(clerk).post(f"/api/v1/applications/{app['id']}/reject/", {"reason": "Fora do prazo"}, format="json")
    assert r.status_code == 200 and r.json()["status"] == "refused"
    assert api(clerk).post(f"/api/v1/applications/{app['id']}/reject/", {"reason": "x"}, format="json").status_code == 409


@pytest.mark.django_db
def test_open_call_command_is_idempotent(alegre):
    from django.core.management import call_command

    from licensing.models import Call

    for _ in range(2):
        call_command("open_call", "taxi", "--start", "2026-01-01", "--end", "2026-12-31", "--slots", "3")
    assert Call.objects.filter(modality="taxi").count() == 1
    assert Call.objects.get(modality="taxi").slots == 3


@pytest.mark.django_db
def test_open_call_again_for_the_same_period_takes_the_new_slots(alegre):
    from io import StringIO

    from django.core.management import call_command

    from licensing.models import Call
    from portal.models import AuditEntry

    args = ("open_call", "taxi", "--start", "2026-01-01", "--end", "2026-12-31")
    call_command(*args, "--slots", "3", stdout=StringIO())
    out = StringIO()
    call_command(*args, "--slots", "5", stdout=out)
    assert "5 vaga(s)" in out.getvalue()
    call_command(*args, stdout=StringIO())  # without --slots: the slots stay
    assert list(Call.objects.values_list("slots", flat=True)) == [5]
    audits = AuditEntry.objects.filter(action="call_updated").count()
    call_command(*args, "--slots", "5", stdout=StringIO())
    assert AuditEntry.objects.filter(action="call_updated").count() == audits == 1


@pytest.mark.django_db
def test_regular_window_is_a_recurring_call(itagiba):
    from licensing.applications.calls import open_call_for

    call = open_call_for("taxi", date(2027, 1, 20))
    assert call is not None and call.is_regular_window and call.end == date(2027, 1, 29)
    assert open_call_for("taxi", date(2027, 2, 1)) is None


@pytest.mark.django_db
def test_renewal_replaces_the_grant_without_taking_a_slot(load_pack, api, applicant, clerk, agent):
    from licensing.models import Authorization
    from tests.factories import backdate_issue

    pack = load_pack("alegre", population=800)  # a single táxi slot
    open_call("taxi")
    first = create_and_submit(api, applicant)
    review_all_and_inspect(api, clerk, agent, first["id"])
    granted = api(clerk).post(f"/api/v1/applications/{first['id']}/approve/").json()["authorization"]
    plate = Application.objects.get(pk=first["id"]).vehicle.plate
    # ten years later, within the renewal window before the end of the term
    end = pack.today() + timedelta(days=30)
    Authorization.objects.filter(pk=granted["id"]).update(valid_from=end.replace(year=end.year - 10), valid_until=end)
    backdate_issue(Authorization.objects.get(pk=granted["id"]), end.replace(year=end.year - 10))
    renewal = create_and_submit(api, applicant, kind="renewal", vehicle={"plate": plate})
    review_all_and_inspect(api, clerk, agent, renewal["id"])
    r = api(clerk).post(f"/api/v1/applications/{renewal['id']}/approve/")
    assert r.status_code == 200, r.json()
    old = Authorization.objects.get(pk=granted["id"])
    new = Authorization.objects.get(pk=r.json()["authorization"]["id"])
    assert old.status == "expired" and new.status == "active" and new.renewals == 1
    # art. 27: "prorrogado por igual período" — the new term runs on from the end of the old one
    assert new.valid_until == old.valid_until.replace(year=old.valid_until.year + 10)
    assert r.json()["authorization"]["valid_until"] == new.valid_until.isoformat()
    # Alegre allows one renewal (art. 27): a second is refused with the article
    r = api(applicant).post("/api/v1/applications/", payload("taxi", kind="renewal", vehicle={"plate": plate}),
                            format="json")
    assert r.status_code == 409 and r.json()["rule"]["code"] == "grant.max_renewals"
    assert pack.basis("grant.max_renewals", "taxi") in r.json()["rule"]["legal_basis"]


@pytest.mark.django_db
def test_list_is_scoped(alegre, api, applicant, outsider, clerk):
    open_call("taxi")
    app = create_and_submit(api, applicant)
    assert [a["id"] for a in api(applicant).get("/api/v1/applications/").json()["results"]] == [app["id"]]
    assert api(outsider).get("/api/v1/applications/").json()["results"] == []
    assert api(clerk).get("/api/v1/applications/?status=submitted").json()["count"] == 1


@pytest.mark.django_db
def test_call_slots_limit_grants(alegre, api, applicant, outsider, clerk, agent, web):
    from django.urls import reverse

    open_call("taxi", slots=1)
    first = create_and_submit(api, applicant)
    second = create_and_submit(api, outsider)
    for app in (first, second):
        review_all_and_inspect(api, clerk, agent, app["id"])
    assert api(clerk).post(f"/api/v1/applications/{first['id']}/approve/").status_code == 200
    r = api(clerk).post(f"/api/v1/applications/{second['id']}/approve/")
    assert r.status_code == 409 and r.json()["rule"]["code"] == "call.slots_full"
    page = web(clerk).post(reverse("licensing-approve", kwargs={"pk": second["id"]}), {"confirm": "1"},
                           follow=True).content.decode()
    assert "Não foi possível deferir" in page and "vagas do edital" in page
