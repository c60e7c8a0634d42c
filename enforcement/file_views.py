"""Files and PDFs of an auto: proof photos and attachments (private files), and the PDF of
the auto, its notice, decision and DAM, for the holder or staff."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from django.views import View

from enforcement import selectors
from enforcement.models import Attachment
from enforcement.views import _context_for
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.issued import frozen_pdf
from portal.pdf import qr_png_data_uri, render_pdf, verification_url
from portal.roles import STAFF_ROLES, Role, has_role
from portal.uploads import sandboxed_file_response, serve_private_file
from portal.validators import mask_cpf
from portal.views import RoleRequiredMixin


class FileView(RoleRequiredMixin, View):
    def get(self, request, pk, file_pk, kind: str):
        inf = selectors.infraction_for(request.user, int(pk))
        if kind == "photo":
            item = get_object_or_404(inf.photos, pk=file_pk)
        else:
            item = get_object_or_404(Attachment, infraction=inf, pk=file_pk)
        return serve_private_file(item.file, f"auto-{inf.number.replace('/', '-')}-{kind}-{item.pk}"
                                             f".{item.file.name.rsplit('.', 1)[-1]}")


class DriverPhotoView(RoleRequiredMixin, View):
    """A driver's accepted photograph, shown on the road check to agents only (never public, not
    to the other staff); each view is recorded in the application's access log (LGPD art. 37)."""

    roles = (Role.AGENT,)

    def get(self, request, doc_id: int):
        doc = selectors.road_check_photo(int(doc_id))
        audit_log(actor=request.user, obj=doc.application, action=AuditAction.DOCUMENT_VIEWED,
                  reason="Consulta de placa (fiscalização)", data={"document": doc.pk, "type": doc.type})
        ext = doc.file.name.rsplit(".", 1)[-1]
        return sandboxed_file_response(doc.file, f"foto-{doc.type.replace(':', '-')}.{ext}", mime=doc.mime)


PDF_DOCUMENTS = {
    "auto": ("enforcement/pdf/auto.html", "Auto de Infração"),
    "notice": ("enforcement/pdf/notice.html", "Notificação de Autuação"),
    "decision": ("enforcement/pdf/decision.html", "Decisão"),
    "dam": ("enforcement/pdf/dam.html", "Documento de Arrecadação Municipal (DAM)"),
}


def issued_infraction_document(inf, doc: str) -> bytes | None:
    """The PDF of an auto's document (auto, notificação, decisão, DAM) as issued: rendered and
    signed once — by a worker right after the issuing transaction commits, or by the first
    download if the worker has not run yet — then the same bytes forever. ``None`` while the
    document does not exist yet (auto not notified, not judged, no DAM). Nothing in it depends on
    who asks: the context is built for no particular person."""
    template, title = PDF_DOCUMENTS[doc]
    ctx = _context_for(inf, AnonymousUser())
    owner = {"auto": inf, "notice": ctx["notice"], "decision": ctx["judgement"], "dam": ctx["fine"]}[doc]
    if owner is None:
        return None
    if doc == "dam" and ctx["fine"].fee_id:  # the fees room's DAM (barcode and Pix), frozen there
        from licensing.fees.documents import issued_dam_pdf

        return issued_dam_pdf(ctx["fine"].fee)
    pack = ctx["pack"]
    ctx.update(
        title=title,
        doc_number={"auto": inf.number, "notice": getattr(ctx["notice"], "number", ""),
                    "decision": getattr(ctx["judgement"], "number", ""), "dam": getattr(ctx["fine"], "number", "")}[doc],
        fiscal_unit=pack.fiscal_unit,
        defense_days=pack.value("defense.days", inf.modality or None),
        defense_basis=pack.basis("defense.days", inf.modality or None),
        masked_driver_cpf=mask_cpf(inf.driver_cpf) if inf.driver_cpf else "",
        verify_url=verification_url(inf.verification_code) if inf.verification_code else "",
        qr=qr_png_data_uri(verification_url(inf.verification_code)) if inf.verification_code else "",
    )
    # each document is frozen on its own record (the auto, its notice, its judgement, its fine);
    # later changes are new acts
    return frozen_pdf(owner, kind=f"infraction_{doc}", render=lambda: render_pdf(template, ctx),
                      number=ctx["doc_number"] or "", verification_code=inf.verification_code if doc == "auto" else "",
                      reason=f"{title} nº {ctx['doc_number']}", location=f"{pack.name}/{pack.uf}").pdf


def infraction_pdf(request, inf, doc: str) -> HttpResponse:
    """The PDF of an auto (auto, notificação, decisão, DAM) for its holder or staff."""
    # the designated appeal authority reads the documents of the autos it may see (under appeal)
    if not (has_role(request.user, *STAFF_ROLES, Role.APPEAL_AUTHORITY) or inf.holder_id == request.user.pk):
        raise PermissionDenied
    pdf = issued_infraction_document(inf, doc)
    if pdf is None:
        raise Http404({"notice": "Auto ainda não notificado.", "decision": "Auto ainda não julgado.",
                       "dam": "Sem DAM emitido."}.get(doc, "Documento não encontrado."))
    number = inf.number.replace("/", "-")
    response = HttpResponse(pdf, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{doc}-{number}.pdf"'
    return response


class PdfView(RoleRequiredMixin, View):
    def get(self, request, pk, doc: str):
        return infraction_pdf(request, selectors.infraction_for(request.user, int(pk)), doc)
