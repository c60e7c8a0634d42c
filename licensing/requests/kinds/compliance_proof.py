"""Comprovação anual dos requisitos: the permission's yearly proof, with the pack's documents
for the holder, once for each year of the term."""

from __future__ import annotations

from datetime import date

from fleet import rules as fleet_rules
from licensing.grants.models import Authorization
from licensing.requests import forms
from licensing.requests.kinds.base import (
    Kind,
    compliance_proven_years,
    documents_presented,
    raise_all,
    register,
    resolve_notices,
)
from licensing.requests.models import (
    RequestKind,
    YearlyObligation,
)
from licensing.requests.rules import (
    compliance_filing,
    compliance_next_due,
)
from portal import regulation
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import RuleViolation


def offered(pack, modality: str) -> bool:
    return bool(pack.value("grant.yearly_compliance_proof", modality, False))


def refusal(pack, auth: Authorization, state: dict, today: date) -> Exception | None:
    filing = compliance_filing(param=pack.param("grant.yearly_compliance_proof", auth.modality),
                               valid_from=auth.valid_from, valid_until=auth.valid_until,
                               proven_years=compliance_proven_years(auth, None), filed_on=today)
    return filing if isinstance(filing, RuleViolation) else None


def make_form(form_class, data, *, auth: Authorization, user):
    return form_class(data, documents=regulation.current().documents(auth.modality, "renewal", applies_to="holder"))


def clean(pack, auth, data, on, exclude_pk) -> tuple[dict, str]:
    param = pack.param("grant.yearly_compliance_proof", auth.modality)
    filing = compliance_filing(param=param, valid_from=auth.valid_from, valid_until=auth.valid_until,
                               proven_years=compliance_proven_years(auth, exclude_pk), filed_on=on)
    if isinstance(filing, RuleViolation):
        raise filing
    documents = documents_presented(pack, auth, data, "holder")
    # "comprovar anualmente que está preenchendo todos os requisitos": the vehicle's among them,
    # judged by the same vehicle rules as at entry and at substitution.
    if auth.vehicle is not None:
        raise_all(fleet_rules.vehicle_violations(auth.vehicle.rule_facts(), on,
                                                 fleet_rules.vehicle_params(pack, auth.modality)))
    return ({"year": filing.year, "due_on": filing.due_on.isoformat(), "late": filing.late,
             "documents": documents}, param.legal_basis)


def apply(*, actor, req, auth, pack, reason) -> dict:
    year = int(req.data["year"])
    audit_log(actor=actor, obj=auth, action=AuditAction.COMPLIANCE_PROOF_ACCEPTED, reason=reason or req.legal_basis,
              data={"year": year, "due_on": req.data.get("due_on"), "request": req.protocol,
                    "legal_basis": req.legal_basis})
    resolve_notices(authorization=auth, obligation=YearlyObligation.COMPLIANCE_PROOF, year=year)
    nxt = compliance_next_due(valid_from=auth.valid_from, valid_until=auth.valid_until,
                              proven_years=compliance_proven_years(auth, req.pk) | {year})
    return {"year": year, "next_due_on": nxt[1].isoformat() if nxt else None}


KIND = register(Kind(
    code=RequestKind.COMPLIANCE_PROOF, form=forms.ComplianceProofForm, clean=clean, apply=apply, offered=offered,
    refusal=refusal, make_form=make_form, yearly=True,
    labels={"year": "ano da permissão", "due_on": "prazo", "documents": "documentos apresentados"},
))
