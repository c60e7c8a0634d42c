"""PDFs of an application: receipt, inspection report, declaration."""

from __future__ import annotations

from django.urls import reverse
from django.utils import timezone

from licensing.applications.models import Application
from licensing.grants.documents import _base
from portal import regulation
from portal.pdf import qr_png_data_uri, render_pdf
from portal.site_url import site_url
from portal.validators import format_cpf

DECLARATION_PREFIX = "declaracao_anexo"


def issued_receipt_pdf(application: Application) -> bytes:
    """The protocol receipt as issued: rendered and signed once (first download), then the same
    bytes forever (documents replaced later do not rewrite the receipt)."""
    from portal.issued import frozen_pdf

    pack = regulation.current()
    return frozen_pdf(application, kind="receipt", render=lambda: receipt_pdf(application),
                      number=application.protocol or "", reason=f"Comprovante de protocolo {application.protocol}",
                      location=f"{pack.name}/{pack.uf}").pdf


def receipt_pdf(application: Application) -> bytes:
    from licensing.applications.selectors import current_documents, required_documents

    pack = regulation.current()
    sent = current_documents(application)
    documents = [{"label": item.label, "doc": sent[item.code]} for item in required_documents(application)
                 if item.code in sent]
    ctx = _base(pack, title="Comprovante de protocolo", number=application.protocol or "",
                legal_basis=pack.act("authorization").get("legal_basis", ""))
    follow = site_url() + reverse("licensing-application", kwargs={"pk": application.pk})
    ctx.update({"follow_url": follow, "qr": qr_png_data_uri(follow), "qr_caption": "acompanhar o requerimento",
                "number_label": "Protocolo"})
    ctx.update({"obj": application, "documents": documents, "holder_cpf": format_cpf(application.applicant.cpf or ""),
                "modality_label": pack.modality_label(application.modality),
                "submitted_local": timezone.localtime(application.submitted_at, pack.tz) if application.submitted_at else None})
    return render_pdf("licensing/applications/pdf/receipt.html", ctx)


def inspection_pdf(application: Application) -> bytes:
    pack = regulation.current()
    inspection = application.inspections.select_related("agent").order_by("-scheduled_for", "-id").first()
    checklist = inspection.checklist if inspection and inspection.has_result else {}
    items = [{**i, "result": checklist.get(i["code"]) if inspection and inspection.has_result else None}
             for i in pack.inspection_items(application.modality)]
    bases = sorted({i["legal_basis"].split(",")[0] for i in items})
    ctx = _base(pack, title=f"Formulário de vistoria — {pack.modality_label(application.modality)}",
                number=application.protocol or "", legal_basis="; ".join(bases))
    follow = site_url() + reverse("licensing-application", kwargs={"pk": application.pk})
    ctx.update({"number_label": "Protocolo", "follow_url": follow, "qr": qr_png_data_uri(follow),
                "qr_caption": "abrir o requerimento"})
    ctx.update({"obj": application, "inspection": inspection, "items": items,
                "modality_label": pack.modality_label(application.modality),
                "scheduled_local": timezone.localtime(inspection.scheduled_for, pack.tz) if inspection else None})
    return render_pdf("licensing/applications/pdf/inspection.html", ctx)


def declaration_item(application: Application) -> dict | None:
    """The pack's declaration item (where its checklist has one)."""
    pack = regulation.current()
    return next((d for d in pack.documents(application.modality, application.kind)
                 if d["code"].startswith(DECLARATION_PREFIX)), None)


def declaration_pdf(application: Application) -> bytes:
    pack = regulation.current()
    item = declaration_item(application)
    if item is None:
        raise LookupError("A legislação ativa não prevê declaração pré-preenchida.")
    profile = getattr(application.applicant, "applicant_profile", None)
    ctx = _base(pack, title="Declaração", legal_basis=item["legal_basis"])
    ctx.update({"person_name": application.applicant.display_name,
                "person_cpf": format_cpf(application.applicant.cpf or ""),
                "address": profile.address if profile else "", "protocol": application.protocol,
                "grant_name": pack.act("authorization").get("name", "Autorização"),
                "modality_label": pack.modality_label(application.modality),
                "law_title": pack.main_law.get("title", "")})
    return render_pdf("licensing/applications/pdf/declaration.html", ctx)
