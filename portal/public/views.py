"""Public pages (no login): verification by code/number/plate, transparency, quotas, stands, statistics."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import date, tzinfo

from django.conf import settings
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.html import escape
from django.utils.http import urlencode
from django.utils.safestring import mark_safe
from django.views import View

from portal import page_cache, regulation
from portal.forms import CheckPdfForm
from portal.issued import identical_to_issued, sha256_hex
from portal.public import charts, selectors
from portal.public.http import cached_page, public_cache, throttled, throttled_later
from portal.templatetags.portal_tags import verification_results

MONTH_ABBR = ("jan", "fev", "mar", "abr", "mai", "jun", "jul", "ago", "set", "out", "nov", "dez")


def _vary(pack) -> str:
    return f"{pack.municipality_id}|{pack.version}|{pack.today()}|{','.join(pack.in_force_modalities)}"


def section_crumbs(label: str | None = None) -> list[tuple[str, str | None]]:
    """Breadcrumbs of the transparency section (its pages share the tabs of public/_nav.html)."""
    if label is None:
        return [("Transparência", None)]
    return [("Transparência", reverse("public-transparency")), (label, None)]


def _too_many(request):
    response = render(request, "public/throttled.html", status=429)
    response["Retry-After"] = "60"
    return response


class VerifySearchView(View):
    """GET /verificar/?q= — by verification code, authorization/alvará number or plate."""

    def get(self, request):
        pack = regulation.current()
        q = (request.GET.get("q") or "").strip()
        if "q" in request.GET and throttled(request, "verify"):
            return _too_many(request)

        def build():
            results, error = [], ""
            status = 200
            if "q" not in request.GET:
                pass
            elif not q:
                error = "Digite o código de verificação, o número do documento ou a placa."
                status = 400
            elif len(q) > 20:
                error = "Texto longo demais: digite só o código, o número ou a placa."
                status = 400
            else:
                results = [
                    selectors.verification_of(doc, pack) for doc in selectors.search_documents(q)
                ]
                if not results:
                    status = 404
            return render(
                request,
                "public/verify.html",
                {"q": q, "results": results, "searched": "q" in request.GET, "error": error},
                status=status,
            )

        if "q" not in request.GET:
            response = cached_page(request, build, timeout=300, vary=_vary(pack))
        else:
            response = build()
        return public_cache(request, response, 30)


class VerifyCodeView(View):
    """GET /verificar/<code>/ — opened by the QR code printed on every document."""

    def get(self, request, code: str):
        pack = regulation.current()

        def build():
            # Counted only when the page is not already in the cache: enumerating codes always
            # misses, while the same QR scanned again reveals nothing new.
            if throttled(request, "verify"):
                return _too_many(request)
            result = selectors.verify_by_code(code, pack)
            status = 200 if result else 404
            if page_cache.anonymous(request):
                return HttpResponse(_verification_html(_verification_layout(request, create=True), code, result, pack),
                                    status=status)
            return render(request, "public/verify.html", {**_verification_context(code, result), "pack": pack},
                          status=status)

        # Every change of a grant or alvará writes an audit entry, which changes the fingerprint.
        vary = f"{_vary(pack)}|{selectors.grants_fingerprint()}"
        response = cached_page(request, build, timeout=300, vary=vary)
        return public_cache(request, response, 30)


def _verification_context(code: str, result) -> dict:
    return {"q": code, "results": [result] if result else [], "searched": True, "direct": True}


# Public pages whose layout is the same for every request of a kind, for anonymous visitors:
# the verification page by code (the gov.br header, menu and footer and the search form are the
# same for every code) and the unfiltered transparency list (the same for every page number but
# its rows and its pagination). Rendering the layout was most of such a page's time. It is
# rendered once per host, language negotiation and data stamp (portal.page_cache: municipality,
# pack version, local date, newest grant and audit entry) with marked slots, and each page is
# that layout with its parts put in — the same bytes as the whole template
# (tests/public/test_verify_direct.py, test_transparency_direct.py), on the stack and on the
# page cache's direct lane alike.
_SLOT = "\ue000{}\ue000"
LAYOUTS_KEPT = 256


@dataclass(frozen=True)
class _Layout:
    parts: tuple[str, ...]  # the page around its slots, in their order
    language: str | None  # what the stack had active when it rendered the layout
    tz: tzinfo

    def fill(self, *values: str) -> str:
        out = [self.parts[0]]
        for value, part in zip(values, self.parts[1:], strict=True):
            out += (value, part)
        return "".join(out)


_layouts: OrderedDict[tuple, _Layout] = OrderedDict()
_layouts_lock = threading.Lock()


def _layout_key(request, template: str, extra: tuple) -> tuple:
    meta = request.META
    return (template, extra, meta.get("HTTP_HOST", ""), meta.get("SCRIPT_NAME", ""),
            meta.get("HTTP_ACCEPT_LANGUAGE", ""), request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, ""),
            page_cache.stamp(request))


def _layout(request, template: str, context: dict, slots: tuple[str, ...], *, extra: tuple = (),
            create: bool) -> _Layout | None:
    """The layout of ``template`` for this request, rendered through the request's own stack
    when ``create``: ``context`` holds each of ``slots`` (names, in the order they appear in
    the page) as its marker. ``extra``: what else the layout shows that may change."""
    key = _layout_key(request, template, extra)
    layout = _layouts.get(key)
    if layout is not None or not create:
        return layout
    html = render_to_string(template, context, request=request)
    parts, rest = [], html
    for name in slots:
        before, found, rest = rest.partition(_SLOT.format(name))
        if not found:
            raise ValueError(f"layout de {template}: a marca {name} não está na página")
        parts.append(before)
    layout = _Layout((*parts, rest), translation.get_language(), timezone.get_current_timezone())
    with _layouts_lock:
        _layouts[key] = layout
        while len(_layouts) > LAYOUTS_KEPT:
            _layouts.popitem(last=False)
    return layout


def _marker(name: str):
    return mark_safe(_SLOT.format(name))  # noqa: S308 - a constant marker, replaced before any page leaves


def _verification_layout(request, *, create: bool) -> _Layout | None:
    context = {**_verification_context(_SLOT.format("code"), None), "results_slot": _marker("results")}
    return _layout(request, "public/verify.html", context, ("code", "results"), create=create)


def _verification_html(layout: _Layout, code: str, result, pack) -> str:
    # what public/_verify_results.html renders (its one tag), without a template's machinery
    with translation.override(layout.language), timezone.override(layout.tz):
        results = verification_results([result] if result else [], searched=True, direct=True, q=code, pack=pack)
    return layout.fill(escape(code), results)


def direct_verification_page(request, code: str) -> tuple[int, bytes] | None:
    """VerifyCodeView's answer for portal.page_cache's direct lane (anonymous GETs that missed
    the cache): the same throttle (a refused client goes through the stack and its 429), the same
    lookup and the same page; None until this process's stack has rendered the layout."""
    pack = regulation.current(required=False)
    layout = _verification_layout(request, create=False) if pack is not None else None
    if layout is None:
        return None
    refused = throttled_later(request, "verify")
    try:  # the lookup runs while the throttle's hit is on its way (one wait for the two)
        result = selectors.verify_by_code(code, pack)
    finally:
        over = refused()
    if over:
        return None
    return (200 if result else 404), _verification_html(layout, code, result, pack).encode()


