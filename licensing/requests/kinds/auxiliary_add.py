"""Inclusão de condutor auxiliar: the pack's driver requirements, the limit of auxiliaries
and bars; granted, the auxiliary is registered and gets an alvará (or the vehicle's is reissued)."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError

from licensing.applications import rules as entry_rules
from licensing.grants.models import CURRENT_STATUSES, AmendmentKind, Authorization
from licensing.grants.selectors import active_bar
from licensing.grants.services import alvara_issue, amendment_issue
from licensing.requests import forms
from licensing.requests.kinds.base import (
    Kind,
    alvara_scope,
    documents_presented,
    raise_all,
    read_bool,
    read_cpf,
    read_date,
    read_text,
    register,
    vehicle_alvara_reissue,
)
from licensing.requests.models import (
    AuxiliaryDriver,
    AuxiliaryStatus,
    LifecycleRequest,
    RequestKind,
    RequestStatus,
)
from licensing.requests.rules import (
    auxiliary_limit_violation,
    driver_requirement_violations,
)
from portal import regulation
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import RuleViolation
from portal.roles import Role
from portal.validators import driver_dates_errors, only_digits


def offered(pack, modality: str) -> bool:
    return pack.value("auxiliary.max", modality, 0) != 0


def refusal(pack, auth: Authorization, state: dict, today: date) -> Exception | None:
    return auxiliary_limit_violation(current=len(state["auxiliaries"]) + state["filed_adds"],
                                     max_param=pack.param("auxiliary.max", auth.modality))


def clean(pack, auth: Authorization, data: dict, on: date, exclude_pk: int | None) -> tuple[dict, str]:
    cpf = read_cpf(data)
    clean = {
        "cpf": cpf,
        "name": read_text(data, "name", "o nome do condutor auxiliar", max_length=200),
        "birth_date": read_date(data, "birth_date", "a data de nascimento", required=False),
        "cnh_number": only_digits(str(data.get("cnh_number") or "")),
        "cnh_category": read_text(data, "cnh_category", "a categoria da CNH", max_length=3).upper(),
        "cnh_first_issued": read_date(data, "cnh_first_issued", "a data da primeira habilitação", required=False),
        "cnh_ear": read_bool(data, "cnh_ear"),
    }
    if not clean["cnh_number"]:
        raise ValidationError({"cnh_number": ["Informe o número da CNH do condutor auxiliar."]})
    errors = driver_dates_errors(birth_date=clean["birth_date"], cnh_first_issued=clean["cnh_first_issued"], today=on)
    if errors:
        raise ValidationError(errors)
    if cpf == (auth.holder.cpf or ""):
        raise ValidationError({"cpf": ["O titular não pode ser cadastrado como seu próprio condutor auxiliar."]})
    if AuxiliaryDriver.objects.filter(authorization=auth, person__cpf=cpf, status=AuxiliaryStatus.ACTIVE).exists():
        raise RuleViolation("auxiliary_duplicate", "Este condutor já é auxiliar desta autorização.", field="cpf",
                            conflict=True)
    max_param = pack.param("auxiliary.max", auth.modality)
    current = AuxiliaryDriver.objects.filter(authorization=auth, status=AuxiliaryStatus.ACTIVE).count()
    pending = LifecycleRequest.objects.filter(authorization=auth, kind=RequestKind.AUXILIARY_ADD,
                                              status=RequestStatus.FILED)
    if exclude_pk:
        pending = pending.exclude(pk=exclude_pk)
    violations = []
    limit = auxiliary_limit_violation(current=current + pending.count(), max_param=max_param)
    if limit:
        raise limit
    bar = active_bar(cpf, on)
    if bar is not None:
        violations.append(RuleViolation("auxiliary_barred", "Este condutor está impedido de atuar no serviço "
                                        f"({bar.reason}).", bar.legal_basis, field="cpf", conflict=True))
    # the same checks as an auxiliary named in the application: exclusivity (a current holder of
    # another grant may not be someone's auxiliary) and the pack's documents for auxiliaries
    violations += entry_rules.exclusive_permission(
        Authorization.objects.filter(holder__cpf=cpf, status__in=CURRENT_STATUSES).exclude(pk=auth.pk).exists(),
        pack.param("grant.exclusive_public_permission", auth.modality), person="condutor auxiliar", field="cpf")
    violations += driver_requirement_violations(
        birth_date=clean["birth_date"], cnh_category=clean["cnh_category"],
        cnh_first_issued=clean["cnh_first_issued"], cnh_ear=clean["cnh_ear"], on=on,
        min_age=pack.param("driver.min_age", auth.modality),
        categories=pack.param("driver.cnh_categories", auth.modality),
        cnh_min_years=pack.param("driver.cnh_min_years", auth.modality),
        ear_required=pack.param("driver.ear_required", auth.modality),
    )
    raise_all(violations)
    clean["documents"] = documents_presented(pack, auth, data, "auxiliary", kind="new")
    for key in ("birth_date", "cnh_first_issued"):
        clean[key] = clean[key].isoformat() if clean[key] else None
    return clean, max_param.legal_basis if max_param else ""


def make_form(form_class, data, *, auth: Authorization, user):
    return form_class(data, documents=regulation.current().documents(auth.modality, "new", applies_to="auxiliary"))


def apply(*, actor, req, auth, pack, reason) -> dict:
    data = req.data
    User = get_user_model()
    person = User.objects.filter(cpf=data["cpf"]).first()
    if person is None:
        person = User(username=data["cpf"], cpf=data["cpf"], name=data["name"],
                      birth_date=date.fromisoformat(data["birth_date"]) if data.get("birth_date") else None)
        person.set_unusable_password()
        person.save()
        person.groups.add(Group.objects.get(name=Role.APPLICANT))
        audit_log(actor=actor, obj=person, action=AuditAction.USER_CREATED_AS_AUXILIARY, reason="Cadastro do condutor auxiliar")
    today = pack.today()
    aux = AuxiliaryDriver.objects.create(
        authorization=auth, person=person, cnh_number=data["cnh_number"], cnh_category=data["cnh_category"],
        cnh_first_issued=date.fromisoformat(data["cnh_first_issued"]) if data.get("cnh_first_issued") else None,
        cnh_ear=data["cnh_ear"], added_on=today, added_request=req,
    )
    audit_log(actor=actor, obj=aux, action=AuditAction.AUXILIARY_ADDED, to_state=aux.status, reason=reason,
              data={"authorization": auth.number, "request": req.protocol})
    result: dict[str, Any] = {"auxiliary": aux.pk}
    if alvara_scope(pack) == "driver":
        new = alvara_issue(actor=actor, authorization=auth, person=person, is_auxiliary=True)
        result["alvara"] = {"id": new.pk, "number": new.number}
    else:
        new = vehicle_alvara_reissue(actor=actor, auth=auth, pack=pack, reason="Inclusão de condutor auxiliar")
        if new:
            result["alvara"] = {"id": new.pk, "number": new.number}
    amendment = amendment_issue(
        actor=actor, authorization=auth, kind=AmendmentKind.AUXILIARY_ADD, reason=reason or "Inclusão de condutor auxiliar",
        changes=[{"label": "Condutor auxiliar incluído", "before": "", "after": person.display_name}],
        source=f"pedido {req.protocol}", legal_basis=req.legal_basis, alvara=new)
    result["amendment"] = {"id": amendment.pk, "number": amendment.number}
    return result


KIND = register(Kind(
    code=RequestKind.AUXILIARY_ADD, form=forms.AuxiliaryAddForm, clean=clean, apply=apply, offered=offered,
    refusal=refusal, make_form=make_form, multiple_open=True,
    labels={"documents": "documentos apresentados", "cpf": "CPF", "name": "nome", "birth_date": "data de nascimento",
            "cnh_number": "número da CNH", "cnh_category": "categoria da CNH", "cnh_first_issued": "primeira habilitação",
            "cnh_ear": "CNH com EAR", "amendment": "ato de alteração"},
))
