"""Permission matrix of applications; its world also holds the grant and alvará the grants'
matrix uses."""

from tests.matrix import LOGIN, Row, only

APPLICANTS = ("requerente", "outsider")
CLERKS = ("atendente", "admin")
PUBLICATION_READERS = (*CLERKS, "julgador")


def _own(ok, outsider=404, others=403, anonymous=LOGIN, **extra):
    return {"anonymous": anonymous, "requerente": ok, "outsider": outsider, "*": others, **extra}


def _api(expect):
    return {"anonymous": 401, **expect}


def app_kw(w):
    return {"pk": w["application"].pk}


ROWS = [
    Row("licensing-profile", only(APPLICANTS)),
    Row("licensing-profile", only(APPLICANTS, ok=302), method="post", data=lambda w: {}),
    Row("licensing-my-applications", only(APPLICANTS)),
    Row("licensing-application-new", only(APPLICANTS)),
    Row("licensing-application-new", only(APPLICANTS, ok=400), method="post", data=lambda w: {}),
    Row("licensing-renewal-start", _own(302), method="post", kwargs=lambda w: {"pk": w["authorization"].pk},
        notes="to the wizard with the renewal draft, or back to the grant page with the rule that refuses it"),
    Row("licensing-application", _own(200, atendente=200, admin=200, agente=200, julgador=403), kwargs=app_kw),
    Row("licensing-application-step", _own(200), kwargs=lambda w: {"pk": w["draft"].pk, "step": "vehicle"}),
    Row("licensing-application-step", _own(400), method="post",
        kwargs=lambda w: {"pk": w["draft"].pk, "step": "vehicle"}, data=lambda w: {}),
    Row("licensing-document-upload", _own(302), method="post", kwargs=app_kw, data=lambda w: {}),
    Row("licensing-document-file", _own(200, atendente=200, admin=200),
        kwargs=lambda w: {"pk": w["application"].pk, "doc_id": w["document"].pk}),
    Row("licensing-application-submit", _own(400), method="post", kwargs=lambda w: {"pk": w["draft"].pk}),
    Row("licensing-application-tff", _own(302), method="post", kwargs=lambda w: {"pk": w["draft"].pk},
        notes="the active pack (Alegre) has no TFF: the owner is sent back with the message"),
    Row("licensing-application-withdraw", _own(302), method="post", kwargs=lambda w: {"pk": w["draft2"].pk}),
    Row("licensing-receipt-pdf", _own(200, atendente=200, admin=200), kwargs=app_kw),
    Row("licensing-declaration-pdf", _own(404, atendente=404, admin=404), kwargs=app_kw,
        notes="the active pack (Alegre) has no declaration: 404 even for the owner"),
    Row("licensing-inspection-pdf", only(("atendente", "admin", "agente")), kwargs=app_kw),
    Row("licensing-queue", only(CLERKS)),
    Row("licensing-documents-accept", only(CLERKS, ok=302), method="post", kwargs=app_kw, data=lambda w: {},
        notes="nothing marked: back to the page with the message"),
    Row("licensing-document-review", only(CLERKS, ok=302), method="post",
        kwargs=lambda w: {"pk": w["application"].pk, "doc_id": w["document"].pk}, data=lambda w: {}),
    Row("licensing-requirement", only(CLERKS, ok=400), method="post", kwargs=app_kw, data=lambda w: {}),
    Row("licensing-schedule", only(CLERKS, ok=400), method="post", kwargs=app_kw, data=lambda w: {}),
    Row("licensing-approve", only(CLERKS), kwargs=app_kw, notes="what the act will say, to confirm"),
    Row("licensing-approve", only(CLERKS), method="post", kwargs=app_kw, notes="without confirm: the summary again"),
    Row("licensing-approve", only(CLERKS, ok=302), method="post", kwargs=app_kw, data=lambda w: {"confirm": "1"}),
    Row("licensing-reject", only(CLERKS, ok=400), method="post", kwargs=app_kw, data=lambda w: {}),
    Row("licensing-ranking", only(CLERKS)),
    Row("licensing-calls", only(CLERKS)),
    Row("licensing-calls", only(CLERKS, ok=400), method="post", data=lambda w: {}),
    # the one publication desk: the julgador reads it (decisions of appeals go there); the desk prepares
    Row("licensing-publications", only(PUBLICATION_READERS)),
    # the matrix's pack (Alegre) requires no publication: preparing one is refused (409)
    Row("licensing-publications", only(CLERKS, ok=409), method="post", data=lambda w: {}),
    Row("licensing-publication", only(PUBLICATION_READERS), kwargs=lambda w: {"pk": w["publication"].pk}),
    Row("licensing-publication", only(CLERKS, ok=400), method="post", kwargs=lambda w: {"pk": w["publication"].pk},
        data=lambda w: {}),
    Row("licensing-publication-pdf", only(PUBLICATION_READERS), kwargs=lambda w: {"pk": w["publication"].pk}),
    Row("licensing-publication-txt", only(PUBLICATION_READERS), kwargs=lambda w: {"pk": w["publication"].pk}),
    Row("licensing-agent-inspections", only(("agente",))),
    Row("licensing-inspection-record", only(("agente",)), kwargs=lambda w: {"pk": w["inspection"].pk}),
    Row("licensing-inspection-record", only(("agente",), ok=400), method="post",
        kwargs=lambda w: {"pk": w["inspection"].pk}, data=lambda w: {}),
    # API
    Row("api-applications", _api({"requerente": 400, "outsider": 400, "*": 403}), method="post", api=True,
        data=lambda w: {}),
    Row("api-applications", _api({"julgador": 403, "*": 200}), api=True),
    Row("api-application-detail", _api({"requerente": 200, "outsider": 404, "atendente": 200, "admin": 200,
                                        "agente": 200, "julgador": 403}), api=True, kwargs=app_kw),
    Row("api-application-documents", _api({"requerente": 400, "outsider": 404, "*": 403}), method="post", api=True,
        kwargs=app_kw),
    Row("api-application-submit", _api({"requerente": 409, "outsider": 404, "*": 403}), method="post", api=True,
        kwargs=app_kw),
    Row("api-application-tff", _api({"requerente": 400, "outsider": 404, "*": 403}), method="post", api=True,
        kwargs=lambda w: {"pk": w["draft"].pk}, notes="400 tff_not_provided: the active pack (Alegre) has no TFF"),
    Row("api-application-withdraw", _api({"requerente": 409, "outsider": 404, "*": 403}), method="post", api=True,
        kwargs=lambda w: {"pk": w["refused"].pk}, notes="a decided request cannot be withdrawn"),
    Row("api-application-documents-accept", _api({"atendente": 400, "admin": 400, "*": 403}), method="post",
        api=True, kwargs=app_kw, data=lambda w: {}, notes="400: no document listed"),
    Row("api-application-document-review", _api({"atendente": 400, "admin": 400, "*": 403}), method="post", api=True,
        kwargs=lambda w: {"pk": w["application"].pk, "doc_id": w["document"].pk}, data=lambda w: {}),
    Row("api-application-requirements", _api({"atendente": 400, "admin": 400, "*": 403}), method="post", api=True,
        kwargs=app_kw, data=lambda w: {}),
    Row("api-application-inspection", _api({"atendente": 200, "admin": 200, "agente": 200, "*": 403}), api=True,
        kwargs=app_kw),
    Row("api-application-inspection-result", _api({"agente": 400, "*": 403}), method="post", api=True,
        kwargs=app_kw, data=lambda w: {}),
    Row("api-application-approve", _api({"atendente": 409, "admin": 409, "*": 403}), method="post", api=True,
        kwargs=app_kw),
    Row("api-application-reject", _api({"atendente": 400, "admin": 400, "*": 403}), method="post", api=True,
        kwargs=app_kw, data=lambda w: {}),
]