ISSUED_KIND_LABELS = {"authorization": "ato de outorga", "amendment": "ato de alteração", "alvara": "alvará",
                      "contract": "contrato de concessão"}


class CheckPdfView(View):
    """GET/POST /verificar/conferir-pdf/ — is this PDF exactly the one the portal issued?

    The answer is by SHA-256 of the bytes (portal.issued.identical_to_issued): a re-saved,
    printed-and-scanned or one-byte-changed copy is not the issued document. The file is judged
    by its content and size (portal.uploads) and never stored; the POST is throttled."""

    template_name = "public/check_pdf.html"

    def get(self, request):
        response = render(request, self.template_name, {"form": CheckPdfForm()})
        response["Cache-Control"] = "private, no-store"
        return response

    def post(self, request):
        if throttled(request, "verify_pdf"):
            return _too_many(request)
        form = CheckPdfForm(request.POST, request.FILES)
        ctx: dict = {"form": form}
        status = 400
        if form.is_valid():
            data = form.cleaned_data["pdf_bytes"]
            doc = identical_to_issued(data)
            ctx.update({"checked": True, "sha256": sha256_hex(data), "size": len(data), "issued": doc})
            if doc is not None:
                found = selectors.document_by_code(doc.verification_code) if doc.verification_code else None
                ctx["result"] = selectors.verification_of(found, regulation.current()) if found is not None else None
                ctx["kind_label"] = ISSUED_KIND_LABELS.get(doc.kind, doc.kind)
            status = 200 if doc is not None else 404
        response = render(request, self.template_name, ctx, status=status)
        response["Cache-Control"] = "private, no-store"
        return response


