"""Entry rules of an application (requerimento): who may apply, with what vehicle and drivers,
checked against the pack at every save of a draft and again at protocol and approval. Pure
checks over the database's current state; the services in ``services.py`` are the writers."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.utils import timezone

from fleet import rules as fleet_rules
from licensing.applications import rules
from licensing.applications.calls import open_call_for, regular_window
from licensing.applications.models import (
    OPEN_APPLICATION_STATUSES,
    Application,
    ApplicationKind,
    ApplicationStatus,
)
from licensing.grants.models import (
    CURRENT_STATUSES,
    Authorization,
    AuthorizationStatus,
    HolderType,
)
from licensing.grants.selectors import active_bar
from licensing.grants.services import (
    vehicle_bond_basis,
)
from portal import regulation
from portal.exceptions import RuleViolation
from portal.validators import (
    driver_dates_errors,
    normalize_cpf,
    normalize_plate,
    only_digits,
    validate_cnpj,
    validate_cpf,
)

# --- entry rules ----------------------------------------------------------------------------------


def _person_rules(pack, modality: str, today: date, *, birth_date, category, first_issued, ear, prefix: str,
                  person: str = "") -> list[RuleViolation]:
    out = []
    # the auxiliary meets the holder's requirements, age included (an unknown birth date is asked)
    out += rules.driver_age(birth_date, today, pack.param("driver.min_age", modality),
                            field=f"{prefix}birth_date" if person else "birth_date", person=person)
    out += rules.cnh_category(category, pack.param("driver.cnh_categories", modality), field=f"{prefix}cnh_category",
                              person=person)
    out += rules.cnh_years(first_issued, today, pack.param("driver.cnh_min_years", modality),
                           field=f"{prefix}cnh_first_issued", person=person)
    out += rules.cnh_ear(bool(ear), pack.param("driver.ear_required", modality), field=f"{prefix}cnh_ear",
                         person=person)
    return out


def _vehicle_rules(pack, modality: str, today: date, vehicle: dict) -> list[RuleViolation]:
    out = fleet_rules.vehicle_violations(vehicle, today, fleet_rules.vehicle_params(pack, modality))
    plate = normalize_plate(vehicle.get("plate", ""))
    if plate:
        taken = Authorization.objects.filter(vehicle__plate=plate, status__in=CURRENT_STATUSES)
        taken = taken.exclude(holder=vehicle.get("_applicant")) if vehicle.get("_renewal") else taken
        if taken.exists():
            out.append(RuleViolation("vehicle.in_service", "Este veículo já está vinculado a uma outorga vigente.",
                                     vehicle_bond_basis(pack, modality), field="vehicle.plate"))
    return out


def _bar_basis(pack, modality: str) -> str:
    return pack.basis("cassation.bar_months", modality) or pack.basis("revocation.bars_future_grants", modality)


def entry_violations(*, applicant, kind: str, modality: str, vehicle: dict | None, driver: dict | None,
                     auxiliaries: list[dict], bid_amount: Decimal | None = None,
                     exclude: Application | None = None, steps: tuple[str, ...] = ("all",)) -> list[RuleViolation]:
    """Every entry rule that can be judged from the data, each with its article."""
    pack = regulation.current()
    today = pack.today()
    everything = "all" in steps
    closed = pack.modality_refusal(modality, today)
    if closed is not None:  # no other rule of a modality that does not exist
        return [closed]
    out: list[RuleViolation] = []
    if (everything or "vehicle" in steps) and vehicle is not None:
        out += _vehicle_rules(pack, modality, today, {**vehicle, "_applicant": applicant,
                                                       "_renewal": kind == ApplicationKind.RENEWAL})
    if (everything or "driver" in steps) and driver is not None:
        out += _person_rules(pack, modality, today, birth_date=applicant.birth_date,
                             category=driver.get("cnh_category", ""), first_issued=driver.get("cnh_first_issued"),
                             ear=driver.get("cnh_ear"), prefix="driver.")
    if everything or "auxiliaries" in steps:
        out += rules.auxiliary_count(len(auxiliaries), pack.param("auxiliary.max", modality))
        for i, aux in enumerate(auxiliaries, start=1):
            label = f"condutor auxiliar {i}: {aux.get('name', '')}".strip()
            out += _person_rules(pack, modality, today, birth_date=aux.get("birth_date"),
                                 category=aux.get("cnh_category", ""), first_issued=aux.get("cnh_first_issued"),
                                 ear=aux.get("cnh_ear"), prefix=f"auxiliary_drivers.{i}.", person=label)
            bar = active_bar(aux.get("cpf", ""), today)
            if bar is not None:
                out += rules.cassation_bar(bar.until, True, bar.legal_basis or _bar_basis(pack, modality),
                                           person=f"O {label}", field=f"auxiliary_drivers.{i}.cpf")
            aux_cpf = only_digits(aux.get("cpf", ""))
            out += rules.exclusive_permission(
                bool(aux_cpf) and Authorization.objects.filter(holder__cpf=aux_cpf, status__in=CURRENT_STATUSES)
                .exclude(holder=applicant).exists(),
                pack.param("grant.exclusive_public_permission", modality), person=label,
                field=f"auxiliary_drivers.{i}.cpf")
    if everything or "modality" in steps:  # the person's standing and the call, after the data rules
        if kind == ApplicationKind.NEW:
            call = open_call_for(modality, today)
            out += rules.open_call(call is not None, pack.modality_label(modality),
                                   pack.basis("calls.regular_window", modality) or pack.basis("selection.method", modality))
            out += rules.bid(bid_amount, call.min_bid if call else None, pack.param("selection.method", modality))
            current = applicant.authorizations.filter(status__in=CURRENT_STATUSES).count()
        else:
            current = 0
            window_param = pack.param("renewal.in_request_window", modality)
            if window_param is not None and window_param.value:
                this_year = regular_window(pack, modality, today.year)
                upcoming = this_year if this_year and today <= this_year[1] else regular_window(
                    pack, modality, today.year + 1)
                out += rules.renewal_window(open_call_for(modality, today) is not None, window_param,
                                            pack.modality_label(modality), upcoming)
            previous = _renewable_authorization(applicant, modality)
            if previous is None:
                out.append(RuleViolation("renewal.no_grant", "Não há autorização sua nesta modalidade para renovar.",
                                         pack.basis("grant.validity_years", modality), field="kind"))
            else:
                out += rules.renewal_term(
                    filed_on=today, issued_on=timezone.localtime(previous.issued_at, pack.tz).date(),
                    valid_until=previous.valid_until,
                    renewals=previous.renewals, max_renewals=pack.param("grant.max_renewals", modality),
                    window_days=pack.param("renewal.window_days_before_expiry", modality),
                    act_label=previous.act_name or "Autorização",
                    number=previous.number)
        # filed requests still undecided (a draft is not a request yet; it is judged again when submitted)
        others = applicant.applications.filter(status__in=OPEN_APPLICATION_STATUSES).exclude(
            status=ApplicationStatus.DRAFT)
        if exclude is not None and exclude.pk:
            others = others.exclude(pk=exclude.pk)
        out += rules.one_grant_per_person(current, others.count(), pack.param("grant.max_per_holder", modality))
        bar = active_bar(applicant.cpf or "", today)
        if bar is not None:
            out += rules.cassation_bar(bar.until, True, bar.legal_basis or _bar_basis(pack, modality))
    return out


def holder_types(pack, modality: str) -> list[str]:
    """Who may apply for and hold the grant in this modality (pack key grant.holder_types);
    absent = natural persons only."""
    return list(pack.value("grant.holder_types", modality) or ["pf"])


def check_holder(pack, modality: str, holder: dict | None) -> dict:
    """The holder fields of an application ({holder_type, company_name, cnpj}), judged: a company
    only where the pack's law admits it (e.g. Lei 724/2008, art. 2), with its razão social
    and a CNPJ whose check digits hold. Raises ValidationError naming the field (400)."""
    holder = holder or {}
    holder_type = holder.get("holder_type") or HolderType.PF
    if holder_type not in HolderType.values:
        raise ValidationError({"holder_type": [f"Tipo de titular inválido: {holder_type}."]})
    if holder_type not in holder_types(pack, modality):
        basis = pack.basis("grant.holder_types", modality)
        who = "pessoa física" if holder_type == HolderType.PJ else "pessoa jurídica"
        raise ValidationError({"holder_type": [
            f"Nesta modalidade a permissão é outorgada somente a {who}"
            + (f" ({basis})." if basis else " (a lei municipal não admite outro titular).")]})
    if holder_type == HolderType.PF:
        return {"holder_type": HolderType.PF, "company_name": "", "cnpj": ""}
    errors: dict[str, list[str]] = {}
    company_name = (holder.get("company_name") or "").strip()
    if not company_name:
        errors["company_name"] = ["Informe a razão social da empresa."]
    cnpj = only_digits(holder.get("cnpj") or "")
    try:
        validate_cnpj(cnpj)
    except ValidationError as exc:
        errors["cnpj"] = exc.messages
    if errors:
        raise ValidationError(errors)
    return {"holder_type": HolderType.PJ, "company_name": company_name, "cnpj": cnpj}


def _renewable_authorization(applicant, modality: str) -> Authorization | None:
    return (applicant.authorizations.filter(modality=modality, status__in=[*CURRENT_STATUSES, AuthorizationStatus.EXPIRED])
            .order_by("-valid_until", "-issued_at", "-id").first())


def _not_in_future(errors: dict, field: str, value, today: date, what: str) -> None:
    if value is not None and value > today:
        errors[field] = [f"A data {what} ({value:%d/%m/%Y}) não pode ser futura."]


def _check_data(vehicle: dict | None, auxiliaries: list[dict], applicant, driver: dict | None = None) -> None:
    """Field checks that are not legal rules (identifiers, duplicates, dates that cannot be:
    a future first licensing or first CNH would make an age or a time held negative)."""
    errors: dict[str, list[str]] = {}
    today = regulation.current().today()
    if vehicle is not None:
        _not_in_future(errors, "vehicle.first_registration_date", vehicle.get("first_registration_date"), today,
                       "do primeiro licenciamento")
        year = vehicle.get("manufacture_year")
        if year is not None and int(year) > today.year:
            errors["vehicle.manufacture_year"] = [f"O ano de fabricação ({year}) não pode ser posterior ao ano atual."]
    if driver is not None:  # the holder's dates: the account's birth date and the CNH
        errors.update(driver_dates_errors(birth_date=applicant.birth_date, cnh_first_issued=driver.get("cnh_first_issued"),
                                          today=today, birth_field="birth_date", cnh_field="driver.cnh_first_issued"))
    seen = {only_digits(applicant.cpf or "")}
    for i, aux in enumerate(auxiliaries, start=1):
        errors.update(driver_dates_errors(birth_date=aux.get("birth_date"), cnh_first_issued=aux.get("cnh_first_issued"),
                                          today=today, birth_field=f"auxiliary_drivers.{i}.birth_date",
                                          cnh_field=f"auxiliary_drivers.{i}.cnh_first_issued",
                                          person=f"condutor auxiliar {i}"))
        cpf = normalize_cpf(aux.get("cpf", ""))
        try:
            validate_cpf(cpf)
        except ValidationError as exc:
            errors[f"auxiliary_drivers.{i}.cpf"] = exc.messages
            continue
        if cpf in seen:
            errors[f"auxiliary_drivers.{i}.cpf"] = ["CPF repetido: o titular e cada auxiliar são pessoas diferentes."]
        seen.add(cpf)
    if vehicle is not None and vehicle.get("plate"):
        if Authorization.objects.filter(vehicle__plate=normalize_plate(vehicle["plate"]),
                                        status__in=CURRENT_STATUSES).exclude(holder=applicant).exists():
            errors["vehicle.plate"] = ["Este veículo está cadastrado e autorizado para outra pessoa."]
    if errors:
        raise ValidationError(errors)


