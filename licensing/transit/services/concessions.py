"""Concessionaires and concessions: bidding result, contract, service start, renewal, clauses, extinction."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date

from django.core.exceptions import ValidationError
from django.db import transaction

from licensing.transit import rules as rules
from licensing.transit.models import (
    CONCESSION_TRANSITIONS,
    OPEN_INTERVENTION_STATUSES,
    BidderStatus,
    ClassifiedBidder,
    Concession,
    Concessionaire,
    ConcessionStatus,
    ContractClauseReview,
    DefaultStatus,
    InterventionStatus,
)
from licensing.transit.services._common import (
    _concession_to,
    _law_basis,
    _locked,
    _user,
    category_entry,
    pack_list,
    param,
    transit_pack,
)
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import InvalidTransition, RuleViolation
from portal.numbering import document_number
from portal.validators import only_digits


# --- concessionaires -----------------------------------------------------------------------
@transaction.atomic
def concessionaire_create(
    *, actor, legal_name: str, cnpj: str, registry_number: str, address: str, representative_name: str,
    representative_cpf: str, trade_name: str = "", municipal_registration: str = "", email: str = "",
    phone: str = "", representative_role: str = "",
) -> Concessionaire:
    transit_pack()
    company = Concessionaire(
        legal_name=legal_name.strip(), trade_name=trade_name.strip(), cnpj=only_digits(cnpj),
        registry_number=registry_number.strip(), municipal_registration=municipal_registration.strip(),
        address=address.strip(), email=email.strip(), phone=phone.strip(),
        representative_name=representative_name.strip(), representative_cpf=only_digits(representative_cpf),
        representative_role=representative_role.strip(), created_by=_user(actor),
    )
    company.full_clean()
    company.save()
    audit_log(actor=actor, obj=company, action=AuditAction.CONCESSIONAIRE_CREATED, reason="Empresa cadastrada",
              data={"cnpj": company.display_cnpj, "legal_name": company.legal_name})
    return company


# --- concessions ---------------------------------------------------------------------------
@transaction.atomic
def concession_create(
    *, actor, object: str, category: str, bidding_reference: str, bidding_closed_on: date,
    classified: Sequence[Concessionaire], justification_act: str = "",
) -> Concession:
    """A concession after the bidding's judgement: the classification, the winner called (art. 5, 8)."""
    pack = transit_pack()
    category_entry(pack, category)
    classified = list(classified)
    if not classified:
        raise RuleViolation("bidding_without_winner", "Informe ao menos a empresa vencedora da licitação.",
                            _law_basis(pack, "classification"), field="classified")
    if len({c.pk for c in classified}) != len(classified):
        raise ValidationError({"classified": ["Uma empresa aparece mais de uma vez na classificação."]})
    if bidding_closed_on > pack.today():
        raise ValidationError({"bidding_closed_on": ["O encerramento da licitação não pode ser uma data futura."]})
    concession = Concession.objects.create(
        number=document_number("transit_concession", bidding_closed_on.year),
        object=object.strip(), category=category, bidding_reference=bidding_reference.strip(),
        bidding_closed_on=bidding_closed_on, justification_act=justification_act.strip(),
        created_by=_user(actor),
    )
    for position, company in enumerate(classified, start=1):
        ClassifiedBidder.objects.create(
            concession=concession, concessionaire=company, position=position,
            status=BidderStatus.CALLED if position == 1 else BidderStatus.WAITING,
            called_on=bidding_closed_on if position == 1 else None,
        )
    sign_days, basis = param(pack, "contract.sign_days")
    audit_log(actor=actor, obj=concession, action=AuditAction.CONCESSION_CREATED, to_state=concession.status,
              reason="Concessão registrada após a licitação",
              data={"bidding": concession.bidding_reference, "classified": [c.pk for c in classified],
                    "contract_deadline": rules.contract_deadline(bidding_closed_on, sign_days).isoformat(),
                    "legal_basis": basis})
    return concession


def called_bidder(concession: Concession) -> ClassifiedBidder | None:
    return concession.classified.filter(status=BidderStatus.CALLED).select_related("concessionaire").first()