class TransparencyView(View):
    """GET /transparencia/ — current grants, searchable and paginated, with downloads."""

    def get(self, request):
        pack = regulation.current()
        vary = f"{_vary(pack)}|{selectors.grants_fingerprint()}"
        response = cached_page(request, lambda: self.build(request, pack), timeout=300, vary=vary)
        return public_cache(request, response, 60)

    def build(self, request, pack):
        q = (request.GET.get("q") or "").strip()[:60]
        modality = request.GET.get("modality") or ""
        if modality not in pack.modalities:
            modality = ""
        page_obj = Paginator(selectors.CountedRows(q, modality), TRANSPARENCY_PAGE).get_page(request.GET.get("page"))
        if not q and not modality and page_cache.anonymous(request):  # the whole list: one layout
            layout = _transparency_layout(request, pack, page_obj.paginator.count, create=True)
            return HttpResponse(_transparency_html(layout, page_obj, pack))
        filters = {k: v for k, v in (("q", q), ("modality", modality)) if v}
        ctx = {
            **_transparency_context(pack, page_obj.paginator.count, q=q, modality=modality,
                                    querystring=urlencode(filters)),
            "page_obj": page_obj,
            "rows": _transparency_rows(page_obj, pack),
        }
        return render(request, "public/transparency.html", ctx)


TRANSPARENCY_PAGE = 50


def _transparency_rows(page_obj, pack) -> list[dict]:
    # what each cell shows, made here: 50 rows of filters (the date one above all) were most
    # of a deep page's time, and every deep page is built (each is asked once or twice)
    return [
        {
            **row,
            "modality_label": pack.modality_label(row["modality"]),
            "status_label": selectors.STATUS_LABELS.get(row["status"], row["status"]),
            "valid_until_shown": f"{date.fromisoformat(row['valid_until']):%d/%m/%Y}",
            "plate_shown": row["plate"] or "—",
            "stand_shown": row["stand"] or "—",
        }
        for row in page_obj.object_list
    ]


def _transparency_context(pack, total: int, *, q: str = "", modality: str = "", querystring: str = "") -> dict:
    return {
        "q": q,
        "modality": modality,
        "modalities": [(m, pack.modality_label(m)) for m in selectors.modalities(pack)],
        "querystring": querystring,
        "total": total,
        "crumbs": section_crumbs(),
    }


def _transparency_layout(request, pack, total: int, *, create: bool) -> _Layout | None:
    """The unfiltered list's page around its rows and its pagination (the total is in it)."""
    context = {**_transparency_context(pack, total), "rows_slot": _marker("rows"),
               "pagination_slot": _marker("pagination")}
    return _layout(request, "public/transparency.html", context, ("rows", "pagination"), extra=(total,),
                   create=create)


