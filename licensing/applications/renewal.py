"""Renewal from the holder's grant page ("Renovar"): a renewal draft with what the grant already
holds — the current vehicle, the holder's CNH and the active auxiliary drivers — so that the
wizard asks only what changed. The entry rules are judged by the wizard's steps as usual."""

from __future__ import annotations

from django.db import transaction

from licensing.applications.models import (
    ApplicantProfile,
    Application,
    ApplicationKind,
    ApplicationStatus,
)
from licensing.applications.services import application_create
from licensing.grants.models import Authorization
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
    return application
