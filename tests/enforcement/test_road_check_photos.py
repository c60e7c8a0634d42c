"""The agent's road check lists who may drive the vehicle (holder, registered auxiliaries, the
preposto in office) and, where the pack asks for a photograph (a [[documents]] item marked
``photo = true``), shows the accepted file beside the name: to agents only, never public (issue 19)."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.files.base import ContentFile

from enforcement import rules
from licensing.applications.models import (
    Application,
    ApplicationAuxiliary,
    ApplicationDocument,
    DocumentStatus,
)
from licensing.requests.models import AuxiliaryDriver
from portal import regulation
from portal.models import AuditEntry
from tests.conftest import make_user
from tests.licensing.requests.helpers import aux_data, decide, file, grant, new_cpf

pytestmark = pytest.mark.django_db

PHOTO_ITEM = {"code": "foto_3x4", "label": "Fotografia 3x4 recente", "legal_basis": "Decreto de teste nº 1, art. 2",
              "applies_to": "both", "photo": True}


def _png() -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (6, 8), (20, 60, 200)).save(buf, format="PNG")
    return buf.getvalue()


def _ask_for_photo():
    """The active pack with a photograph item added (none of the three real laws asks for one)."""
    from portal.models import Municipality

    muni = Municipality.objects.get(is_active=True)
    data = muni.pack
    data["documents"].append(PHOTO_ITEM)
    muni.pack = data
    muni.save(update_fields=["pack"])
    regulation.invalidate()


def _photo(person, *, auxiliary_of=None, status=DocumentStatus.ACCEPTED, mime="image/png", code="foto_3x4"):
    """An application document for ``person``: their own (holder) or, with ``auxiliary_of``,
    one sent for them as the auxiliary named in another person's application."""
    owner = auxiliary_of or person
    app = Application.objects.create(applicant=owner, modality="taxi", status="granted")
    aux = None
    if auxiliary_of is not None:
        aux = ApplicationAuxiliary.objects.create(application=app, position=1, cpf=person.cpf, name=person.name,
                                                  person=person)
    body = _png() if mime.startswith("image/") else b"%PDF-1.4\n%%EOF\n"
    return ApplicationDocument.objects.create(
        application=app, type=f"{code}:aux1" if aux else code, code=code, auxiliary=aux, status=status,
        file=ContentFile(body, name="foto.png" if mime == "image/png" else "foto.pdf"), mime=mime, size=len(body),
    )


def _status(api, user, auth):
    r = api(user).get(f"/api/v1/vehicles/{auth.vehicle.plate}/status/")
    assert r.status_code == 200, r.content
    return r.json()


# --- the pure function -----------------------------------------------------------------------
def test_only_items_marked_photo_true_are_photographs():
    items = [{"code": "a", "photo": True}, {"code": "b"}, {"code": "c", "photo": False}, {"code": "d", "photo": "true"}]
    assert [i["code"] for i in rules.photo_document_items(items)] == ["a"]
    assert rules.photo_document_items([]) == []


@pytest.mark.parametrize("slug", ["alegre", "itagiba", "arapora"])
def test_no_law_here_asks_for_a_photograph(load_pack, slug):
    pack = load_pack(slug)
    assert rules.photo_document_items(pack.data.get("documents", [])) == []


# --- who may drive ------------------------------------------------------------------------------
def test_road_check_lists_holder_auxiliary_and_preposto(alegre, applicant, clerk, agent, api):
    auth, _ = grant(applicant)
    aux_cpf = new_cpf()
    r = file(api, applicant, auth, "auxiliary_add", aux_data(cpf=aux_cpf, name="Bruno Auxiliar"))
    assert decide(api, clerk, r.json()["id"]).status_code == 200, r.json()
    preposto = make_user("preposto", "requerente", cpf=new_cpf(), name="Paulo Preposto")
    r = file(api, applicant, auth, "preposto", {"preposto_cpf": preposto.cpf, "permanent": True,
                                                "invalidity_on": (alegre.today() - timedelta(days=10)).isoformat(),
                                                "medical_report": "Laudo 12/2026, Dr. Silva"})
    assert decide(api, clerk, r.json()["id"]).status_code == 200, r.json()
    drivers = _status(api, agent, auth)["drivers"]
    assert [(d["role"], d["name"]) for d in drivers] == [
        ("autorizatário", applicant.display_name), ("condutor auxiliar", "Bruno Auxiliar"),
        ("preposto", "Paulo Preposto")]
    assert all(d["photo_asked"] is False and d["photo_url"] is None for d in drivers)
    assert drivers[1]["cpf"] == f"***.{aux_cpf[3:6]}.{aux_cpf[6:9]}-**"  # masked (LGPD)


def test_a_removed_auxiliary_is_no_longer_listed(alegre, applicant, clerk, agent, api):
    auth, _ = grant(applicant)
    r = file(api, applicant, auth, "auxiliary_add", aux_data(name="Bruno Auxiliar"))
    decide(api, clerk, r.json()["id"])
    AuxiliaryDriver.objects.filter(authorization=auth).update(status="removed")
    assert [d["role"] for d in _status(api, agent, auth)["drivers"]] == ["autorizatário"]


