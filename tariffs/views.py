"""Fare calculator (works without JavaScript), printable tariff table and publishing a table."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views import View

from portal import regulation
from portal.exceptions import RuleViolation, RuleViolations
from portal.pdf import qr_png_data_uri, render_pdf
from portal.public.http import cached_page, public_cache
from portal.refusals import apply_refusal
from portal.site_url import site_url
from portal.views import RoleRequiredMixin
from tariffs import rules, selectors
from tariffs.forms import QuoteForm
from tariffs.models import TariffModality, TariffStructure
from tariffs.publish_form import TariffTableForm
from tariffs.services import PUBLISHER_ROLES, _allowed_modalities, tariff_publish

QUOTE_FIELDS = ("modality", "km", "date", "time", "waiting_minutes", "line", "zone", "student", "at")


def _transit_vary() -> str:
    """Bus lines and their fares (collective transport) change the calculator page."""
    return selectors.bus_fares().fares_fingerprint() if selectors.bus_enabled() else "-"


def _bus_lines() -> list:
    return selectors.bus_fares().quotable_lines() if selectors.bus_enabled() else []


def _table_card(pack, table, *, on) -> dict:
    return {
        "table": table,
        "label": selectors.modality_label(table.modality),
        "rows": rules.table_rows(table.structure, table.components),
        "adjustment": selectors.adjustment_month(pack, table.modality),
        "structure_label": TariffStructure(table.structure).label,
    }


def tables_in_force(pack, tables, on) -> list[dict]:
    cards = []
    for modality in selectors.modalities_with_tables(tables):
        table = selectors.table_at(tables, modality, on)
        if table is None:
            continue
        card = _table_card(pack, table, on=on)
        card["next"] = selectors.next_table(tables, modality, on)
        cards.append(card)
    return cards


class CalculatorView(View):
    """GET /tarifas/ — the calculator: a GET form answered by the server, instant with JS."""

    def get(self, request):
        pack = regulation.current()
        fingerprint = selectors.tables_fingerprint(pack)
        vary = f"{pack.municipality_id}|{pack.version}|{fingerprint}|{_transit_vary()}|{pack.today()}"
        response = cached_page(
            request, lambda: self.render_page(request, pack, fingerprint), timeout=300, vary=vary
        )
        return public_cache(request, response, 300)

    def render_page(self, request, pack, fingerprint: str):
        tables = selectors.all_tables(pack, fingerprint)
        modalities = selectors.modalities_with_tables(tables)
        lines = _bus_lines()
        line_required = bool(lines) and "bus" not in modalities
        if lines and "bus" not in modalities:
            modalities = [*modalities, "bus"]
        bound = any(name in request.GET for name in QUOTE_FIELDS)
        form = QuoteForm(
            request.GET if bound else None,
            modalities=modalities,
            km_optional_for=("bus",),
            lines=lines,
            line_required=line_required,
            initial={"modality": modalities[0] if modalities else ""},
        )
        quote = None
        status = 200
        if bound and form.is_valid():
            try:
                if form.cleaned_data.get("line"):
                    quote = selectors.line_quote(pack, form.cleaned_data)
                else:
                    quote = selectors.compute_quote(pack, tables, form.cleaned_data)
            except RuleViolation as exc:
                field = exc.field if exc.field in form.fields else None
                if exc.field == "at":
                    field = "date"
                form.add_error(field, str(exc))
        if bound and form.errors:
            status = 400
        today = pack.today()
        ctx = {
            "form": form,
            "quote": quote,
            "cards": tables_in_force(pack, tables, today),
            "has_bus": "bus" in modalities,
            "bus_lines": [
                {"line": ln, "fares": _fares(ln, today)} for ln in lines
            ],
            "today": today,
            "crumbs": [("Tarifas", None)],
            "missing": missing_modalities(pack, modalities),
        }
        return render(request, "tariffs/calculator.html", ctx, status=status)


def missing_modalities(pack, offered: list[str]) -> list[str]:
    """Why a modality is not in the calculator: the law does not provide for it, or no table
    of that modality has been published yet (a sentence each)."""
    law = pack.main_law.get("short") or pack.main_law.get("title") or f"legislação de {pack.display_name}"
    out = []
    for code, label in TariffModality.choices:
        if code == "bus" or code in offered:
            continue
        closed = pack.modality_refusal(code) if code in pack.modalities else None
        if closed is not None:
            out.append(f"{label}: {closed.message}")
        elif not pack.has_modality(code):
            out.append(f"{label}: serviço não previsto na {law}; por isso não há tarifa de {label.lower()} "
                       f"a calcular em {pack.display_name}.")
        else:
            out.append(f"{label}: a tabela de tarifas ainda não foi publicada pela Prefeitura.")
    return out


def _fares(line, on) -> dict:
    return selectors.bus_fares().fares_in_force(line, on)


class TariffTablePdfView(View):
    """GET /tarifas/tabela.pdf?modality=taxi — the table to keep inside the vehicle."""

    def get(self, request):
        pack = regulation.current()
        fingerprint = selectors.tables_fingerprint(pack)
        vary = f"{pack.municipality_id}|{pack.version}|{fingerprint}|{pack.today()}"
        response = cached_page(
            request, lambda: self.render_pdf(request, pack, fingerprint), timeout=3600, vary=vary
        )
        return public_cache(request, response, 3600)

    def render_pdf(self, request, pack, fingerprint: str):
        tables = selectors.all_tables(pack, fingerprint)
        modalities = selectors.modalities_with_tables(tables)
        modality = request.GET.get("modality") or (modalities[0] if modalities else "")
        today = pack.today()
        table = selectors.table_at(tables, modality, today) if modality in modalities else None
        if table is None:
            raise Http404("Não há tabela de tarifas em vigor para este serviço.")
        calculator_url = site_url() + reverse("tariffs-calculator")
        ctx = {
            "pack": pack,
            "card": _table_card(pack, table, on=today),
            "complaints_phone": pack.municipality.get("complaints_phone", ""),
            "calculator_url": calculator_url,
            "qr": qr_png_data_uri(calculator_url),
            "today": today,
        }
        pdf = render_pdf("tariffs/pdf/table.html", ctx)
        response = HttpResponse(pdf, content_type="application/pdf")
        response["Content-Disposition"] = f'inline; filename="tabela-tarifas-{modality}.pdf"'
        return response


class TariffAdminView(RoleRequiredMixin, View):
    """GET/POST /tarifas/publicar/ — the admin or a julgador publishes a new table."""

    roles = PUBLISHER_ROLES
    template_name = "tariffs/admin.html"

    def _context(self, pack, form) -> dict:
        tables = selectors.all_tables(pack)
        today = pack.today()
        history = [
            {
                "table": t,
                "label": selectors.modality_label(t.modality),
                "in_force": selectors.table_at(tables, t.modality, today) is t,
                "future": t.effective_from > today,
                "rows": rules.table_rows(t.structure, t.components),
            }
            for t in tables
        ]
        notice = pack.collective_param("fare.min_notice_days")
        return {
            "form": form,
            "history": history,
            "notice": notice,
            "crumbs": [("Tarifas", reverse("tariffs-calculator")), ("Publicar tabela", None)],
        }

    def get(self, request):
        pack = regulation.current()
        initial = {"published_on": pack.today(), "effective_from": pack.today()}
        form = TariffTableForm(initial=initial, modalities=_allowed_modalities(pack))
        return render(request, self.template_name, self._context(pack, form))

    def post(self, request):
        pack = regulation.current()
        form = TariffTableForm(request.POST, modalities=_allowed_modalities(pack))
        status = 400
        if form.is_valid() and request.POST.get("preview"):
            # the fares the table would give, before anything is published
            ctx = {**self._context(pack, form), "preview": form.preview(), "preview_columns": form.preview_columns
                   if hasattr(form, "preview_columns") else ["Passagem"]}
            return render(request, self.template_name, ctx)
        if form.is_valid():
            try:
                table = tariff_publish(actor=request.user, **form.table_data())
            except (RuleViolations, RuleViolation) as exc:
                status = apply_refusal(form, exc)
            else:
                messages.success(
                    request,
                    f"Tabela de {table.get_modality_display()} publicada ({table.decree}); "
                    f"vigora a partir de {table.effective_from:%d/%m/%Y}.",
                )
                return redirect("tariffs-admin")
        return render(request, self.template_name, self._context(pack, form), status=status)


def home_section(request) -> dict | None:
    pack = regulation.current(required=False)
    if pack is None:
        return None
    return {
        "title": "Tarifas, verificação e transparência",
        "template": "tariffs/home_section.html",
        "context": {"pack": pack},
    }
