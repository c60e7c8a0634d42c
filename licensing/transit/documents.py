"""The concession contract of collective transport as a PDF (its articles: the pack's
``[collective_transport.articles]`` ``contract``)."""

from __future__ import annotations

from licensing.transit import selectors as sel
from licensing.transit import services as svc
from licensing.transit.citations import articles, law_basis
from licensing.transit.models import Concession
from portal import regulation
from portal.dates import long_date as _long_date
from portal.pdf import document_context as _base
from portal.pdf import render_pdf
from portal.validators import format_cpf


class ContractNotSigned(Exception):
    """The concession has no signed contract yet (nothing to print)."""


def _param(pack, key: str) -> tuple:
    found = pack.collective_param(key)
    return (found.value, found.legal_basis) if found is not None else (None, "")


def contract_context(concession: Concession) -> dict:
    """Everything the contract shows, read from the concession and the pack (no rule re-implemented)."""
    if not (concession.concessionaire_id and concession.contract_number and concession.contract_signed_on):
        raise ContractNotSigned(f"A concessão nº {concession.number} ainda não tem contrato assinado.")
    pack = regulation.current()
    law = pack.law((pack.collective_transport or {}).get("law", "")) or {}
    company = concession.concessionaire
    category = next((c for c in svc.categories(pack) if c.get("code") == concession.category), {})
    term_years, term_basis = _param(pack, "concession.term_years")
    max_renewals, _ = _param(pack, "concession.max_renewals")
    sign_days, sign_basis = _param(pack, "contract.sign_days")
    start_days, start_basis = _param(pack, "service.start_days")
    today = pack.today()
    lines = []
    for line in sel.staff_lines(concession):
        itinerary = sel.itinerary_in_force(line, today)
        segments = list(itinerary.segments.all())
        lines.append({
            "line": line,
            "itinerary": itinerary,
            "stops": sel.stops(itinerary),
            "zones": sorted({s.get_zone_display() for s in segments}),
            "fares": sorted(sel.fares_in_force(line, today).values(), key=lambda f: f.zone),
        })
    recorded = concession.clauses or {}
    clauses = [{**c, "present": bool(recorded.get(c["code"]))} for c in svc.pack_list(pack, "clauses")]
    ctx = _base(pack, title="Contrato de concessão", number=concession.contract_number,
                legal_basis=law_basis(pack, "contract"))
    ctx.update({
        "art": articles(pack),
        "c": concession,
        "company": company,
        "company_cnpj": company.display_cnpj,
        "representative_cpf": format_cpf(company.representative_cpf or ""),
        "law": law,
        "category": category,
        "term_years": term_years,
        "term_basis": term_basis,
        "max_renewals": max_renewals,
        "sign_days": sign_days,
        "sign_basis": sign_basis,
        "start_days": start_days,
        "start_basis": start_basis,
        "lines": lines,
        "clauses": clauses,
        "missing_clauses": [c for c in clauses if not c["present"]],
        "signed_date": _long_date(concession.contract_signed_on),
        "number_label": "nº",
    })
    return ctx


def concession_contract_pdf(concession: Concession) -> bytes:
    return render_pdf("licensing/transit/pdf/contract.html", contract_context(concession))
