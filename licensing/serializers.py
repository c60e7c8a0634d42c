"""JSON shapes of applications and inspections (API.md), shared by API views."""

from __future__ import annotations

from django.utils import timezone

from licensing.models import Application, Inspection
from portal import regulation
from portal.audit import history_for
from portal.roles import Role, has_role


def _iso(value):
    return value.isoformat() if value else None


def inspection_result(inspection: Inspection | None) -> dict | None:
    if inspection is None or not inspection.has_result:
        return None
    return {"approved": inspection.approved, "checklist": inspection.checklist, "notes": inspection.notes,
            "recorded_at": _iso(inspection.recorded_at),
            "recorded_by": inspection.recorded_by.display_name if inspection.recorded_by else None}


def inspection_payload(application: Application) -> dict:
    inspection = application.inspections.select_related("agent", "recorded_by").order_by("-scheduled_for", "-id").first()
    items = regulation.current().inspection_items(application.modality)
    return {
        "application": application.pk,
        "scheduled_for": _iso(timezone.localtime(inspection.scheduled_for)) if inspection else None,
        "agent": inspection.agent_id if inspection else None,
        "agent_name": inspection.agent.display_name if inspection else None,
        "checklist_items": [{"code": i["code"], "label": i["label"], "legal_basis": i["legal_basis"]} for i in items],
        "result": inspection_result(inspection),
        "vehicle": {"plate": application.vehicle.display_plate, "make": application.vehicle.make,
                    "model": application.vehicle.model, "color": application.vehicle.color,
                    "manufacture_year": application.vehicle.manufacture_year} if application.vehicle else None,
    }


def application_detail(application: Application, viewer) -> dict:
    from licensing.services.applications import required_documents

    v = application.vehicle
    data = {
        "id": application.pk,
        "kind": application.kind,
        "modality": application.modality,
        "status": application.status,
        "status_label": application.get_status_display(),
        "protocol": application.protocol,
        "created_at": _iso(application.created_at),
        "submitted_at": _iso(application.submitted_at),
        "decided_at": _iso(application.decided_at),
        "decision_reason": application.decision_reason,
        "vehicle": {"plate": v.plate, "renavam": v.renavam, "make": v.make, "model": v.model, "color": v.color,
                    "manufacture_year": v.manufacture_year, "first_registration_date": _iso(v.first_registration_date),
                    "doors": v.doors, "seats": v.seats, "engine_cc": v.engine_cc} if v else None,
        "inspection": inspection_payload(application),
    }
    if has_role(viewer, Role.AGENT) and not has_role(viewer, Role.CLERK, Role.ADMIN) \
            and application.applicant_id != viewer.pk:
        return data  # agents: only what the vistoria needs
    docs = list(application.documents.select_related("auxiliary").order_by("type", "-uploaded_at", "-id"))

    def doc(d):
        return {"id": d.pk, "type": d.type, "status": d.status, "reason": d.reason, "uploaded_at": _iso(d.uploaded_at),
                "reviewed_at": _iso(d.reviewed_at), "mime": d.mime, "size": d.size,
                "superseded_by": d.superseded_by_id}

    data.update({
        "applicant": {"id": application.applicant_id, "name": application.applicant.display_name},
        "driver": {"cnh_number": application.cnh_number, "cnh_category": application.cnh_category,
                   "cnh_first_issued": _iso(application.cnh_first_issued), "cnh_ear": application.cnh_ear,
                   "cnh_points": application.cnh_points},
        "schooling": application.schooling,
        "dependents": application.dependents,
        "bid_amount": f"{application.bid_amount:.2f}" if application.bid_amount is not None else None,
        "auxiliary_drivers": [{"position": a.position, "cpf": a.cpf, "name": a.name, "cnh_category": a.cnh_category,
                               "cnh_first_issued": _iso(a.cnh_first_issued), "cnh_ear": a.cnh_ear}
                              for a in application.auxiliaries.all()],
        "required_documents": [d.as_dict() for d in required_documents(application)],
        "documents": [doc(d) for d in docs if d.superseded_by_id is None],
        "previous_documents": [doc(d) for d in docs if d.superseded_by_id is not None],
        "requirements": [{"id": r.pk, "text": r.text, "document_type": r.document_type, "due_date": _iso(r.due_date),
                          "created_at": _iso(r.created_at), "answered_at": _iso(r.answered_at)}
                         for r in application.requirements.all()],
        "authorization": ({"id": application.authorization.pk, "number": application.authorization.number,
                           "valid_until": _iso(application.authorization.valid_until),
                           "verification_code": application.authorization.verification_code}
                          if application.authorization else None),
        "tff": application_tff_payload(application),
        "history": [{"at": _iso(e.at), "action": e.action, "from": e.from_state, "to": e.to_state, "reason": e.reason,
                     "by": e.actor.display_name if e.actor else e.actor_label} for e in history_for(application)],
    })
    return data


def application_tff_payload(application: Application) -> dict | None:
    """The TFF of the application's year where the law sets one: the DAM (if issued) and
    whether it is settled for the grant (DAM paid, or receipt accepted by the clerk)."""
    from licensing.services_fees import application_tff

    tff = application_tff(application)
    if tff is None:
        return None
    fee = tff.fee
    return {
        "year": tff.year, "units": f"{tff.units.value:.2f}", "legal_basis": tff.legal_basis,
        "amount": f"{tff.amount:.2f}" if tff.amount is not None else None,
        "receipt_document": tff.receipt_code or None, "settled": tff.settlement.settled,
        "receipt_waived": tff.settlement.receipt_waived,
        "fee": {"id": fee.pk, "number": fee.number, "amount": f"{fee.amount:.2f}", "due_date": _iso(fee.due_date),
                "status": fee.status, "paid_on": _iso(fee.paid_on),
                "dam_pdf": f"/api/v1/fees/{fee.pk}/dam.pdf"} if fee else None,
    }
