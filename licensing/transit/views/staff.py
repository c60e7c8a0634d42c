"""Staff pages: concessions, companies, complaints, lines, the contract PDF."""


from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.views import View
from django.views.generic import TemplateView

from licensing.transit import selectors as sel
from licensing.transit import services as svc
from licensing.transit.citations import articles
from licensing.transit.models import (
    BusLine,
    ComplaintStatus,
    Concession,
    Concessionaire,
    ConcessionStatus,
)
from licensing.transit.views._base import (
    CLERKS,
    JUDGES,
    PER_PAGE,
    StaffMixin,
    _concessions_crumb,
    _has,
    _law_url,
)
from portal import regulation
from portal.audit import history_for


# --- staff lists -----------------------------------------------------------------------------
class ConcessionListView(StaffMixin, TemplateView):
    template_name = "licensing/transit/concessions.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        status = self.request.GET.get("status") or ""
        if status not in ConcessionStatus.values:
            status = ""
        q = (self.request.GET.get("q") or "").strip()[:100]
        page = Paginator(sel.concessions(status or None, q), PER_PAGE).get_page(self.request.GET.get("page"))
        counts = sel.concession_status_counts()
        from urllib.parse import urlencode

        pack = regulation.current()
        ctx.update(page_obj=page, status=status, q=q,
                   rows=[(c, sel.next_deadline(pack, c)) for c in page.object_list],
                   statuses=[(value, label, counts.get(value, 0)) for value, label in ConcessionStatus.choices],
                   querystring=urlencode({k: v for k, v in (("status", status), ("q", q)) if v}),
                   is_clerk=_has(self.request.user, CLERKS), crumbs=[("Concessões de transporte coletivo", "")])
        return ctx


class ConcessionaireListView(StaffMixin, TemplateView):
    template_name = "licensing/transit/concessionaires.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["page_obj"] = Paginator(sel.concessionaires(), PER_PAGE).get_page(self.request.GET.get("page"))
        ctx["is_clerk"] = _has(self.request.user, CLERKS)
        ctx["crumbs"] = [_concessions_crumb(), ("Empresas concessionárias", "")]
        return ctx


class ConcessionaireDetailView(StaffMixin, TemplateView):
    template_name = "licensing/transit/concessionaire.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        company = get_object_or_404(Concessionaire, pk=kwargs["pk"])
        ctx.update(company=company,
                   concessions=company.concessions.order_by("-created_at"),
                   classifications=company.classifications.select_related("concession"),
                   history=history_for(company),
                   crumbs=[_concessions_crumb(), ("Empresas concessionárias", reverse("transit-concessionaires")),
                           (str(company), "")])
        return ctx


class ComplaintListView(StaffMixin, TemplateView):
    template_name = "licensing/transit/complaints.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        status = self.request.GET.get("status") or ""
        if status not in ComplaintStatus.values:
            status = ""
        ctx.update(page_obj=Paginator(sel.complaints(status or None), PER_PAGE).get_page(self.request.GET.get("page")),
                   status=status, statuses=ComplaintStatus.choices,
                   querystring=f"status={status}" if status else "",
                   crumbs=[_concessions_crumb(), ("Reclamações de usuários", "")])
        return ctx


class ConcessionDetailView(StaffMixin, TemplateView):
    template_name = "licensing/transit/concession.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        pack = regulation.current()
        try:
            concession = sel.concession_for_staff(kwargs["pk"])
        except Concession.DoesNotExist as exc:
            raise Http404 from exc
        clauses = svc.pack_list(pack, "clauses")
        review = svc.latest_clause_review(concession)  # a record beside the contract, never printed in it
        present = svc.current_clauses(concession)
        cats = {c["code"]: c for c in svc.categories(pack)}
        causes = {c["code"]: c for c in svc.pack_list(pack, "extinction_causes")}
        ctx.update(
            c=concession, category=cats.get(concession.category, {}),
            deadlines=sorted(sel.concession_deadlines(pack, concession).values(), key=lambda d: d["date"]),
            clauses=[(cl, bool(present.get(cl["code"]))) for cl in clauses],
            clause_review=review,
            missing_clauses=len(svc.missing_clauses(pack, concession)),
            extinction=causes.get(concession.extinction_cause),
            interventions=[(i, sel.intervention_deadlines(pack, i)) for i in concession.interventions.all()],
            history=history_for(concession)[:100], law_url=_law_url(pack), art=articles(pack),
            is_clerk=_has(self.request.user, CLERKS),
            is_judge=_has(self.request.user, JUDGES),
            crumbs=[_concessions_crumb(), (str(concession), "")],
        )
        return ctx


class LineManageView(StaffMixin, TemplateView):
    template_name = "licensing/transit/line_manage.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        pack = regulation.current()
        line = get_object_or_404(BusLine.objects.select_related("concession__concessionaire"), pk=kwargs["pk"])
        ctx.update(
            line=line, current=sel.itinerary_in_force(line),
            itineraries=line.itineraries.prefetch_related("segments").order_by("-version"),
            fares=line.fares.order_by("-effective_from", "zone"), in_force=sel.fares_in_force(line, pack.today()),
            complaints=line.complaints.order_by("-created_at")[:50], is_clerk=_has(self.request.user, CLERKS),
            crumbs=[_concessions_crumb(), (str(line.concession), reverse("transit-concession", kwargs={"pk": line.concession_id})),
                    (f"Linha {line.code}", "")],
        )
        return ctx


class ContractPdfView(StaffMixin, View):
    """GET the signed concession contract as a PDF (clerk, julgador, admin; art. 8, 9, 25)."""

    def get(self, request, pk: int):
        from django.http import HttpResponse

        from licensing.transit.documents import ContractNotSigned, concession_contract_pdf

        try:
            concession = sel.concession_for_staff(pk)
        except Concession.DoesNotExist as exc:
            raise Http404 from exc
        try:
            pdf = concession_contract_pdf(concession)
        except ContractNotSigned as exc:
            raise Http404(str(exc)) from exc
        response = HttpResponse(pdf, content_type="application/pdf")
        safe = "".join(ch if ch.isalnum() else "-" for ch in concession.contract_number).strip("-")
        response["Content-Disposition"] = f'inline; filename="contrato-concessao-{safe or concession.pk}.pdf"'
        response["Cache-Control"] = "private, no-store"
        return response
