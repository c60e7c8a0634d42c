"""Services of collective transport concessions: the only writers of the transit models.

Keyword-only, one transaction per action, each state change audited. Legal rules come
from ``licensing.rules_transit`` with the pack's parameters (``[collective_transport]``).

Two refusals also record their legal consequence, which must survive the refusal: a
contract signed after the deadline (art. 8, §ún.: the winner renounces and the next
classified is called) and a service started after the deadline (art. 22: the delegation
lapses). Those services commit the consequence in their own atomic block and raise the
``RuleViolation`` after it; they must not be wrapped in an outer transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from licensing import rules_transit as rules
from licensing.models_transit import (
    CONCESSION_TRANSITIONS,
    DEFAULT_TRANSITIONS,
    INTERVENTION_TRANSITIONS,
    OPEN_INTERVENTION_STATUSES,
    BidderStatus,
    Bus,
    BusFare,
    BusLine,
    BusStatus,
    ClassifiedBidder,
    Complaint,
    ComplaintStatus,
    Concession,
    Concessionaire,
    ConcessionStatus,
    DefaultProceeding,
    DefaultStatus,
    FareZone,
    Intervention,
    InterventionStatus,
    Itinerary,
    ItinerarySegment,
    ItineraryStatus,
)
from licensing.selectors_transit import forget_fares_state
from portal import regulation
from portal.audit import audit_log
from portal.exceptions import InvalidTransition, RuleViolation
from portal.numbering import document_number, protocol_number, verification_code
from portal.validators import normalize_plate, only_digits, validate_plate

Segment = rules.Segment


# --- pack access ---------------------------------------------------------------------------
def transit_pack():
    """The active pack, which must have collective transport."""
    pack = regulation.current()
    if not pack.collective_transport:
        raise RuleViolation("transit_not_enabled", "O regulamento ativo não trata de transporte coletivo.",
                            field="non_field_errors", conflict=True)
    return pack


def param(pack, key: str) -> tuple:
    """(value, legal basis) of a collective-transport parameter."""
    found = pack.collective_param(key)
    if found is None:
        raise RuleViolation("transit_param_missing", f"Parâmetro {key} ausente do regulamento.", conflict=True)
    return found.value, found.legal_basis


def categories(pack) -> list[dict]:
    return list((pack.collective_transport or {}).get("categories", []))


def category_entry(pack, code: str) -> dict:
    entry = next((c for c in categories(pack) if c.get("code") == code), None)
    if entry is None:
        raise RuleViolation("bus_category_unknown", "Categoria de veículo não prevista no regulamento.",
                            _law_basis(pack, "art. 2"), field="category")
    return entry


def pack_list(pack, name: str) -> list[dict]:
    return list((pack.collective_transport or {}).get(name, []))


def _law_basis(pack, article: str) -> str:
    law = pack.law((pack.collective_transport or {}).get("law", "")) or {}
    return f"{law.get('short', '')}, {article}".strip(", ")


def _user(actor):
    return actor if getattr(actor, "is_authenticated", False) else None


# --- concession status ---------------------------------------------------------------------
def _concession_to(*, actor, concession: Concession, to: str, reason: str, data: dict | None = None) -> Concession:
    if to not in CONCESSION_TRANSITIONS.get(concession.status, set()):
        raise InvalidTransition(
            f"A concessão nº {concession.number} está {concession.get_status_display()} e não pode passar a "
            f"{ConcessionStatus(to).label}."
        )
    before = concession.status
    forget_fares_state()  # the public lines of the fare calculator may change
    transaction.on_commit(forget_fares_state)
    concession.status = to
    concession.status_reason = reason
    concession.status_changed_at = timezone.now()
    concession.save(update_fields=["status", "status_reason", "status_changed_at"])
    audit_log(actor=actor, obj=concession, action="concession_status", from_state=before, to_state=to,
              reason=reason, data=data or {})
    return concession


def _locked(model, obj):
    return model.objects.select_for_update().get(pk=obj.pk)


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
    audit_log(actor=actor, obj=company, action="concessionaire_created", reason="Empresa cadastrada",
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
                            _law_basis(pack, "art. 5"), field="classified")
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
    audit_log(actor=actor, obj=concession, action="concession_created", to_state=concession.status,
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
        audit_log(actor=actor, obj=concession, action="bidder_renounced", from_state=BidderStatus.CALLED,
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
    audit_log(actor=actor, obj=concession, action="bidder_called", from_state=BidderStatus.WAITING,
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
    audit_log(actor=actor, obj=locked, action="concession_renewed", reason="Renovação por igual período",
              data={"term_end_before": before.isoformat(), "term_end": locked.term_end.isoformat(),
                    "renewals": locked.renewals, "legal_basis": basis})
    concession.refresh_from_db()
    return locked


@transaction.atomic
def concession_clauses_record(*, actor, concession: Concession, checked: Iterable[str]) -> Concession:
    """Art. 9: which essential clauses the signed contract contains."""
    pack = transit_pack()
    codes = [c["code"] for c in pack_list(pack, "clauses")]
    checked = set(checked)
    unknown = checked - set(codes)
    if unknown:
        raise ValidationError({"clauses": [f"Cláusula desconhecida: {', '.join(sorted(unknown))}."]})
    locked = _locked(Concession, concession)
    before = dict(locked.clauses or {})
    locked.clauses = {code: code in checked for code in codes}
    locked.save(update_fields=["clauses"])
    audit_log(actor=actor, obj=locked, action="concession_clauses", reason="Cláusulas essenciais conferidas",
              data={"before": before, "after": locked.clauses, "legal_basis": _law_basis(pack, "art. 9")})
    concession.refresh_from_db()
    return locked


def missing_clauses(pack, concession: Concession) -> list[dict]:
    return [c for c in pack_list(pack, "clauses") if not (concession.clauses or {}).get(c["code"])]


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
        audit_log(actor=actor, obj=intervention, action="intervention_status", from_state=before,
                  to_state=InterventionStatus.ENDED, reason=intervention.conclusion, data={"legal_basis": basis})
    _concession_to(actor=actor, concession=locked, to=ConcessionStatus.EXTINCT, reason=f"{entry['label']}: {act}",
                   data={"cause": cause, "act": act, "extinct_on": extinct_on.isoformat(), "notes": notes,
                         "authorizing_law": authorizing_law, "judicial_decision": judicial_decision,
                         "legal_basis": basis})
    concession.refresh_from_db()
    return locked


# --- lines and itineraries -----------------------------------------------------------------
def _check_segments(segments: Sequence[Segment]) -> None:
    if not segments:
        raise ValidationError({"segments": ["Informe ao menos um trecho do itinerário."]})
    for i, seg in enumerate(segments, start=1):
        if not seg.origin.strip() or not seg.destination.strip():
            raise ValidationError({"segments": [f"Trecho {i}: informe a parada de origem e a de destino."]})
        if Decimal(seg.length_km) <= 0:
            raise ValidationError({"segments": [f"Trecho {i}: a extensão deve ser maior que zero."]})
        if seg.zone not in FareZone.values:
            raise ValidationError({"segments": [f"Trecho {i}: zona deve ser urbano ou rural."]})


def _check_schedule(schedule: dict) -> dict:
    import re

    out: dict[str, list[str]] = {}
    for day_type, times in (schedule or {}).items():
        if day_type not in SCHEDULE_DAYS:
            raise ValidationError({"schedule": [f"Tipo de dia desconhecido: {day_type}."]})
        clean = []
        for t in times:
            if not re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d", str(t).strip()):
                raise ValidationError({"schedule": [f"Horário inválido: {t} (use HH:MM)."]})
            clean.append(str(t).strip())
        out[day_type] = sorted(set(clean))
    return out


SCHEDULE_DAYS = {"weekday": "Dias úteis", "saturday": "Sábados", "sunday": "Domingos e feriados"}


def _write_segments(itinerary: Itinerary, segments: Sequence[Segment]) -> None:
    ItinerarySegment.objects.bulk_create([
        ItinerarySegment(itinerary=itinerary, order=i, origin=s.origin.strip(), destination=s.destination.strip(),
                         length_km=Decimal(s.length_km).quantize(rules.KM), zone=s.zone)
        for i, s in enumerate(segments, start=1)
    ])


@transaction.atomic
def busline_create(*, actor, concession: Concession, code: str, name: str, segments: Sequence[Segment],
                   schedule: dict | None = None) -> BusLine:
    """A line of the concession with its original itinerary (version 1) and schedule (art. 4, c)."""
    transit_pack()
    locked = _locked(Concession, concession)
    if locked.status in (ConcessionStatus.BIDDING_FAILED, ConcessionStatus.LAPSED, ConcessionStatus.EXTINCT):
        raise InvalidTransition(f"A concessão nº {locked.number} está {locked.get_status_display()}.")
    _check_segments(segments)
    schedule = _check_schedule(schedule or {})
    code = code.strip().upper()
    if not code or not name.strip():
        raise ValidationError({"code": ["Informe o código e o nome da linha."]})
    if BusLine.objects.filter(code=code).exists():
        raise ValidationError({"code": [f"Já existe a linha {code}."]})
    line = BusLine.objects.create(concession=locked, code=code, name=name.strip())
    itinerary = Itinerary.objects.create(
        line=line, version=1, status=ItineraryStatus.APPROVED, total_km=rules.itinerary_length(segments),
        schedule=schedule, reason="Itinerário original do contrato", approved_at=timezone.now(),
        approved_by=_user(actor), created_by=_user(actor), effective_from=locked.bidding_closed_on,
    )
    _write_segments(itinerary, segments)
    audit_log(actor=actor, obj=line, action="busline_created", reason="Linha cadastrada com itinerário original",
              data={"concession": locked.number, "total_km": str(itinerary.total_km), "segments": len(segments)})
    return line


def original_itinerary(line: BusLine) -> Itinerary:
    return line.itineraries.get(version=1)


def _segments_of(itinerary: Itinerary) -> list[Segment]:
    return [Segment(s.origin, s.destination, s.length_km, s.zone) for s in itinerary.segments.all()]


@transaction.atomic
def itinerary_change_propose(*, actor, line: BusLine, segments: Sequence[Segment], schedule: dict | None = None,
                             reason: str = "") -> Itinerary:
    """Art. 7: a change of up to 25 % of the ORIGINAL route goes by amendment; more is refused."""
    pack = transit_pack()
    max_ratio, basis = param(pack, "itinerary.max_change_ratio")
    line = _locked(BusLine, line)
    if line.concession.status not in (ConcessionStatus.AWAITING_START, ConcessionStatus.IN_SERVICE,
                                      ConcessionStatus.INTERVENED):
        raise InvalidTransition(f"A concessão da linha {line.code} não está em vigor.")
    _check_segments(segments)
    schedule = _check_schedule(schedule if schedule is not None else current_itinerary(line).schedule)
    original = original_itinerary(line)
    original_km = original.total_km
    change = rules.changed_km(_segments_of(original), segments)
    violation = rules.itinerary_change_violation(original_km, change, max_ratio, basis)
    if violation:
        raise violation
    if not reason.strip():
        raise ValidationError({"reason": ["Informe a justificativa da alteração."]})
    version = (line.itineraries.order_by("-version").values_list("version", flat=True).first() or 0) + 1
    itinerary = Itinerary.objects.create(
        line=line, version=version, status=ItineraryStatus.PROPOSED, total_km=rules.itinerary_length(segments),
        changed_km=change, change_ratio=(rules.itinerary_change_ratio(original_km, change)).quantize(Decimal("0.0001")),
        schedule=schedule, reason=reason.strip(), created_by=_user(actor),
    )
    _write_segments(itinerary, segments)
    audit_log(actor=actor, obj=itinerary, action="itinerary_change_proposed", to_state=itinerary.status,
              reason=reason, data={"line": line.code, "changed_km": str(change), "original_km": str(original_km),
                                   "ratio": str(itinerary.change_ratio), "legal_basis": basis})
    return itinerary


@transaction.atomic
def itinerary_change_approve(*, actor, itinerary: Itinerary, amendment_reference: str, announced_on: date,
                             effective_from: date) -> Itinerary:
    """Art. 7, §2: in force only after approval and announcement at least N days before."""
    pack = transit_pack()
    notice_days, basis = param(pack, "itinerary.notice_days")
    locked = _locked(Itinerary, itinerary)
    if locked.status != ItineraryStatus.PROPOSED:
        raise InvalidTransition(f"A alteração está {locked.get_status_display()}: não pode ser aprovada.")
    if not amendment_reference.strip():
        raise ValidationError({"amendment_reference": ["Informe o termo aditivo que formaliza a alteração."]})
    if effective_from < pack.today():
        raise ValidationError({"effective_from": ["A alteração só vigora depois de aprovada: informe uma data a partir de hoje."]})
    violation = rules.notice_violation(announced_on, effective_from, notice_days, basis,
                                       what="A alteração de itinerário ou horário", code="itinerary_notice_too_short")
    if violation:
        raise violation
    locked.status = ItineraryStatus.APPROVED
    locked.amendment_reference = amendment_reference.strip()
    locked.announced_on = announced_on
    locked.effective_from = effective_from
    locked.approved_at = timezone.now()
    locked.approved_by = _user(actor)
    locked.save(update_fields=["status", "amendment_reference", "announced_on", "effective_from", "approved_at",
                               "approved_by"])
    audit_log(actor=actor, obj=locked, action="itinerary_change_approved", from_state=ItineraryStatus.PROPOSED,
              to_state=ItineraryStatus.APPROVED, reason=f"Aditivo {locked.amendment_reference}",
              data={"announced_on": announced_on.isoformat(), "effective_from": effective_from.isoformat(),
                    "legal_basis": basis})
    itinerary.refresh_from_db()
    return locked


@transaction.atomic
def itinerary_change_discard(*, actor, itinerary: Itinerary, reason: str) -> Itinerary:
    locked = _locked(Itinerary, itinerary)
    if locked.status != ItineraryStatus.PROPOSED:
        raise InvalidTransition(f"A alteração está {locked.get_status_display()}: não pode ser descartada.")
    if not reason.strip():
        raise ValidationError({"reason": ["Informe o motivo do descarte."]})
    locked.status = ItineraryStatus.DISCARDED
    locked.save(update_fields=["status"])
    audit_log(actor=actor, obj=locked, action="itinerary_change_discarded", from_state=ItineraryStatus.PROPOSED,
              to_state=ItineraryStatus.DISCARDED, reason=reason)
    return locked


def current_itinerary(line: BusLine, at: date | None = None) -> Itinerary:
    """The approved version in force at ``at`` (the latest whose effective date has come)."""
    at = at or regulation.current().today()
    found = (line.itineraries.filter(status=ItineraryStatus.APPROVED, effective_from__lte=at)
             .order_by("-effective_from", "-version").first())
    return found or original_itinerary(line)


# --- fares ---------------------------------------------------------------------------------
@transaction.atomic
def fare_set(*, actor, line: BusLine, zone: str, amount: Decimal, decree: str, announced_on: date,
             effective_from: date) -> BusFare:
    """Art. 15–17: a fare by decree; a change takes effect at least N days after announcement."""
    pack = transit_pack()
    notice_days, basis = param(pack, "fare.min_notice_days")
    may_differ, zone_basis = param(pack, "fare.urban_rural_may_differ")
    line = _locked(BusLine, line)
    if line.concession.status in (ConcessionStatus.BIDDING_FAILED, ConcessionStatus.LAPSED, ConcessionStatus.EXTINCT):
        raise InvalidTransition(f"A concessão da linha {line.code} não está em vigor.")
    if zone not in FareZone.values:
        raise ValidationError({"zone": ["Escolha o trecho: urbano ou rural."]})
    zones = set(current_itinerary(line).segments.values_list("zone", flat=True))
    for v in (rules.fare_amount_violation(amount, basis),
              rules.fare_zone_violation(zone, zones, bool(may_differ), zone_basis)):
        if v:
            raise v
    if not decree.strip():
        raise ValidationError({"decree": ["Informe o decreto que fixa a tarifa (art. 17, parágrafo único)."]})
    if effective_from < announced_on:
        raise ValidationError({"effective_from": ["A vigência não pode ser anterior ao anúncio."]})
    is_change = line.fares.filter(zone=zone).exists()
    if is_change:
        violation = rules.notice_violation(announced_on, effective_from, notice_days, basis,
                                           what="A nova tarifa", code="fare_notice_too_short")
        if violation:
            raise violation
    fare = BusFare.objects.create(
        line=line, zone=zone, amount=Decimal(amount).quantize(rules.CENT), decree=decree.strip(),
        announced_on=announced_on, effective_from=effective_from,
        legal_basis=basis if is_change else _law_basis(pack, "art. 15"), created_by=_user(actor),
    )
    forget_fares_state()
    transaction.on_commit(forget_fares_state)
    audit_log(actor=actor, obj=fare, action="fare_set", reason=f"Tarifa fixada pelo {fare.decree}",
              data={"line": line.code, "zone": zone, "amount": str(fare.amount),
                    "announced_on": announced_on.isoformat(), "effective_from": effective_from.isoformat(),
                    "legal_basis": fare.legal_basis})
    return fare


# --- buses ---------------------------------------------------------------------------------
@transaction.atomic
def bus_register(*, actor, concession: Concession, plate: str, category: str, seated: int, standing: int = 0,
                 make: str = "", model: str = "", manufacture_year: int | None = None) -> Bus:
    """Art. 2: the bus fits its category; art. 9, I: the category of the contract."""
    pack = transit_pack()
    locked = _locked(Concession, concession)
    if locked.status in (ConcessionStatus.BIDDING_FAILED, ConcessionStatus.LAPSED, ConcessionStatus.EXTINCT,
                         ConcessionStatus.AWAITING_CONTRACT):
        raise InvalidTransition(f"A concessão nº {locked.number} está {locked.get_status_display()}: "
                                "não recebe veículos.")
    plate = normalize_plate(plate)
    validate_plate(plate)
    entry = category_entry(pack, category)
    for v in (rules.bus_category_violation(entry, seated, standing),
              rules.bus_matches_concession_violation(category, locked.category, _law_basis(pack, "art. 3, §1º; art. 9, I"))):
        if v:
            raise v
    if Bus.objects.filter(plate=plate).exists():
        raise ValidationError({"plate": ["Esta placa já está cadastrada no transporte coletivo."]})
    try:
        with transaction.atomic():
            bus = Bus.objects.create(plate=plate, category=category, seated=seated, standing=standing,
                                     concession=locked, make=make.strip(), model=model.strip(),
                                     manufacture_year=manufacture_year)
    except IntegrityError as exc:
        raise ValidationError({"plate": ["Esta placa já está cadastrada no transporte coletivo."]}) from exc
    audit_log(actor=actor, obj=bus, action="bus_registered", to_state=bus.status, reason="Veículo cadastrado",
              data={"concession": locked.number, "category": category, "seated": seated, "standing": standing,
                    "legal_basis": entry.get("legal_basis", "")})
    return bus


@transaction.atomic
def bus_withdraw(*, actor, bus: Bus, reason: str) -> Bus:
    locked = _locked(Bus, bus)
    if locked.status != BusStatus.ACTIVE:
        raise InvalidTransition("O veículo já foi retirado.")
    if not reason.strip():
        raise ValidationError({"reason": ["Informe o motivo da retirada."]})
    locked.status = BusStatus.WITHDRAWN
    locked.save(update_fields=["status"])
    audit_log(actor=actor, obj=locked, action="bus_withdrawn", from_state=BusStatus.ACTIVE,
              to_state=BusStatus.WITHDRAWN, reason=reason)
    return locked


# --- intervention (art. 23–24) ----------------------------------------------------------------
@transaction.atomic
def intervention_declare(*, actor, concession: Concession, decree: str, declared_on: date, interventor: str,
                         term_days: int, objectives: str, grounds: Iterable[str] = ()) -> Intervention:
    """Art. 23, §ún.: by decree naming the interventor, the term, the objectives and limits."""
    pack = transit_pack()
    open_days, basis = param(pack, "intervention.open_days")
    locked = _locked(Concession, concession)
    if locked.status != ConcessionStatus.IN_SERVICE:
        raise InvalidTransition(f"A concessão nº {locked.number} está {locked.get_status_display()}: "
                                "só se intervém num serviço em operação.")
    grounds = list(grounds)
    known = {g["code"] for g in pack_list(pack, "intervention_grounds")}
    if set(grounds) - known:
        raise ValidationError({"grounds": ["Motivo de intervenção não previsto no art. 11, III."]})
    errors = {}
    if not decree.strip():
        errors["decree"] = ["Informe o decreto de intervenção."]
    if not interventor.strip():
        errors["interventor"] = ["Informe o interventor designado."]
    if not objectives.strip():
        errors["objectives"] = ["Informe os objetivos e limites da medida."]
    if not term_days or int(term_days) < 1:
        errors["term_days"] = ["Informe o prazo da intervenção, em dias."]
    if declared_on > pack.today():
        errors["declared_on"] = ["A data do decreto não pode ser futura."]
    if errors:
        raise ValidationError(errors)
    intervention = Intervention.objects.create(
        concession=locked, decree=decree.strip(), declared_on=declared_on, interventor=interventor.strip(),
        term_days=int(term_days), objectives=objectives.strip(), grounds=grounds, created_by=_user(actor),
    )
    audit_log(actor=actor, obj=intervention, action="intervention_declared", to_state=intervention.status,
              reason=f"Intervenção pelo {intervention.decree}",
              data={"open_deadline": rules.intervention_open_deadline(declared_on, open_days).isoformat(),
                    "legal_basis": basis})
    _concession_to(actor=actor, concession=locked, to=ConcessionStatus.INTERVENED,
                   reason=f"Intervenção pelo {intervention.decree}", data={"intervention": intervention.pk})
    return intervention


def _intervention_to(*, actor, intervention: Intervention, to: str, reason: str, data: dict) -> None:
    if to not in INTERVENTION_TRANSITIONS.get(intervention.status, set()):
        raise InvalidTransition(f"A intervenção está {intervention.get_status_display()}.")
    before = intervention.status
    intervention.status = to
    intervention.save()
    audit_log(actor=actor, obj=intervention, action="intervention_status", from_state=before, to_state=to,
              reason=reason, data=data)
    if to in (InterventionStatus.UPHELD, InterventionStatus.ANNULLED, InterventionStatus.INVALID):
        concession = _locked(Concession, intervention.concession)
        if concession.status == ConcessionStatus.INTERVENED:
            _concession_to(actor=actor, concession=concession, to=ConcessionStatus.IN_SERVICE,
                           reason=f"Fim da intervenção: {InterventionStatus(to).label}",
                           data={"intervention": intervention.pk})


@transaction.atomic
def intervention_open_procedure(*, actor, intervention: Intervention, opened_on: date, reference: str) -> Intervention:
    """Art. 24: the procedure opens within N days of the declaration."""
    pack = transit_pack()
    open_days, basis = param(pack, "intervention.open_days")
    conclude_days, _ = param(pack, "intervention.conclude_days")
    locked = _locked(Intervention, intervention)
    if locked.status != InterventionStatus.DECLARED:
        raise InvalidTransition(f"A intervenção está {locked.get_status_display()}: o procedimento não pode ser instaurado.")
    if not reference.strip():
        raise ValidationError({"reference": ["Informe o número do procedimento administrativo."]})
    if opened_on > pack.today():
        raise ValidationError({"opened_on": ["A data de instauração não pode ser futura."]})
    violation = rules.intervention_open_violation(locked.declared_on, opened_on, open_days, basis)
    if violation:
        raise violation
    locked.procedure_opened_on = opened_on
    locked.procedure_reference = reference.strip()
    _intervention_to(actor=actor, intervention=locked, to=InterventionStatus.PROCEDURE_OPEN,
                     reason=f"Procedimento {locked.procedure_reference} instaurado",
                     data={"opened_on": opened_on.isoformat(), "legal_basis": basis,
                           "conclude_deadline": rules.intervention_conclude_deadline(opened_on, conclude_days).isoformat()})
    intervention.refresh_from_db()
    return locked


@transaction.atomic
def intervention_conclude(*, actor, intervention: Intervention, concluded_on: date, upheld: bool,
                          conclusion: str) -> Intervention:
    """Art. 24, §1–§2: concluded within N days; when unfounded it is null and the service returns."""
    pack = transit_pack()
    conclude_days, basis = param(pack, "intervention.conclude_days")
    locked = _locked(Intervention, intervention)
    if locked.status != InterventionStatus.PROCEDURE_OPEN:
        raise InvalidTransition(f"A intervenção está {locked.get_status_display()}: não há procedimento a concluir.")
    if not conclusion.strip():
        raise ValidationError({"conclusion": ["Informe a conclusão do procedimento."]})
    if concluded_on > pack.today():
        raise ValidationError({"concluded_on": ["A data da conclusão não pode ser futura."]})
    violation = rules.intervention_conclude_violation(locked.procedure_opened_on, concluded_on, conclude_days, basis)
    if violation:
        raise violation
    locked.concluded_on = concluded_on
    locked.conclusion = conclusion.strip()
    to = InterventionStatus.UPHELD if upheld else InterventionStatus.ANNULLED
    _intervention_to(actor=actor, intervention=locked, to=to, reason=conclusion.strip(),
                     data={"concluded_on": concluded_on.isoformat(), "upheld": upheld,
                           "legal_basis": basis if upheld else _law_basis(pack, "art. 24, §1º")})
    intervention.refresh_from_db()
    return locked


# --- default proceedings (art. 20) -----------------------------------------------------------
@transaction.atomic
def default_notify(*, actor, concession: Concession, grounds: Iterable[str], details: str, notified_on: date,
                   cure_days: int) -> DefaultProceeding:
    """Art. 20, §3: the failures are communicated in detail, with a period to cure them."""
    pack = transit_pack()
    basis = _law_basis(pack, "art. 20, §3º")
    locked = _locked(Concession, concession)
    if locked.status not in (ConcessionStatus.IN_SERVICE, ConcessionStatus.INTERVENED, ConcessionStatus.AWAITING_START):
        raise InvalidTransition(f"A concessão nº {locked.number} está {locked.get_status_display()}.")
    grounds = list(grounds)
    known = {g["code"] for g in pack_list(pack, "default_grounds")}
    if not grounds or set(grounds) - known:
        raise ValidationError({"grounds": ["Indique ao menos um dos fundamentos do art. 20, §1º."]})
    if not details.strip():
        raise ValidationError({"details": ["Descreva detalhadamente os descumprimentos contratuais."]})
    if notified_on > pack.today():
        raise ValidationError({"notified_on": ["A data da comunicação não pode ser futura."]})
    violation = rules.cure_days_violation(cure_days, basis)
    if violation:
        raise violation
    proceeding = DefaultProceeding.objects.create(
        concession=locked, grounds=grounds, details=details.strip(), notified_on=notified_on,
        cure_days=int(cure_days), created_by=_user(actor),
    )
    audit_log(actor=actor, obj=proceeding, action="default_notified", to_state=proceeding.status,
              reason="Descumprimentos comunicados à delegatária",
              data={"concession": locked.number, "grounds": grounds,
                    "cure_deadline": rules.cure_deadline(notified_on, cure_days).isoformat(), "legal_basis": basis})
    return proceeding


def _default_to(*, actor, proceeding: DefaultProceeding, to: str, reason: str, data: dict) -> None:
    if to not in DEFAULT_TRANSITIONS.get(proceeding.status, set()):
        raise InvalidTransition(f"O processo está {proceeding.get_status_display()}.")
    before = proceeding.status
    proceeding.status = to
    proceeding.save()
    audit_log(actor=actor, obj=proceeding, action="default_status", from_state=before, to_state=to, reason=reason,
              data=data)


@transaction.atomic
def default_mark_cured(*, actor, proceeding: DefaultProceeding, reason: str) -> DefaultProceeding:
    locked = _locked(DefaultProceeding, proceeding)
    if not reason.strip():
        raise ValidationError({"reason": ["Informe como as falhas foram corrigidas."]})
    _default_to(actor=actor, proceeding=locked, to=DefaultStatus.CURED, reason=reason.strip(), data={})
    proceeding.refresh_from_db()
    return locked


@transaction.atomic
def default_open(*, actor, proceeding: DefaultProceeding, opened_on: date, reference: str) -> DefaultProceeding:
    """Art. 20, §2–§3: opened only after the notice and the period to cure, with full defence."""
    pack = transit_pack()
    basis = _law_basis(pack, "art. 20, §3º")
    locked = _locked(DefaultProceeding, proceeding)
    if locked.status != DefaultStatus.NOTIFIED:
        raise InvalidTransition(f"O processo está {locked.get_status_display()}: não pode ser instaurado.")
    if not reference.strip():
        raise ValidationError({"reference": ["Informe o número do processo administrativo."]})
    if opened_on > pack.today():
        raise ValidationError({"opened_on": ["A data de instauração não pode ser futura."]})
    violation = rules.default_open_violation(locked.notified_on, locked.cure_days, opened_on, basis)
    if violation:
        raise violation
    locked.opened_on = opened_on
    locked.process_reference = reference.strip()
    _default_to(actor=actor, proceeding=locked, to=DefaultStatus.OPEN, reason=f"Processo {reference} instaurado",
                data={"opened_on": opened_on.isoformat(), "legal_basis": basis})
    proceeding.refresh_from_db()
    return locked


@transaction.atomic
def default_conclude(*, actor, proceeding: DefaultProceeding, proven: bool, decision: str,
                     concluded_on: date) -> DefaultProceeding:
    """Art. 20, §2 and §4: inadimplência proven (rescission may be declared by decree) or dismissed."""
    pack = transit_pack()
    locked = _locked(DefaultProceeding, proceeding)
    if locked.status != DefaultStatus.OPEN:
        raise InvalidTransition(f"O processo está {locked.get_status_display()}: não pode ser decidido.")
    if not decision.strip():
        raise ValidationError({"decision": ["Informe a decisão fundamentada."]})
    if concluded_on > pack.today() or concluded_on < locked.opened_on:
        raise ValidationError({"concluded_on": ["A data da decisão deve estar entre a instauração e hoje."]})
    locked.decision = decision.strip()
    locked.concluded_on = concluded_on
    to = DefaultStatus.PROVEN if proven else DefaultStatus.DISMISSED
    _default_to(actor=actor, proceeding=locked, to=to, reason=decision.strip(),
                data={"concluded_on": concluded_on.isoformat(), "legal_basis": _law_basis(pack, "art. 20, §§ 2º e 4º")})
    proceeding.refresh_from_db()
    return locked


# --- complaints (art. 11, VII) ---------------------------------------------------------------
@transaction.atomic
def complaint_file(*, actor=None, line: BusLine, text: str, name: str = "", contact: str = "",
                   occurred_on: date | None = None) -> Complaint:
    """Anyone may complain about a line; the Município receives, investigates and answers."""
    pack = transit_pack()
    if not text.strip() or len(text.strip()) < 10:
        raise ValidationError({"text": ["Descreva o problema (pelo menos 10 caracteres)."]})
    if occurred_on and occurred_on > pack.today():
        raise ValidationError({"occurred_on": ["A data do ocorrido não pode ser futura."]})
    complaint = Complaint.objects.create(
        line=line, protocol=protocol_number(pack.today().year), access_code=verification_code(),
        name=name.strip(), contact=contact.strip(),
        occurred_on=occurred_on, text=text.strip(),
    )
    audit_log(actor=actor if getattr(actor, "is_authenticated", False) else "público (sem login)", obj=complaint,
              action="complaint_filed", to_state=complaint.status,
              reason="Reclamação registrada", data={"line": line.code,
                                                    "legal_basis": _law_basis(pack, "art. 11, VII")})
    return complaint


@transaction.atomic
def complaint_answer(*, actor, complaint: Complaint, answer: str) -> Complaint:
    locked = _locked(Complaint, complaint)
    if locked.status != ComplaintStatus.OPEN:
        raise InvalidTransition("A reclamação já foi respondida.")
    if not answer.strip():
        raise ValidationError({"answer": ["Escreva a resposta ao usuário."]})
    locked.status = ComplaintStatus.ANSWERED
    locked.answer = answer.strip()
    locked.answered_at = timezone.now()
    locked.answered_by = _user(actor)
    locked.save(update_fields=["status", "answer", "answered_at", "answered_by"])
    audit_log(actor=actor, obj=locked, action="complaint_answered", from_state=ComplaintStatus.OPEN,
              to_state=ComplaintStatus.ANSWERED, reason="Reclamação respondida")
    complaint.refresh_from_db()
    return locked


# --- periodic sweep --------------------------------------------------------------------------
def transit_deadlines_sweep(today: date | None = None) -> int:
    """Apply the deadlines that run by themselves; safe to run twice. Returns items changed.

    - art. 8, §ún.: the called company that did not sign in time renounces; the next is called;
    - art. 22: a concession whose service did not start in time lapses;
    - art. 24: an intervention without procedure after N days is flagged to the clerks;
      one whose procedure was not concluded in time becomes invalid (§2);
    - art. 18, I: a concession past its term is extinct.
    """
    pack = regulation.current(required=False)
    if pack is None or not pack.collective_transport:
        return 0
    today = today or pack.today()
    sign_days, _ = param(pack, "contract.sign_days")
    start_days, start_basis = param(pack, "service.start_days")
    open_days, open_basis = param(pack, "intervention.open_days")
    conclude_days, conclude_basis = param(pack, "intervention.conclude_days")
    changed = 0
    for bidder in ClassifiedBidder.objects.filter(status=BidderStatus.CALLED,
                                                  concession__status=ConcessionStatus.AWAITING_CONTRACT):
        if today > rules.contract_deadline(bidder.called_on, sign_days):
            with transaction.atomic():
                concession = _locked(Concession, bidder.concession)
                fresh = concession.classified.filter(pk=bidder.pk, status=BidderStatus.CALLED).first()
                if fresh is None or concession.status != ConcessionStatus.AWAITING_CONTRACT:
                    continue
                _call_next(actor=None, concession=concession, on=today,
                           reason="Contrato não assinado no prazo (renúncia ao direito de contratar)")
                changed += 1
    for concession in Concession.objects.filter(status=ConcessionStatus.AWAITING_START):
        if rules.start_lapsed(concession.contract_signed_on, today, start_days):
            with transaction.atomic():
                locked = _locked(Concession, concession)
                if locked.status == ConcessionStatus.AWAITING_START:
                    _lapse(actor=None, concession=locked, basis=start_basis)
                    changed += 1
    for intervention in Intervention.objects.filter(status=InterventionStatus.DECLARED, open_overdue_flagged=False):
        if today > rules.intervention_open_deadline(intervention.declared_on, open_days):
            with transaction.atomic():
                updated = Intervention.objects.filter(pk=intervention.pk, status=InterventionStatus.DECLARED,
                                                      open_overdue_flagged=False).update(open_overdue_flagged=True)
                if updated:
                    audit_log(actor=None, obj=intervention, action="intervention_open_overdue",
                              reason="Procedimento administrativo não instaurado no prazo",
                              data={"legal_basis": open_basis})
                    _notify_clerks(f"Intervenção sem procedimento: {intervention.decree}",
                                   f"O procedimento da intervenção ({intervention.decree}) devia ter sido instaurado "
                                   f"até {rules.intervention_open_deadline(intervention.declared_on, open_days):%d/%m/%Y} "
                                   f"({open_basis}).", f"transit-intervention-overdue-{intervention.pk}")
                    changed += 1
    for intervention in Intervention.objects.filter(status=InterventionStatus.PROCEDURE_OPEN):
        if today > rules.intervention_conclude_deadline(intervention.procedure_opened_on, conclude_days):
            with transaction.atomic():
                locked = _locked(Intervention, intervention)
                if locked.status != InterventionStatus.PROCEDURE_OPEN:
                    continue
                locked.conclusion = "Procedimento não concluído no prazo: intervenção inválida"
                _intervention_to(actor=None, intervention=locked, to=InterventionStatus.INVALID,
                                 reason=locked.conclusion, data={"legal_basis": conclude_basis})
                changed += 1
    term_entry = next((c for c in pack_list(pack, "extinction_causes") if c.get("requires") == "term_ended"), None)
    for concession in Concession.objects.filter(status__in=(ConcessionStatus.IN_SERVICE, ConcessionStatus.INTERVENED),
                                                term_end__lt=today):
        with transaction.atomic():
            locked = _locked(Concession, concession)
            if locked.status not in (ConcessionStatus.IN_SERVICE, ConcessionStatus.INTERVENED):
                continue
            locked.extinction_cause = term_entry["code"] if term_entry else "term"
            locked.extinction_act = "Advento do termo contratual"
            locked.extinct_on = locked.term_end
            locked.save(update_fields=["extinction_cause", "extinction_act", "extinct_on"])
            _concession_to(actor=None, concession=locked, to=ConcessionStatus.EXTINCT,
                           reason="Advento do termo contratual",
                           data={"legal_basis": term_entry["legal_basis"] if term_entry else ""})
            changed += 1
    return changed


def _notify_clerks(subject: str, body: str, dedup_key: str) -> None:
    from django.contrib.auth import get_user_model

    from portal.notifications import notify
    from portal.roles import Role

    for user in get_user_model().objects.filter(groups__name=Role.CLERK, is_active=True):
        notify(recipient=user, subject=subject, body=body, dedup_key=f"{dedup_key}-{user.pk}")