def build(world, personas):
    from datetime import timedelta

    from django.core.files.base import ContentFile
    from django.utils import timezone

    from licensing.grants.services import alvara_issue, amendment_issue
    from licensing.models import Application, ApplicationDocument, Inspection, Publication
    from tests.factories import VehicleFactory, issue_authorization
    from tests.licensing.applications.helpers import PDF_BYTES

    alice = personas["requerente"]
    vehicle = VehicleFactory(owner=alice)
    app = Application.objects.create(applicant=alice, modality="taxi", status="submitted", protocol="2026/900001",
                                     submitted_at=timezone.now(), vehicle=vehicle, cnh_category="B")
    doc = ApplicationDocument(application=app, type="cnh_ear", code="cnh_ear", mime="application/pdf",
                              size=len(PDF_BYTES))
    doc.file.save("cnh.pdf", ContentFile(PDF_BYTES), save=False)
    doc.save()
    world["application"] = app
    world["document"] = doc
    world["draft"] = Application.objects.create(applicant=alice, modality="mototaxi")
    world["draft2"] = Application.objects.create(applicant=alice, modality="taxi")
    world["refused"] = Application.objects.create(applicant=alice, modality="taxi", status="refused")
    world["inspection"] = Inspection.objects.create(application=app, agent=personas["agente"],
                                                    scheduled_for=timezone.now() + timedelta(days=2))
    authorization, _ = issue_authorization(holder=alice, vehicle=VehicleFactory(owner=alice))
    world["authorization"] = authorization
    world["alvara"] = alvara_issue(actor=None, authorization=authorization, person=alice)
    world["publication"] = Publication.objects.create(number="900/2026", legal_basis="art. 18, §5", text="LISTA\n",
                                                      items=[])
    world["amendment"] = amendment_issue(
        actor=None, authorization=authorization, kind="auxiliary_add", reason="Inclusão de condutor auxiliar",
        changes=[{"label": "Condutor auxiliar incluído", "before": "", "after": "Fulano"}])
