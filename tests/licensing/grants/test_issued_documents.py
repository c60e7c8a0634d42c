"""Issued documents are permanent: rendered once, signed (PAdES), served byte for byte."""

from __future__ import annotations

import io
import re

import pytest
from django.core.exceptions import ValidationError
from django.db import connection, transaction

from licensing.grants.documents import alvara_pdf, authorization_pdf
from licensing.models import AlvaraStatus
from portal.issued import identical_to_issued, sha256_hex
from portal.models import AuditEntry, IssuedDocument
from portal.signing import validate_pdf
from tests.licensing.requests.helpers import decide, file, grant, inspect, vehicle_data


def pdf_text(data: bytes) -> str:
    pypdf = pytest.importorskip("pypdf")
    return "\n".join(page.extract_text() or "" for page in pypdf.PdfReader(io.BytesIO(data)).pages)


def _substitute(api, applicant, clerk, agent, auth):
    r = file(api, applicant, auth, "substitution", {"ground": "newer", "vehicle": vehicle_data()})
    assert r.status_code == 201, r.json()
    rid = r.json()["id"]
    assert inspect(api, agent, auth, rid).status_code == 200
    assert decide(api, clerk, rid).status_code == 200


@pytest.mark.django_db
def test_act_downloaded_before_and_after_a_substitution_is_byte_identical(itagiba, applicant, clerk, agent, api):
    auth, (old_alvara,) = grant(applicant, manufacture_year=2020)
    old_plate = auth.vehicle.display_plate
    before = api(applicant).get(f"/api/v1/authorizations/{auth.pk}/act.pdf")
    alvara_before = api(applicant).get(f"/api/v1/alvaras/{old_alvara.pk}/pdf")
    assert before.status_code == 200 and before["Content-Type"] == "application/pdf"
    _substitute(api, applicant, clerk, agent, auth)
    after = api(applicant).get(f"/api/v1/authorizations/{auth.pk}/act.pdf")
    assert after.content == before.content
    old_alvara.refresh_from_db()
    assert old_alvara.status == AlvaraStatus.SUPERSEDED
    # the superseded alvará still shows the car it certified; the new one the new car
    assert api(applicant).get(f"/api/v1/alvaras/{old_alvara.pk}/pdf").content == alvara_before.content
    assert old_plate in pdf_text(alvara_before.content)
    new_text = pdf_text(alvara_pdf(old_alvara.superseded_by))
    assert "QWE1R23" in new_text.replace("-", "") and old_plate not in new_text


@pytest.mark.django_db
def test_documents_not_downloaded_are_kept_before_the_grant_changes(itagiba, applicant, clerk, agent, api):
    """Nobody downloaded the act before the substitution: it is still the act as issued."""
    auth, _ = grant(applicant, manufacture_year=2020)
    old_plate = auth.vehicle.display_plate
    _substitute(api, applicant, clerk, agent, auth)
    text = pdf_text(api(applicant).get(f"/api/v1/authorizations/{auth.pk}/act.pdf").content)
    assert old_plate in text


