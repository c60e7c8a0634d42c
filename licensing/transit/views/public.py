"""Public pages of collective transport: lines, fares, complaints."""


from __future__ import annotations

from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views import View
from django.views.generic import TemplateView

from licensing.transit import forms as f
from licensing.transit import selectors as sel
from licensing.transit import services as svc
from licensing.transit.views._base import PER_PAGE, TransitEnabledMixin, _law_url, _pct
from portal import regulation
from portal.client_ip import client_ip
from portal.refusals import SERVICE_ERRORS, apply_refusal


# --- public --------------------------------------------------------------------------------
class PublicLineListView(TransitEnabledMixin, TemplateView):
    template_name = "licensing/transit/public_lines.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        pack = regulation.current()
        page = Paginator(sel.public_lines(), PER_PAGE).get_page(self.request.GET.get("page"))
        today = pack.today()
        student = pack.collective_param("fare.student_discount")
        ctx.update(page_obj=page, rows=[(ln, sel.fares_in_force(ln, today)) for ln in page.object_list],
                   law_url=_law_url(pack), student_param=student, student_pct=_pct(student.value) if student else "",
                   crumbs=[("Linhas de ônibus", "")])
        return ctx


class PublicLineView(TransitEnabledMixin, TemplateView):
    template_name = "licensing/transit/public_line.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        pack = regulation.current()
        line = get_object_or_404(sel.public_lines(), pk=kwargs["pk"])
        itinerary = sel.itinerary_in_force(line)
        form = f.FareQuoteForm(self.request.GET or None)
        student = pack.collective_param("fare.student_discount")
        if student is not None:
            form.fields["student"].label = f"Estudante (desconto de {_pct(student.value)} %)"
        quote = quote_error = None
        if form.is_bound and form.is_valid():
            try:
                quote = sel.fare_quote(line, zone=form.cleaned_data["zone"] or "urban",
                                       student=form.cleaned_data["student"], at=form.cleaned_data["at"] or pack.today())
            except sel.FareNotFound as exc:
                quote_error = str(exc)
        ctx.update(
            line=line, itinerary=itinerary, stops=sel.stops(itinerary), segments=list(itinerary.segments.all()),
            schedule=[(label, itinerary.schedule.get(key, [])) for key, label in svc.SCHEDULE_DAYS.items()],
            fares=sel.fares_in_force(line, pack.today()), upcoming_fares=sel.upcoming_fares(line),
            upcoming_itineraries=sel.upcoming_itineraries(line), form=form, quote=quote, quote_error=quote_error,
            student_param=pack.collective_param("fare.student_discount"), law_url=_law_url(pack),
            crumbs=[("Linhas de ônibus", reverse("transit-lines")), (f"Linha {line.code}", "")],
        )
        return ctx


COMPLAINTS_PER_HOUR = 20


def _complaints_throttled(request) -> bool:
    """At most COMPLAINTS_PER_HOUR public complaints per address per hour (anti-spam)."""
    from django.core.cache import cache

    key = f"transit-complaints:{client_ip(request)}"  # the client behind the trusted proxies
    cache.add(key, 0, timeout=3600)
    try:
        count = cache.incr(key)
    except ValueError:
        cache.set(key, 1, timeout=3600)
        count = 1
    return count > COMPLAINTS_PER_HOUR


class PublicComplaintView(TransitEnabledMixin, View):
    template_name = "licensing/transit/complaint_form.html"

    def _ctx(self, line, form):
        return {"line": line, "form": form,
                "crumbs": [("Linhas de ônibus", reverse("transit-lines")),
                           (f"Linha {line.code}", reverse("transit-line", kwargs={"pk": line.pk})),
                           ("Reclamação", "")]}

    def get(self, request, pk: int):
        line = get_object_or_404(sel.public_lines(), pk=pk)
        return render(request, self.template_name, self._ctx(line, f.ComplaintForm()))

    def post(self, request, pk: int):
        line = get_object_or_404(sel.public_lines(), pk=pk)
        form = f.ComplaintForm(request.POST)
        if _complaints_throttled(request):
            form.add_error(None, "Muitas reclamações enviadas deste endereço na última hora. Tente mais tarde "
                                 "ou use o telefone da Prefeitura.")
            return render(request, self.template_name, self._ctx(line, form), status=429)
        status = 400
        if form.is_valid():
            try:
                complaint = svc.complaint_file(actor=request.user, line=line, **form.cleaned_data)
            except SERVICE_ERRORS as exc:
                status = apply_refusal(form, exc)
            else:
                return render(request, "licensing/transit/complaint_done.html",
                              {**self._ctx(line, form), "complaint": complaint})
        return render(request, self.template_name, self._ctx(line, form), status=status)


class PublicComplaintLookupView(TransitEnabledMixin, View):
    """Anyone who complained sees the status and the answer with the protocol and access code."""

    template_name = "licensing/transit/complaint_lookup.html"

    def get(self, request):
        form = f.ComplaintLookupForm(request.GET or None)
        complaint, status = None, 200
        if form.is_bound:
            if not form.is_valid():
                status = 400
            else:
                complaint = sel.complaint_lookup(form.cleaned_data["protocolo"], form.cleaned_data["codigo"])
                if complaint is None:
                    form.add_error(None, "Não encontramos reclamação com este protocolo e código. Confira os dois.")
                    status = 404
        return render(request, self.template_name,
                      {"form": form, "complaint": complaint,
                       "crumbs": [("Linhas de ônibus", reverse("transit-lines")), ("Consultar reclamação", "")]},
                      status=status)