def _call_next(*, actor, concession: Concession, on: date, reason: str) -> ClassifiedBidder | None:
    """Art. 8, §ún.: the called company renounces; the next classified is called (same conditions)."""
    pack = transit_pack()
    _, basis = param(pack, "contract.sign_days")
    current = concession.classified.select_for_update().filter(status=BidderStatus.CALLED).first()
    if current is not None:
        current.status = BidderStatus.RENOUNCED
        current.renounced_on = on
        current.save(update_fields=["status", "renounced_on"])
        audit_log(actor=actor, obj=concession, action=AuditAction.BIDDER_RENOUNCED, from_state=BidderStatus.CALLED,
                  to_state=BidderStatus.RENOUNCED, reason=reason,
                  data={"company": current.concessionaire_id, "position": current.position, "legal_basis": basis})
    nxt = concession.classified.select_for_update().filter(status=BidderStatus.WAITING).order_by("position").first()
    if nxt is None:
        _concession_to(actor=actor, concession=concession, to=ConcessionStatus.BIDDING_FAILED,
                       reason="Nenhuma classificada restante: realizar nova licitação", data={"legal_basis": basis})
        return None
    nxt.status = BidderStatus.CALLED
    nxt.called_on = on
    nxt.save(update_fields=["status", "called_on"])
    audit_log(actor=actor, obj=concession, action=AuditAction.BIDDER_CALLED, from_state=BidderStatus.WAITING,
              to_state=BidderStatus.CALLED, reason="Convocada a próxima classificada, nas condições da 1ª",
              data={"company": nxt.concessionaire_id, "position": nxt.position, "legal_basis": basis})
    return nxt


@transaction.atomic
def concession_call_next(*, actor, concession: Concession, on: date | None = None, reason: str = "") -> ClassifiedBidder | None:
    """Art. 8, §ún. (before the contract) or art. 22, §ún. (after the lapse): call the next classified."""
    pack = transit_pack()
    locked = _locked(Concession, concession)
    on = on or pack.today()
    if locked.status == ConcessionStatus.LAPSED:
        return _call_next_after_lapse(actor=actor, concession=locked, on=on, reason=reason, pack=pack)
    if locked.status != ConcessionStatus.AWAITING_CONTRACT:
        raise InvalidTransition("Só se convoca a próxima classificada antes da assinatura do contrato "
                                "ou depois da caducidade.")
    return _call_next(actor=actor, concession=locked, on=on,
                      reason=reason or "Não comparecimento da convocada no prazo (renúncia)")


def _call_next_after_lapse(*, actor, concession: Concession, on: date, reason: str, pack) -> ClassifiedBidder:
    """Art. 22, §ún.: the Administration may call the remaining classified, on the 1st's conditions."""
    _, basis = param(pack, "service.start_days")
    nxt = concession.classified.select_for_update().filter(status=BidderStatus.WAITING).order_by("position").first()
    if nxt is None:
        raise RuleViolation("no_remaining_classified", "Não há classificadas remanescentes: é preciso nova licitação.",
                            basis, field="non_field_errors", conflict=True)
    concession.classified.filter(status=BidderStatus.CONTRACTED).update(status=BidderStatus.LAPSED)
    before = {"concessionaire": concession.concessionaire_id, "contract_number": concession.contract_number,
              "contract_signed_on": concession.contract_signed_on.isoformat() if concession.contract_signed_on else None}
    concession.concessionaire = None
    concession.contract_number = ""
    concession.contract_signed_on = concession.term_start = concession.term_end = None
    concession.extinction_cause = concession.extinction_act = ""
    concession.extinct_on = None
    concession.save(update_fields=["concessionaire", "contract_number", "contract_signed_on", "term_start", "term_end",
                                   "extinction_cause", "extinction_act", "extinct_on"])
    nxt.status = BidderStatus.CALLED
    nxt.called_on = on
    nxt.save(update_fields=["status", "called_on"])
    _concession_to(actor=actor, concession=concession, to=ConcessionStatus.AWAITING_CONTRACT,
                   reason=reason or "Convocada a próxima classificada após a caducidade",
                   data={"previous": before, "company": nxt.concessionaire_id, "position": nxt.position,
                         "legal_basis": basis})
    return nxt


