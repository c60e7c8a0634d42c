"""Renewal from the holder's grant page ("Renovar"): a renewal draft with what the grant already
holds — the current vehicle, the holder's CNH, the active auxiliary drivers and the documents of
the previous application that still hold (``carry_documents``) — so that the wizard asks only
what changed or expired. The entry rules are judged by the wizard's steps as usual."""

from __future__ import annotations

import posixpath

from django.core.files.base import ContentFile
from django.db import transaction

from licensing.applications import rules
from licensing.applications.models import (
    ApplicantProfile,
    Application,
    ApplicationDocument,
    ApplicationKind,
    ApplicationStatus,
    DocumentStatus,
)
from licensing.applications.selectors import required_documents
from licensing.applications.services import application_create, vehicle_document_codes
from licensing.grants.models import Authorization
from portal import regulation
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import InvalidTransition

DRIVER_FIELDS = ("cnh_number", "cnh_category", "cnh_first_issued", "cnh_ear")
VEHICLE_FIELDS = ("plate", "renavam", "make", "model", "color", "manufacture_year", "first_registration_date",
                  "doors", "seats", "engine_cc")


def _driver(authorization: Authorization) -> dict | None:
    """The holder's CNH as last declared for this grant (its application), else the profile."""
    source = (Application.objects.filter(authorization=authorization).order_by("-id").first()
              or ApplicantProfile.objects.filter(user=authorization.holder).first())
    if source is None or not getattr(source, "cnh_category", ""):
        return None
    return {f: getattr(source, f) for f in DRIVER_FIELDS}


def _auxiliaries(authorization: Authorization) -> list[dict]:
    from licensing.requests.models import AuxiliaryDriver, AuxiliaryStatus

    return [{"cpf": a.person.cpf, "name": a.person.display_name, "birth_date": a.person.birth_date,
             "cnh_number": a.cnh_number, "cnh_category": a.cnh_category, "cnh_first_issued": a.cnh_first_issued,
             "cnh_ear": a.cnh_ear}
            for a in AuxiliaryDriver.objects.filter(authorization=authorization, status=AuxiliaryStatus.ACTIVE)
            .select_related("person").order_by("added_on", "pk")]


@transaction.atomic
def renewal_start(*, actor, authorization: Authorization) -> Application:
    """The renewal draft of ``authorization`` (an existing one is returned as it is). The
    modality's rules that refuse a renewal today (term, window, number of renewals) refuse it
    here, with their article."""
    holder = authorization.holder
    existing = Application.objects.filter(applicant=holder, kind=ApplicationKind.RENEWAL, status=ApplicationStatus.DRAFT,
                                          previous_authorization=authorization).first()
    if existing is not None:
        return existing
    if Application.objects.filter(applicant=holder, status=ApplicationStatus.DRAFT).exists():
        raise InvalidTransition("Você já tem um requerimento em rascunho: conclua-o ou desista dele antes de pedir a "
                                "renovação.", field="non_field_errors")
    vehicle = authorization.vehicle
    application = application_create(
        actor=actor, applicant=holder, kind=ApplicationKind.RENEWAL, modality=authorization.modality,
        vehicle={f: getattr(vehicle, f) for f in VEHICLE_FIELDS} if vehicle else None,
        driver=_driver(authorization), auxiliaries=_auxiliaries(authorization), steps=("modality",))
    application.wizard_step = "vehicle"
    application.save(update_fields=["wizard_step"])
    carry_documents(actor=actor, application=application, authorization=authorization)
    return application


def _person_of(doc: ApplicationDocument) -> str:
    """Whose document: "" for the holder, the CPF for an auxiliary driver's item."""
    return doc.auxiliary.cpf if doc.auxiliary_id else ""


def carry_documents(*, actor, application: Application, authorization: Authorization) -> list[ApplicationDocument]:
    """Copy into the renewal draft the documents of the application that gave ``authorization``
    which still hold (rules.document_reusable: accepted, and without expiry or with a validity
    date after today, as the pack says of each item), matched by item and person — the holder's
    to the holder, an auxiliary's to the same auxiliary (by CPF). Each copy is a file of its own,
    accepted, pointing at its origin (``carried_from``), so the clerk sees where it came from and
    may still reject it; one audit entry lists them. The vehicle's items (``vehicle = true``) are
    carried only for the same vehicle (and leave the draft if its vehicle changes)."""
    pack = regulation.current()
    today = pack.today()
    source = Application.objects.filter(authorization=authorization).order_by("-id").first()
    if source is None:
        return []
    validity = {d["code"]: d.get("validity") for d in pack.data.get("documents", [])}
    # a CRLV or an insurance proves something of the vehicle it was accepted for: not carried
    # when the grant's vehicle is another one now (a substitution after the grant)
    skip = vehicle_document_codes() if source.vehicle_id != application.vehicle_id else set()
    previous = {}
    for doc in (source.documents.filter(superseded_by__isnull=True, purged_at__isnull=True)
                .exclude(code__in=skip).select_related("auxiliary")):
        if rules.document_reusable(validity=validity.get(doc.code), accepted=doc.status == DocumentStatus.ACCEPTED,
                                   valid_until=doc.valid_until, today=today) and doc.file:
            previous[(_person_of(doc), doc.code)] = doc
    carried = []
    for item in required_documents(application):
        person = item.auxiliary.cpf if item.auxiliary is not None else ""
        old = previous.get((person, item.base_code))
        if old is None or application.documents.filter(type=item.code).exists():
            continue
        with old.file.open("rb") as fh:
            content = ContentFile(fh.read(), name=posixpath.basename(old.file.name))
        copy = ApplicationDocument(
            application=application, type=item.code, code=item.base_code, auxiliary=item.auxiliary,
            original_name=old.original_name, mime=old.mime, size=old.size, status=DocumentStatus.ACCEPTED,
            reason="", uploaded_by=actor, reviewed_by=old.reviewed_by, reviewed_at=old.reviewed_at,
            valid_until=old.valid_until, carried_from=old)
        copy.file.save(content.name, content, save=False)
        copy.save()
        carried.append(copy)
    if carried:
        audit_log(actor=actor, obj=application, action=AuditAction.DOCUMENTS_CARRIED_OVER, to_state=application.status,
                  reason=f"Documentos ainda válidos do requerimento {source.protocol} aproveitados",
                  data={"from_application": source.pk, "documents": [
                      {"type": c.type, "from_document": c.carried_from_id,
                       "valid_until": c.valid_until.isoformat() if c.valid_until else None} for c in carried]})
    return carried
