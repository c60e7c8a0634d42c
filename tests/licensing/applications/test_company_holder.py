"""Companies (pessoa jurídica) as holders where the law admits them: Araporã Lei 724/2008, art. 2
and art. 4 §1/§2 (pack key grant.holder_types); Alegre and Itagibá admit natural persons only."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader
from validate_docbr import CNPJ

from licensing.grants.documents import authorization_pdf
from licensing.models import Application, Authorization
from licensing.portal_providers import open_data_row, open_data_rows
from tests.licensing.applications.helpers import (
    create_and_submit,
    open_call,
    payload,
    review_all_and_inspect,
)

COMPANY = "Táxi Araporã Transportes Ltda"


def company(cnpj: str | None = None) -> dict:
    return {"holder_type": "pj", "company_name": COMPANY, "cnpj": cnpj or CNPJ().generate(mask=True)}


@pytest.mark.django_db
@pytest.mark.parametrize("slug", ["alegre", "itagiba"])
def test_pf_only_pack_refuses_a_company_through_the_api(slug, load_pack, api, applicant):
    pack = load_pack(slug)
    open_call("taxi")
    r = api(applicant).post("/api/v1/applications/", payload("taxi", **company()), format="json")
    assert r.status_code == 400, r.json()
    errors = r.json()["errors"]
    assert "holder_type" in errors
    assert pack.basis("grant.holder_types", "taxi") in errors["holder_type"][0]
    assert not Application.objects.exists()


@pytest.mark.django_db
def test_arapora_company_gets_the_items_of_art_4_par_2_and_not_the_personal_ones(arapora, api, applicant):
    open_call("taxi")
    client = api(applicant)
    r = client.post("/api/v1/applications/", payload("taxi", **company()), format="json")
    assert r.status_code == 201, r.json()
    codes = {d["code"] for d in r.json()["required_documents"]}
    pj_codes = {d["code"] for d in arapora.documents("taxi", "new") if d.get("holder_types") == ["pj"]}
    assert pj_codes and pj_codes <= codes
    assert "inss_contribuinte_individual" not in codes  # art. 4 §1 IV: personal to the self-employed driver
    assert {"cnh_d", "certificado_propriedade", "certidoes_criminais"} <= codes  # §2 IX: the company proves §1 I–III
    detail = client.get(f"/api/v1/applications/{r.json()['id']}/").json()
    assert detail["holder_type"] == "pj" and detail["company_name"] == COMPANY and len(detail["cnpj"]) == 14


@pytest.mark.django_db
def test_arapora_natural_person_gets_the_personal_items_and_no_company_ones(arapora, api, applicant):
    open_call("taxi")
    r = api(applicant).post("/api/v1/applications/", payload("taxi"), format="json")
    assert r.status_code == 201, r.json()
    codes = {d["code"] for d in r.json()["required_documents"]}
    assert "inss_contribuinte_individual" in codes and not any(c.startswith("pj_") for c in codes)
    detail = api(applicant).get(f"/api/v1/applications/{r.json()['id']}/").json()
    assert detail["holder_type"] == "pf" and detail["company_name"] is None and detail["cnpj"] is None


@pytest.mark.django_db
@pytest.mark.parametrize("cnpj,field", [("11.222.333/0001-82", "cnpj"), ("1122233300018", "cnpj"), ("", "cnpj")])
def test_invalid_cnpj_is_refused_naming_the_field(cnpj, field, arapora, api, applicant):
    open_call("taxi")
    data = payload("taxi", holder_type="pj", company_name=COMPANY, cnpj=cnpj)
    r = api(applicant).post("/api/v1/applications/", data, format="json")
    assert r.status_code == 400, r.json()
    assert field in r.json()["errors"]
    assert not Application.objects.exists()


@pytest.mark.django_db
def test_company_without_razao_social_is_refused(arapora, api, applicant):
    open_call("taxi")
    data = payload("taxi", holder_type="pj", company_name="  ", cnpj=CNPJ().generate())
    r = api(applicant).post("/api/v1/applications/", data, format="json")
    assert r.status_code == 400 and "company_name" in r.json()["errors"]


@pytest.mark.django_db
def test_the_grant_names_the_company_in_the_act_open_data_and_verification(arapora, api, web, applicant, clerk,
                                                                          agent):
    from portal.public.selectors import public_name

    open_call("taxi")
    cnpj = CNPJ().generate()
    app = create_and_submit(api, applicant, "taxi", **company(cnpj))
    review_all_and_inspect(api, clerk, agent, app["id"])
    r = api(clerk).post(f"/api/v1/applications/{app['id']}/approve/")
    assert r.status_code == 200, r.json()
    assert r.json()["authorization"]["holder_type"] == "pj" and r.json()["authorization"]["cnpj"] == cnpj
    auth = Authorization.objects.get(pk=r.json()["authorization"]["id"])
    assert (auth.holder_type, auth.company_name, auth.cnpj, auth.holder) == ("pj", COMPANY, cnpj, applicant)
    detail = api(applicant).get(f"/api/v1/applications/{app['id']}/").json()
    assert detail["authorization"]["company_name"] == COMPANY

    text = " ".join("".join(p.extract_text() for p in PdfReader(io.BytesIO(authorization_pdf(auth))).pages).split())
    formatted = f"{cnpj[:2]}.{cnpj[2:5]}.{cnpj[5:8]}/{cnpj[8:12]}-{cnpj[12:]}"
    assert COMPANY in text and formatted in text
    assert public_name(applicant) in text or applicant.display_name in text  # the responsible driver

    assert open_data_row(auth)["holder"] == COMPANY
    assert open_data_rows([auth.pk])[0]["holder"] == COMPANY  # the streamed (tuple) path agrees
    from licensing.portal_providers import current_grant_ids

    assert auth.pk in list(current_grant_ids(q="Araporã Transportes"))  # found by the name the list shows

    page = web(None).get(f"/verificar/{auth.verification_code}/")
    assert page.status_code == 200 and COMPANY in page.content.decode()
    assert (applicant.cpf or "-") not in page.content.decode()  # a CPF is never public

    mine = web(applicant).get("/minha-autorizacao/").content.decode()
    assert COMPANY in mine and formatted in mine and "Condutor responsável" in mine


@pytest.mark.django_db
def test_a_natural_persons_act_stays_as_it_was(arapora, applicant):
    from tests.factories import issue_authorization

    auth, _ = issue_authorization(holder=applicant)
    assert auth.holder_type == "pf" and auth.company_name == "" and auth.cnpj == ""
    assert open_data_row(auth)["holder"] != ""
    text = "".join(p.extract_text() for p in PdfReader(io.BytesIO(authorization_pdf(auth))).pages)
    assert "CNPJ" not in text


@pytest.mark.django_db
def test_renewal_keeps_the_company_of_the_previous_grant(arapora, applicant, monkeypatch):
    """Araporã itself gives no renewal (art. 3: a new bidding); the copy is tested with the term
    rule set aside, as a pack that admits both companies and renewals would have it."""
    from licensing.applications import entry
    from licensing.applications.services import application_create
    from tests.factories import issue_authorization

    cnpj = CNPJ().generate()
    previous, _ = issue_authorization(holder=applicant, holder_type="pj", company_name=COMPANY, cnpj=cnpj)
    monkeypatch.setattr(entry.rules, "renewal_term", lambda **kwargs: [])
    renewal = application_create(actor=applicant, applicant=applicant, kind="renewal", modality="taxi",
                                 steps=("modality",))
    assert renewal.previous_authorization == previous
    assert (renewal.holder_type, renewal.company_name, renewal.cnpj) == ("pj", COMPANY, cnpj)


@pytest.mark.django_db
def test_pack_key_is_read_by_the_code():
    from portal.pack_keys import PARAMS

    assert PARAMS["grant.holder_types"].read


# --- the wizard's first step -------------------------------------------------------------------


@pytest.mark.django_db
def test_wizard_offers_the_company_only_where_the_law_admits_it(load_pack, web, applicant):
    from django.urls import reverse

    load_pack("alegre")
    body = web(applicant).get(reverse("licensing-application-new")).content.decode()
    assert "Razão social" not in body and "Pessoa jurídica" not in body
    load_pack("arapora")
    body = web(applicant).get(reverse("licensing-application-new")).content.decode()
    assert "Pessoa jurídica (empresa)" in body and "Razão social" in body and "CNPJ" in body
    assert "condutor responsável" in body and "art. 4, §1 e §2" in body


@pytest.mark.django_db
def test_wizard_pf_only_pack_refuses_a_posted_company(alegre, web, applicant):
    from django.urls import reverse

    open_call("taxi")
    r = web(applicant).post(reverse("licensing-application-new"),
                            {"modality": "taxi", "kind": "new", **company()})
    assert r.status_code == 400
    assert alegre.basis("grant.holder_types", "taxi") in r.content.decode()
    assert not Application.objects.exists()


@pytest.mark.django_db
def test_wizard_company_with_invalid_cnpj_names_the_field_then_is_created(arapora, web, applicant):
    from django.urls import reverse

    open_call("taxi")
    me = web(applicant)
    data = {"modality": "taxi", "kind": "new", "bid_amount": "2000.00", "holder_type": "pj", "company_name": COMPANY,
            "cnpj": "11.222.333/0001-82"}
    r = me.post(reverse("licensing-application-new"), data)
    body = r.content.decode()
    assert r.status_code == 400 and "CNPJ inválido" in body and 'href="#id_cnpj"' in body, body[:3000]
    assert not Application.objects.exists()
    cnpj = CNPJ().generate(mask=True)
    r = me.post(reverse("licensing-application-new"), {**data, "cnpj": cnpj})
    assert r.status_code == 302, r.content.decode()[:2000]
    app = Application.objects.get(applicant=applicant)
    assert (app.holder_type, app.company_name, app.cnpj) == ("pj", COMPANY, "".join(c for c in cnpj if c.isdigit()))
    review = me.get(reverse("licensing-application-step", kwargs={"pk": app.pk, "step": "review"})).content.decode()
    assert COMPANY in review and cnpj in review and "condutor responsável" in review
    detail = me.get(reverse("licensing-application", kwargs={"pk": app.pk})).content.decode()
    assert COMPANY in detail and cnpj in detail


@pytest.mark.django_db
def test_transfer_of_a_companys_permission_only_on_art_8_i(arapora, applicant):
    from licensing.requests.kinds import transfer
    from portal.exceptions import RuleViolation
    from tests.factories import issue_authorization

    auth, _ = issue_authorization(holder=applicant, holder_type="pj", company_name=COMPANY, cnpj=CNPJ().generate())
    with pytest.raises(RuleViolation) as exc:
        transfer.clean(arapora, auth, {"ground": "death"}, arapora.today(), None)
    assert exc.value.field == "ground" and "art. 8" in exc.value.legal_basis


@pytest.mark.django_db
def test_an_amendment_of_a_companys_act_names_the_company(arapora, applicant):
    """The act that amends a permission names whom it was granted to, as the act did."""
    from licensing.grants.documents import amendment_pdf
    from licensing.grants.services import amendment_issue
    from tests.factories import issue_authorization

    auth, _ = issue_authorization(holder=applicant)
    cnpj = CNPJ().generate()
    Authorization.objects.filter(pk=auth.pk).update(holder_type="pj", company_name=COMPANY, cnpj=cnpj)
    auth.refresh_from_db()
    amendment = amendment_issue(actor=None, authorization=auth, kind="auxiliary_add", reason="Inclusão",
                                changes=[{"label": "Condutor auxiliar incluído", "before": "", "after": "Fulano"}])
    text = " ".join("".join(p.extract_text() for p in PdfReader(io.BytesIO(amendment_pdf(amendment))).pages).split())
    assert f"outorgada a {COMPANY}" in text and f"{cnpj[:2]}.{cnpj[2:5]}.{cnpj[5:8]}/" in text
    assert auth.holder_display_name == COMPANY