def concession_contract_sign(*, actor, concession: Concession, signed_on: date, contract_number: str) -> Concession:
    """Art. 8: the called company signs within N days; afterwards it renounced and the next is called.

    A late signature is refused with the article AND the renunciation is recorded (committed
    before raising), so the refusal names the company now called.
    """
    with transaction.atomic():
        pack = transit_pack()
        sign_days, basis = param(pack, "contract.sign_days")
        locked = _locked(Concession, concession)
        if locked.status != ConcessionStatus.AWAITING_CONTRACT:
            raise InvalidTransition(
                f"A concessão nº {locked.number} está {locked.get_status_display()}: não há contrato a assinar."
            )
        bidder = locked.classified.select_for_update().filter(status=BidderStatus.CALLED).first()
        if bidder is None:
            raise InvalidTransition("Nenhuma empresa convocada para assinar o contrato.")
        if signed_on > pack.today():
            raise ValidationError({"signed_on": ["A data de assinatura não pode ser futura."]})
        violation = rules.contract_signature_violation(bidder.called_on, signed_on, sign_days, basis)
        if violation is None:
            if not contract_number.strip():
                raise ValidationError({"contract_number": ["Informe o número do contrato."]})
            years, term_basis = param(pack, "concession.term_years")
            bidder.status = BidderStatus.CONTRACTED
            bidder.save(update_fields=["status"])
            locked.concessionaire = bidder.concessionaire
            locked.contract_number = contract_number.strip()
            locked.contract_signed_on = signed_on
            locked.term_start = signed_on
            locked.term_end = rules.concession_term_end(signed_on, years)
            locked.save(update_fields=["concessionaire", "contract_number", "contract_signed_on", "term_start",
                                       "term_end"])
            start_days, start_basis = param(pack, "service.start_days")
            _concession_to(actor=actor, concession=locked, to=ConcessionStatus.AWAITING_START,
                           reason=f"Contrato nº {locked.contract_number} assinado",
                           data={"company": bidder.concessionaire_id, "signed_on": signed_on.isoformat(),
                                 "term_end": locked.term_end.isoformat(), "term_basis": term_basis,
                                 "start_deadline": rules.service_start_deadline(signed_on, start_days).isoformat(),
                                 "start_basis": start_basis, "legal_basis": basis})
            _freeze_contract_on_commit(locked)
            concession.refresh_from_db()
            return locked
        if violation.code != "contract_sign_deadline":
            raise violation
        nxt = _call_next(actor=actor, concession=locked, on=pack.today(),
                         reason=f"Contrato não assinado até {rules.contract_deadline(bidder.called_on, sign_days):%d/%m/%Y}")
    if nxt is None:
        follow = "Não há outra classificada: o Município deve realizar nova licitação."
    else:
        follow = f"Foi convocada a {nxt.position}ª classificada, {nxt.concessionaire}, nas condições da 1ª."
    raise RuleViolation(violation.code, f"{violation.message} {follow}", violation.legal_basis,
                        field="signed_on", conflict=True)


def _freeze_contract_on_commit(concession: Concession) -> None:
    """Once the signature commits, a worker renders, signs and stores the contract as signed
    (outside the request and its locks); the first download does it if the worker has not yet."""
    from licensing.transit.tasks import freeze_contract

    pk = concession.pk
    transaction.on_commit(lambda: freeze_contract.delay(pk))


def concession_service_start(*, actor, concession: Concession, started_on: date) -> Concession:
    """Art. 22: service starts within N days of the contract; a later start finds it lapsed."""
    with transaction.atomic():
        pack = transit_pack()
        start_days, basis = param(pack, "service.start_days")
        locked = _locked(Concession, concession)
        if locked.status != ConcessionStatus.AWAITING_START:
            raise InvalidTransition(
                f"A concessão nº {locked.number} está {locked.get_status_display()}: não aguarda o início do serviço."
            )
        if started_on > pack.today():
            raise ValidationError({"started_on": ["A data de início não pode ser futura."]})
        violation = rules.service_start_violation(locked.contract_signed_on, started_on, start_days, basis)
        if violation is None:
            locked.service_started_on = started_on
            locked.save(update_fields=["service_started_on"])
            _concession_to(actor=actor, concession=locked, to=ConcessionStatus.IN_SERVICE,
                           reason="Serviço iniciado", data={"started_on": started_on.isoformat(), "legal_basis": basis})
            concession.refresh_from_db()
            return locked
        if violation.code != "service_start_lapsed":
            raise violation
        _lapse(actor=actor, concession=locked, basis=basis)
    raise violation


