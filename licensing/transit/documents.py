"""The concession contract of collective transport as a PDF (its articles: the pack's
``[collective_transport.articles]`` ``contract``).

The contract is frozen at signing (portal.issued.frozen_pdf, signed like the other issued
documents): the PDF says what was agreed that day — the lines and itineraries then registered,
the fares then in force, the original term — and the same bytes are served ever after. What
changes later has a record of its own (an itinerary version by aditivo, art. 7; a fare decree,
art. 17; a renewal, art. 25; the staff's check of the essential clauses, art. 9), never a new
rendering of the contract."""

from __future__ import annotations

from licensing.transit import selectors as sel
from licensing.transit import services as svc
from licensing.transit.citations import articles, law_basis
from licensing.transit.models import Concession
from licensing.transit.rules import concession_term_end
from portal import regulation
from portal.dates import long_date as _long_date
from portal.issued import frozen_pdf
from portal.pdf import document_context as _base
from portal.pdf import render_pdf
from portal.validators import format_cpf


class ContractNotSigned(Exception):
    """The concession has no signed contract yet (nothing to print)."""


def _param(pack, key: str) -> tuple:
    found = pack.collective_param(key)
    return (found.value, found.legal_basis) if found is not None else (None, "")


def contract_context(concession: Concession) -> dict:
    """Everything the contract shows as signed, read from the concession and the pack (no rule
    re-implemented): dated on the day of signature, so a first rendering done later (a contract
    signed before documents were frozen) still says what held that day."""
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
    signed_on = concession.contract_signed_on
    lines = []
    for line in sel.staff_lines(concession):
        itinerary = sel.itinerary_in_force(line, signed_on)
        segments = list(itinerary.segments.all())
        lines.append({
            "line": line,
            "itinerary": itinerary,
            "stops": sel.stops(itinerary),
            "zones": sorted({s.get_zone_display() for s in segments}),
            "fares": sorted(sel.fares_in_force(line, signed_on).values(), key=lambda f: f.zone),
        })
    # the essential clauses the law requires of every contract (art. 9), as clauses of the
    # contract; the staff's check of them is a record of its own (ContractClauseReview)
    clauses = svc.pack_list(pack, "clauses")
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
        "term_start": signed_on,
        "term_end": concession_term_end(signed_on, int(term_years)) if term_years else None,
        "signed_date": _long_date(signed_on),
        "number_label": "nº",
    })
    return ctx


def render_contract(concession: Concession) -> bytes:
    return render_pdf("licensing/transit/pdf/contract.html", contract_context(concession))


def concession_contract_pdf(concession: Concession) -> bytes:
    """The contract as signed: rendered and signed once, then the same bytes forever."""
    if not (concession.concessionaire_id and concession.contract_number and concession.contract_signed_on):
        raise ContractNotSigned(f"A concessão nº {concession.number} ainda não tem contrato assinado.")
    pack = regulation.current()
    return frozen_pdf(
        concession, kind="contract", render=lambda: render_contract(concession), number=concession.contract_number,
        reason=f"Contrato de concessão nº {concession.contract_number} (concessão nº {concession.number})",
        location=f"{pack.name}/{pack.uf}",
    ).pdf