@pytest.mark.django_db
def test_issue_stores_the_pdfs_when_the_transaction_commits(alegre, applicant, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        auth, alvaras = grant(applicant)
    kinds = set(IssuedDocument.objects.values_list("kind", flat=True))
    assert "authorization" in kinds
    stored = IssuedDocument.objects.get(kind="authorization", object_id=str(auth.pk))
    assert stored.sha256 == sha256_hex(bytes(stored.pdf)) and stored.number == auth.number
    assert AuditEntry.objects.filter(action="document_frozen", object_id=str(auth.pk)).exists()
    assert len(alvaras) == IssuedDocument.objects.filter(kind="alvara").count()


@pytest.mark.django_db
def test_pdf_is_signed_and_one_changed_byte_fails_validation(alegre, applicant):
    auth, _ = grant(applicant)
    pdf = authorization_pdf(auth)
    check = validate_pdf(pdf)
    assert check.signed and check.intact and check.trusted and check.covers_whole_file, check.message
    assert "demonstração" in check.signer
    # change one byte inside the signed content (not in the signature's own hex)
    pos = pdf.index(b"/Producer") + 3 if b"/Producer" in pdf else 200
    tampered = pdf[:pos] + bytes([pdf[pos] ^ 0x01]) + pdf[pos + 1:]
    bad = validate_pdf(tampered)
    assert not (bad.intact and bad.trusted and bad.covers_whole_file)
    assert identical_to_issued(pdf) is not None and identical_to_issued(tampered) is None


def test_the_room_of_a_signature_is_estimated_once_per_certificate(alegre, applicant, monkeypatch):
    """pyHanko estimates the room of a signature by signing a dummy digest first; the room of the
    first signature by a certificate is reused, and each PDF is still validly signed."""
    from pyhanko.sign.signers.pdf_signer import PdfSigningSession

    from licensing.grants.documents import _render_authorization
    from portal import signing

    estimates = []
    estimate = PdfSigningSession.estimate_signature_container_size

    async def counted(self, *args, **kwargs):
        estimates.append(1)
        return await estimate(self, *args, **kwargs)

    monkeypatch.setattr(PdfSigningSession, "estimate_signature_container_size", counted)
    monkeypatch.setattr(signing, "_reserved", {})
    auth, _ = grant(applicant)
    act = _render_authorization(auth)  # as rendered, before it is signed
    first, _ = signing.sign_pdf(act, reason="um", location="x")
    second, _ = signing.sign_pdf(act, reason="dois", location="x")
    assert len(estimates) == 1 and len(signing._reserved) == 1
    for pdf in (first, second):
        check = validate_pdf(pdf)
        assert check.signed and check.intact and check.trusted and check.covers_whole_file, check.message
    # a room that turns out too small (another timestamp authority's chain): signed again, estimated
    key = next(iter(signing._reserved))
    signing._reserved[key] = 100
    third, _ = signing.sign_pdf(act, reason="três", location="x")
    assert validate_pdf(third).intact and len(estimates) == 2 and signing._reserved[key] > 100


@pytest.mark.django_db
def test_unsigned_when_no_certificate_is_configured(alegre, applicant, settings):
    settings.SIGNING_CERT_FILE = ""
    settings.SIGNING_DEMO_CERTIFICATE = False
    auth, _ = grant(applicant)
    pdf = authorization_pdf(auth)
    assert not validate_pdf(pdf).signed
    assert IssuedDocument.objects.get(kind="authorization").signed is False
    assert "sem assinatura digital" in pdf_text(pdf)


@pytest.mark.django_db
def test_the_pdf_says_it_is_signed_with_a_demonstration_certificate(alegre, applicant):
    auth, _ = grant(applicant)
    text = pdf_text(authorization_pdf(auth))
    assert "assinado digitalmente" in text and "DEMONSTRAÇÃO" in text


@pytest.mark.django_db
def test_each_municipality_signs_its_own_documents(two_municipalities):
    """In one installation with two municipalities, each one's act and alvará are signed (and
    say so on the page) by its own Prefeitura's demonstration certificate, never the other's."""
    from portal import tenancy
    from tests.factories import issue_authorization

    town = two_municipalities
    for scope, pack, other in ((town.a, town.pack_a, town.pack_b), (town.b, town.pack_b, town.pack_a)):
        with tenancy.activate(scope):
            auth, alvaras = issue_authorization()
            for pdf in (authorization_pdf(auth), *(alvara_pdf(a) for a in alvaras)):
                check = validate_pdf(pdf)
                assert check.signed and check.intact and check.trusted, check.message
                assert check.signer == f"Prefeitura Municipal de {pack.name} (demonstração)"
                footer = re.sub(r"\s+", " ", pdf_text(pdf))
                assert f"por Prefeitura Municipal de {pack.name} (demonstração)" in footer
                assert other.name not in check.signer and f"Municipal de {other.name}" not in footer
            stored = IssuedDocument.objects.get(kind="authorization", object_id=str(auth.pk))
            assert pack.name in stored.signer and other.name not in stored.signer


def _certificates_for(directory, settings, *packs):
    """A PKCS#12 file per municipality, ``<slug>.p12``, and its password in ``<slug>.senha``,
    configured as the installation's certificates (``{municipio}``)."""
    from portal.signing import create_demo_certificate

    for pack in packs:
        create_demo_certificate(directory / f"{pack.slug}.p12", f"Prefeitura Municipal de {pack.name}")
        (directory / f"{pack.slug}.senha").write_text("demonstracao\n")
    settings.SIGNING_DEMO_CERTIFICATE = False
    settings.SIGNING_CERT_FILE = str(directory / "{municipio}.p12")
    settings.SIGNING_CERT_PASSWORD_FILE = str(directory / "{municipio}.senha")


@pytest.mark.django_db
def test_a_certificate_per_municipality_signs_that_municipalitys_documents(two_municipalities, settings, tmp_path):
    from portal import tenancy
    from tests.factories import issue_authorization

    town = two_municipalities
    _certificates_for(tmp_path, settings, town.pack_a, town.pack_b)
    for scope, pack, other in ((town.a, town.pack_a, town.pack_b), (town.b, town.pack_b, town.pack_a)):
        with tenancy.activate(scope):
            auth, alvaras = issue_authorization()
            for pdf in (authorization_pdf(auth), *(alvara_pdf(a) for a in alvaras)):
                check = validate_pdf(pdf)
                assert check.signed and check.intact, check.message
                assert check.signer.startswith(f"Prefeitura Municipal de {pack.name}")
                assert other.name not in check.signer


@pytest.mark.django_db
def test_a_municipality_without_its_certificate_issues_unsigned_documents_that_say_so(two_municipalities, settings,
                                                                                        tmp_path):
    from portal import tenancy
    from tests.factories import issue_authorization

    town = two_municipalities
    _certificates_for(tmp_path, settings, town.pack_a)  # only A's certificate was installed
    with tenancy.activate(town.b):
        auth, _ = issue_authorization()
        pdf = authorization_pdf(auth)
        assert not validate_pdf(pdf).signed
        assert "sem assinatura digital" in pdf_text(pdf)
        assert IssuedDocument.objects.get(kind="authorization", object_id=str(auth.pk)).signed is False
    with tenancy.activate(town.a):
        auth, _ = issue_authorization()
        assert validate_pdf(authorization_pdf(auth)).signed
    # A's certificate without its password file is the installation's mistake, said as such
    (tmp_path / f"{town.pack_a.slug}.senha").unlink()
    with tenancy.activate(town.a), pytest.raises(RuntimeError, match="senha do certificado"):
        from portal.signing import sign_pdf

        sign_pdf(b"%PDF-1.7", reason="x", location="y")


@pytest.mark.django_db
@pytest.mark.parametrize("slug", ["alegre", "itagiba", "arapora"])
def test_alvara_carries_no_full_cpf(load_pack, slug, applicant):
    load_pack(slug)
    auth, alvaras = grant(applicant)
    for alvara in alvaras:
        text = pdf_text(alvara_pdf(alvara))
        assert not re.search(r"\d{3}\.?\d{3}\.?\d{3}-?\d{2}", text), text
        assert applicant.cpf not in re.sub(r"\D", "", text)


@pytest.mark.django_db
def test_orm_refuses_to_change_or_delete_an_issued_document(alegre, applicant):
    auth, _ = grant(applicant)
    authorization_pdf(auth)
    doc = IssuedDocument.objects.get(kind="authorization")
    doc.number = "999/2099"
    with pytest.raises(ValidationError):
        doc.save()
    with pytest.raises(ValidationError):
        doc.delete()
    with pytest.raises(ValidationError):
        IssuedDocument.objects.filter(pk=doc.pk).update(number="x")
    with pytest.raises(ValidationError):
        IssuedDocument.objects.all().delete()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_postgresql_refuses_update_delete_of_issued_documents_and_truncate_of_the_audit(alegre, applicant):
    if connection.vendor != "postgresql":
        pytest.skip("gatilhos do PostgreSQL")
    auth, _ = grant(applicant)
    authorization_pdf(auth)
    table = IssuedDocument._meta.db_table
    for sql in (f"UPDATE {table} SET sha256 = 'x'", f"DELETE FROM {table}",  # noqa: S608
                f"TRUNCATE {table} CASCADE", f"TRUNCATE {AuditEntry._meta.db_table} CASCADE"):
        with pytest.raises(Exception, match="(?i)protect|recusado|cannot"):  # noqa: B017
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(sql)
    assert IssuedDocument.objects.count() == 1 and AuditEntry.objects.exists()


@pytest.mark.django_db
def test_verification_of_a_superseded_alvara_says_so_and_what_it_certified(itagiba, applicant, clerk, agent, api):
    auth, (old_alvara,) = grant(applicant, manufacture_year=2020)
    old_plate, old_make = auth.vehicle.display_plate, auth.vehicle.make
    act = api(applicant).get(f"/api/v1/authorizations/{auth.pk}/act.pdf").content
    _substitute(api, applicant, clerk, agent, auth)
    old_alvara.refresh_from_db()
    new = old_alvara.superseded_by
    body = api().get(f"/api/v1/verify/{old_alvara.verification_code}/").json()
    assert body["valid"] is False and body["status"] == "superseded"
    assert body["plate"] == old_plate and body["vehicle"]["make"] == old_make
    assert body["superseded_by"] == {"document": new.doc_name, "number": new.number, "code": new.verification_code}
    assert body["sha256"] == sha256_hex(alvara_pdf(old_alvara))
    current = api().get(f"/api/v1/verify/{new.verification_code}/").json()
    assert current["valid"] is True and current["superseded_by"] is None
    assert current["vehicle"] == {"make": "Fiat", "model": "Cronos", "color": "branca"}
    assert current["drivers"] == [body["holder"]]
    grant_body = api().get(f"/api/v1/verify/{auth.verification_code}/").json()
    assert grant_body["sha256"] == sha256_hex(act)
    page = api().get(f"/verificar/{old_alvara.verification_code}/").content.decode()
    assert "Substituído por" in page and new.number in page
    assert applicant.cpf not in re.sub(r"\D", "", str(body) + page)