def _lapse(*, actor, concession: Concession, basis: str) -> None:
    concession.extinction_cause = "caducidade"
    concession.extinct_on = transit_pack().today()
    concession.save(update_fields=["extinction_cause", "extinct_on"])
    _concession_to(actor=actor, concession=concession, to=ConcessionStatus.LAPSED,
                   reason="Serviço não iniciado no prazo: a delegação caducou", data={"legal_basis": basis})


@transaction.atomic
def concession_renew(*, actor, concession: Concession) -> Concession:
    """Art. 25: one renewal for an equal period, while the concession is in force."""
    pack = transit_pack()
    max_renewals, basis = param(pack, "concession.max_renewals")
    years, _ = param(pack, "concession.term_years")
    locked = _locked(Concession, concession)
    if locked.status not in (ConcessionStatus.IN_SERVICE, ConcessionStatus.INTERVENED):
        raise InvalidTransition(f"A concessão nº {locked.number} está {locked.get_status_display()}: não pode ser renovada.")
    if locked.term_end < pack.today():
        raise RuleViolation("concession_term_over", f"O prazo da concessão terminou em {locked.term_end:%d/%m/%Y}.",
                            basis, field="renewal", conflict=True)
    violation = rules.renewal_violation(locked.renewals, max_renewals, basis)
    if violation:
        raise violation
    before = locked.term_end
    locked.term_end = rules.concession_term_end(locked.term_start, int(years) * (locked.renewals + 2))
    locked.renewals += 1
    locked.save(update_fields=["term_end", "renewals"])
    audit_log(actor=actor, obj=locked, action=AuditAction.CONCESSION_RENEWED, reason="Renovação por igual período",
              data={"term_end_before": before.isoformat(), "term_end": locked.term_end.isoformat(),
                    "renewals": locked.renewals, "legal_basis": basis})
    concession.refresh_from_db()
    return locked


@transaction.atomic
def concession_clauses_record(*, actor, concession: Concession, checked: Iterable[str]) -> ContractClauseReview:
    """Art. 9: which essential clauses the signed contract contains.

    A new review each time (the latest is in force), never written into the contract: its PDF
    was frozen at signing and stays as signed."""
    pack = transit_pack()
    codes = [c["code"] for c in pack_list(pack, "clauses")]
    checked = set(checked)
    unknown = checked - set(codes)
    if unknown:
        raise ValidationError({"clauses": [f"Cláusula desconhecida: {', '.join(sorted(unknown))}."]})
    locked = _locked(Concession, concession)
    before = current_clauses(locked)
    review = ContractClauseReview.objects.create(concession=locked, present=[c for c in codes if c in checked],
                                                 recorded_by=_user(actor))
    audit_log(actor=actor, obj=locked, action=AuditAction.CONCESSION_CLAUSES, reason="Cláusulas essenciais conferidas",
              data={"before": before, "after": current_clauses(locked), "review": review.pk,
                    "legal_basis": _law_basis(pack, "clauses")})
    return review


def latest_clause_review(concession: Concession) -> ContractClauseReview | None:
    return concession.clause_reviews.order_by("-recorded_at", "-id").first()


def current_clauses(concession: Concession) -> dict[str, bool]:
    """The codes of the latest review, each ``True`` (an empty dict before any review)."""
    review = latest_clause_review(concession)
    return {code: True for code in review.present} if review is not None else {}


def missing_clauses(pack, concession: Concession) -> list[dict]:
    present = current_clauses(concession)
    return [c for c in pack_list(pack, "clauses") if not present.get(c["code"])]