# --- the photograph ----------------------------------------------------------------------------
def test_photo_shown_to_the_agent_and_served_only_to_agents(alegre, applicant, clerk, agent, judge, outsider, api, client):
    _ask_for_photo()
    auth, _ = grant(applicant)
    doc = _photo(applicant)
    status = _status(api, agent, auth)
    holder = status["drivers"][0]
    assert holder["photo_asked"] is True and holder["photo_legal_basis"] == "Decreto de teste nº 1, art. 2"
    assert holder["photo_url"] == f"/fiscalizacao/placa/foto/{doc.pk}/"
    # the clerk's answer carries no link: the photograph is for the road check
    assert _status(api, clerk, auth)["drivers"][0]["photo_url"] is None
    for user, expected in ((clerk, 403), (judge, 403), (applicant, 403), (outsider, 403)):
        client.force_login(user)
        assert client.get(holder["photo_url"]).status_code == expected, user
    client.logout()
    assert client.get(holder["photo_url"]).status_code == 302  # anonymous: to the login page
    client.force_login(agent)
    r = client.get(holder["photo_url"])
    assert r.status_code == 200 and r["Content-Type"] == "image/png"
    assert "sandbox" in r["Content-Security-Policy"]
    entry = AuditEntry.objects.get(action="document_viewed", object_id=str(doc.application_id))
    assert entry.actor == agent and entry.data["document"] == doc.pk


def test_auxiliary_photo_comes_from_the_application_that_named_them(alegre, applicant, clerk, agent, api):
    _ask_for_photo()
    auth, _ = grant(applicant)
    r = file(api, applicant, auth, "auxiliary_add", aux_data(name="Bruno Auxiliar"))
    decide(api, clerk, r.json()["id"])
    aux_person = AuxiliaryDriver.objects.get(authorization=auth).person
    doc = _photo(aux_person, auxiliary_of=applicant)
    holder, aux = _status(api, agent, auth)["drivers"]
    assert holder["photo_url"] is None and holder["photo_asked"] is True  # the holder sent none
    assert aux["photo_url"] == f"/fiscalizacao/placa/foto/{doc.pk}/"


@pytest.mark.parametrize("kind", ["refused", "pending", "superseded", "purged", "pdf", "other_item"])
def test_no_photo_from_a_file_that_is_not_an_accepted_photograph(alegre, applicant, agent, api, client, kind):
    from django.utils import timezone

    _ask_for_photo()
    auth, _ = grant(applicant)
    doc = _photo(applicant, status={"refused": DocumentStatus.REJECTED, "pending": DocumentStatus.PENDING}.get(
        kind, DocumentStatus.ACCEPTED), mime="application/pdf" if kind == "pdf" else "image/png",
        code="identificacao" if kind == "other_item" else "foto_3x4")
    if kind == "superseded":
        newer = _photo(applicant, status=DocumentStatus.PENDING)
        ApplicationDocument.objects.filter(pk=doc.pk).update(superseded_by=newer)
    if kind == "purged":
        ApplicationDocument.objects.filter(pk=doc.pk).update(purged_at=timezone.now())
    assert _status(api, agent, auth)["drivers"][0]["photo_url"] is None
    client.force_login(agent)
    assert client.get(f"/fiscalizacao/placa/foto/{doc.pk}/").status_code == 404


def test_no_photo_when_the_pack_does_not_ask_for_one(alegre, applicant, agent, api, client):
    auth, _ = grant(applicant)
    doc = _photo(applicant, code="identificacao")  # an accepted image, but no item is a photograph
    assert _status(api, agent, auth)["drivers"][0] == {**_status(api, agent, auth)["drivers"][0],
                                                       "photo_asked": False, "photo_url": None}
    client.force_login(agent)
    assert client.get(f"/fiscalizacao/placa/foto/{doc.pk}/").status_code == 404


def test_lookup_page_shows_the_drivers_with_photo(alegre, applicant, agent, client):
    _ask_for_photo()
    auth, _ = grant(applicant)
    doc = _photo(applicant)
    client.force_login(agent)
    html = client.get("/fiscalizacao/placa/", {"plate": auth.vehicle.plate}).content.decode()
    assert "Condutores autorizados" in html
    assert f'src="/fiscalizacao/placa/foto/{doc.pk}/" alt="Foto de {applicant.display_name}"' in html
    assert "Foto pedida em Decreto de teste nº 1, art. 2" in html
    assert auth.vehicle.make in html and auth.vehicle.model in html and auth.vehicle.color in html


def test_clerk_lookup_page_shows_the_drivers_without_photo_or_placeholder(alegre, applicant, clerk, client):
    _ask_for_photo()
    auth, _ = grant(applicant)
    _photo(applicant)
    client.force_login(clerk)
    html = client.get("/fiscalizacao/placa/", {"plate": auth.vehicle.plate}).content.decode()
    assert "Condutores autorizados" in html and applicant.display_name in html
    assert "/fiscalizacao/placa/foto/" not in html and "sem foto" not in html  # the photo is the agents'