def _transparency_html(layout: _Layout, page_obj, pack) -> str:
    with translation.override(layout.language), timezone.override(layout.tz):
        rows = render_to_string("public/_transparency_rows.html", {"rows": _transparency_rows(page_obj, pack)})
        pages = render_to_string("includes/pagination.html", {"page_obj": page_obj, "querystring": ""})
    return layout.fill(rows, pages)


def direct_transparency_page(request, page: int = 1) -> tuple[int, bytes] | None:
    """TransparencyView's answer for portal.page_cache's direct lane: a page of the whole list
    (``?page=N`` or none), the same rows and the same page; None until this process's stack has
    rendered the layout at this total."""
    pack = regulation.current(required=False)
    if pack is None:
        return None
    listed = selectors.CountedRows()
    layout = _transparency_layout(request, pack, listed.count(), create=False)
    if layout is None:
        return None
    page_obj = Paginator(listed, TRANSPARENCY_PAGE).get_page(page)
    return 200, _transparency_html(layout, page_obj, pack).encode()


class QuotasView(View):
    """GET /transparencia/vagas/ — the quota per modality (population ÷ inhabitants per slot)."""

    def get(self, request):
        pack = regulation.current()
        response = cached_page(
            request,
            lambda: render(request, "public/quotas.html", {"quotas": selectors.quotas(pack),
                                                             "crumbs": section_crumbs("Vagas")}),
            timeout=300,
            vary=f"{_vary(pack)}|{selectors.grants_fingerprint()}",
        )
        return public_cache(request, response, 60)


class StatisticsView(View):
    """GET /transparencia/estatisticas/ — charts drawn on the server, numbers in tables."""

    def get(self, request):
        pack = regulation.current()
        vary = f"{_vary(pack)}|{selectors.grants_fingerprint()}"
        response = cached_page(request, lambda: self.build(request, pack), timeout=300, vary=vary)
        return public_cache(request, response, 300)

    def build(self, request, pack):
        months, series = selectors.grants_by_modality_and_month(pack)
        labels = [f"{MONTH_ABBR[m.month - 1]}/{m.year % 100:02d}" for m in months]
        named = {pack.modality_label(m): values for m, values in series.items()}
        by_status = selectors.grants_by_status(pack)
        statuses = ["active", "suspended", "expired", "cassada", "renounced", "cancelled"]
        status_series = {
            pack.modality_label(m): [by_status.get(m, {}).get(s, 0) for s in statuses]
            for m in selectors.modalities(pack)
        }
        status_labels = [selectors.STATUS_LABELS[s] for s in statuses]
        averages = selectors.average_days_since_issue(pack)
        to_grant = selectors.average_days_protocol_to_grant(pack)
        _, autos = selectors.autos_by_article_and_month(pack)
        ctx = {
            "autos_chart": charts.bar_chart(title="Autos de infração por mês e artigo da lei", labels=labels,
                                            series=autos, newest_last=True) if autos else None,
            "autos_rows": [(labels[i], [autos[a][i] for a in autos]) for i in range(len(labels))],
            "autos_names": list(autos),
            "to_grant": [(pack.modality_label(m), to_grant.get(m)) for m in selectors.modalities(pack)],
            "month_chart": charts.bar_chart(
                title="Outorgas emitidas por mês e modalidade", labels=labels, series=named, newest_last=True
            ),
            "month_rows": [(labels[i], [named[n][i] for n in named]) for i in range(len(labels))],
            "series_names": list(named),
            "status_chart": charts.bar_chart(
                title="Outorgas por situação e modalidade",
                labels=status_labels,
                series=status_series,
            ),
            "status_rows": [
                (status_labels[i], [status_series[n][i] for n in status_series])
                for i in range(len(statuses))
            ],
            "crumbs": section_crumbs("Estatísticas"),
            "averages": [
                (pack.modality_label(m), averages.get(m)) for m in selectors.modalities(pack)
            ],
        }
        return render(request, "public/statistics.html", ctx)