@transaction.atomic
def concession_extinguish(
    *, actor, concession: Concession, cause: str, act: str, extinct_on: date, notes: str = "",
    authorizing_law: str = "", indemnity_paid: bool = False, judicial_decision: str = "",
) -> Concession:
    """Art. 18–21: extinction by one of its causes, each with what the law requires first."""
    pack = transit_pack()
    entry = next((c for c in pack_list(pack, "extinction_causes") if c["code"] == cause), None)
    if entry is None:
        raise ValidationError({"cause": ["Escolha uma das causas de extinção previstas na lei."]})
    basis = entry["legal_basis"]
    locked = _locked(Concession, concession)
    if ConcessionStatus.EXTINCT not in CONCESSION_TRANSITIONS.get(locked.status, set()) and cause != "caducidade":
        raise InvalidTransition(f"A concessão nº {locked.number} está {locked.get_status_display()}: não pode ser extinta.")
    if not act.strip():
        raise ValidationError({"act": ["Informe o ato (decreto, lei ou decisão) que declara a extinção."]})
    if extinct_on > pack.today():
        raise ValidationError({"extinct_on": ["A data da extinção não pode ser futura."]})
    requires = entry.get("requires", "act")
    if requires == "term_ended" and (locked.term_end is None or extinct_on <= locked.term_end):
        raise RuleViolation("extinction_term_not_reached",
                            f"O prazo contratual vai até {locked.term_end:%d/%m/%Y}." if locked.term_end else
                            "Não há prazo contratual em curso.", basis, field="cause", conflict=True)
    if requires == "authorizing_law_and_indemnity" and (not authorizing_law.strip() or not indemnity_paid):
        raise RuleViolation("encampacao_requirements",
                            "A encampação exige lei autorizativa específica e prévio pagamento da indenização.",
                            basis, field="authorizing_law")
    if requires == "proven_default" and not locked.defaults.filter(status=DefaultStatus.PROVEN).exists():
        raise RuleViolation("rescission_without_proven_default",
                            "A rescisão exige inadimplência comprovada em processo administrativo, com ampla defesa.",
                            basis, field="cause", conflict=True)
    if requires == "judicial_decision" and not judicial_decision.strip():
        raise RuleViolation("rescission_without_judgement",
                            "A rescisão por iniciativa da delegatária depende de decisão judicial transitada em julgado.",
                            basis, field="judicial_decision")
    if requires == "start_lapsed":
        start_days, start_basis = param(pack, "service.start_days")
        if locked.status != ConcessionStatus.AWAITING_START or not rules.start_lapsed(
            locked.contract_signed_on, extinct_on, start_days
        ):
            raise RuleViolation("lapse_not_reached", "A caducidade só ocorre se o serviço não começar no prazo.",
                                start_basis, field="cause", conflict=True)
        _lapse(actor=actor, concession=locked, basis=start_basis)
        concession.refresh_from_db()
        return locked
    locked.extinction_cause = cause
    locked.extinction_act = act.strip()
    locked.extinct_on = extinct_on
    locked.save(update_fields=["extinction_cause", "extinction_act", "extinct_on"])
    for intervention in locked.interventions.select_for_update().filter(status__in=OPEN_INTERVENTION_STATUSES):
        before = intervention.status
        intervention.status = InterventionStatus.ENDED
        intervention.conclusion = f"Encerrada pela extinção da concessão ({entry['label']})"
        intervention.save(update_fields=["status", "conclusion"])
        audit_log(actor=actor, obj=intervention, action=AuditAction.INTERVENTION_STATUS, from_state=before,
                  to_state=InterventionStatus.ENDED, reason=intervention.conclusion, data={"legal_basis": basis})
    _concession_to(actor=actor, concession=locked, to=ConcessionStatus.EXTINCT, reason=f"{entry['label']}: {act}",
                   data={"cause": cause, "act": act, "extinct_on": extinct_on.isoformat(), "notes": notes,
                         "authorizing_law": authorizing_law, "judicial_decision": judicial_decision,
                         "legal_basis": basis})
    concession.refresh_from_db()
    return locked
