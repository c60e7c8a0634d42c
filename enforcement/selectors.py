"""Reads shared by the HTML views and the API: scoped lists with constant queries."""

from __future__ import annotations

from datetime import date

from django.db.models import Q, QuerySet
from django.http import Http404

from enforcement import rules
from enforcement.models import OPEN_STATUSES, Appeal, Infraction, InfractionStatus
from licensing.grants import selectors as licensing_selectors
from licensing.models import AlvaraStatus, AuthorizationStatus
from portal import regulation
from portal.roles import STAFF_ROLES, has_role
from portal.validators import mask_cpf, normalize_plate, only_digits

S = InfractionStatus


def catalogue(pack=None, modality: str | None = None) -> list[dict]:
    """The pack's infraction catalogue with the penalties each carries (and fine values)."""
    pack = pack or regulation.current()
    unit = pack.fiscal_unit_value()
    unit_name = pack.fiscal_unit.get("name", "")
    out = []
    for item in pack.infractions(modality):
        entry = rules.catalogue_entry(item, pack.penalty_codes)
        override = pack.value(f"fine.{entry['code']}")
        for p in entry["penalties"]:
            if p["kind"] != "fine":
                continue
            if override not in (None, ""):
                p["fine_amount"] = str(rules.money(override))
                p["value_set"] = True
            elif p.get("fine_units") is not None:
                p["fiscal_unit"] = unit_name
                if unit is not None:
                    p["fine_amount"] = str(rules.money(unit[0] * rules.Decimal(str(p["fine_units"]))))
                else:
                    p["value_set"] = False
        out.append(entry)
    return out


def _base() -> QuerySet[Infraction]:
    return Infraction.objects.select_related("holder", "agent", "authorization", "vehicle")


def infractions_for(user) -> QuerySet[Infraction]:
    """Staff see every auto; a holder sees the autos addressed to them; others nothing."""
    if has_role(user, *STAFF_ROLES):
        return _base()
    if getattr(user, "is_authenticated", False):
        return _base().filter(holder=user)
    return Infraction.objects.none()


def infraction_for(user, pk: int) -> Infraction:
    found = infractions_for(user).filter(pk=pk).first()
    if found is None:
        raise Http404("Auto de infração não encontrado.")
    return found


def judge_queue(today: date) -> QuerySet[Infraction]:
    """What awaits a julgador: autos ready for judgement and pending appeals, oldest first."""
    pending_appeal = Appeal.objects.filter(granted__isnull=True).values("infraction_id")
    return _base().filter(
        Q(status__in=[S.DEFENSE_FILED, S.AWAITING_JUDGEMENT])
        | Q(status=S.NOTIFIED, defense_deadline__lt=today)
        | Q(pk__in=pending_appeal, status__in=[S.APPEALED, S.DISMISSED])
    ).order_by("status_changed_at", "id")


def defense_running(today: date) -> QuerySet[Infraction]:
    """Notified autos whose defense period is still running (they will reach the queue)."""
    return _base().filter(status=S.NOTIFIED, defense_deadline__gte=today).order_by("defense_deadline", "id")


def notice_queue() -> QuerySet[Infraction]:
    """Autos issued and not yet notified (clerk)."""
    return _base().filter(status=S.ISSUED).order_by("created_at", "id")


def open_autos_for_plate(plate: str) -> QuerySet[Infraction]:
    return Infraction.objects.filter(plate=normalize_plate(plate), status__in=OPEN_STATUSES).order_by("-occurred_at")


def vehicle_status(plate: str, today: date, driver_cpf: str = "") -> dict:
    """The verdict an agent needs in the street: authorized or irregular, and why.

    With the driver's CPF, also whether that person may drive it (the holder, or a
    driver named on a current alvará of the grant)."""
    plate = normalize_plate(plate)
    driver_cpf = only_digits(driver_cpf or "")
    pack = regulation.current()
    auth = licensing_selectors.current_authorization_for_plate(plate) or licensing_selectors.latest_authorization_for_plate(plate)
    alvaras = list(licensing_selectors.current_alvaras(auth)) if auth else []
    reasons = []
    if auth is None:
        reasons.append("Veículo sem autorização para o serviço.")
    else:
        if auth.status != AuthorizationStatus.ACTIVE:
            reasons.append(f"{auth.act_name} {auth.get_status_display()}.")
        if auth.valid_until < today:
            reasons.append(f"{auth.act_name} vencida em {auth.valid_until:%d/%m/%Y}.")
        if pack.act("alvara").get("scope", "none") != "none":
            valid = [a for a in alvaras if a.status == AlvaraStatus.ACTIVE and a.valid_until >= today]
            if not valid:
                retained = any(a.status == AlvaraStatus.RETAINED for a in alvaras)
                reasons.append("Alvará retido pela fiscalização." if retained else "Sem alvará válido.")
    driver = None
    if driver_cpf:
        role = None
        if auth is not None and auth.holder.cpf == driver_cpf:
            role = "autorizatário"
        for a in alvaras:
            if a.person.cpf == driver_cpf and a.status == AlvaraStatus.ACTIVE and a.valid_until >= today:
                role = role or ("condutor auxiliar" if a.is_auxiliary else "condutor")
        from licensing.requests.selectors import auxiliary_reregistration_for

        reregistration = auxiliary_reregistration_for(auth, driver_cpf, today)
        if role is None and reregistration is not None and pack.act("alvara").get("scope", "none") == "none":
            role = "condutor auxiliar"  # no alvará under this law: the registration is what authorizes
        driver = {"cpf": mask_cpf(driver_cpf), "authorized": role is not None, "role": role,
                  "reregistration": reregistration,
                  "reregistration_overdue": bool(reregistration and reregistration["overdue"]),
                  "notes": ["recadastramento vencido"] if reregistration and reregistration["overdue"] else []}
        if role is None:
            reasons.append("Condutor sem alvará ou cadastro nesta autorização.")
    open_qs = open_autos_for_plate(plate)
    open_autos = list(open_qs[:20])
    open_count = len(open_autos) if len(open_autos) < 20 else open_qs.count()
    return {
        "plate": plate,
        "authorized": not reasons,
        "verdict": "autorizado" if not reasons else "irregular",
        "reasons": reasons,
        "driver": driver,
        "authorization": None if auth is None else {
            "id": auth.pk, "number": auth.number, "act": auth.act_name, "modality": auth.modality,
            "modality_label": pack.modality_label(auth.modality), "status": auth.status,
            "status_label": auth.get_status_display(), "valid_from": auth.valid_from, "valid_until": auth.valid_until,
            "suspended_until": auth.suspended_until, "holder": auth.holder.display_name,
        },
        "alvara": next(({"id": a.pk, "number": a.number, "status": a.status, "status_label": a.get_status_display(),
                         "valid_until": a.valid_until,
                         "person": a.person.display_name} for a in alvaras if not a.is_auxiliary), None),
        "alvaras": [
            {"id": a.pk, "number": a.number, "status": a.status, "status_label": a.get_status_display(),
             "valid_until": a.valid_until, "person": a.person.display_name, "is_auxiliary": a.is_auxiliary}
            for a in alvaras
        ],
        "open_autos_count": open_count,
        "open_autos": [
            {"id": i.pk, "number": i.number, "status": i.status, "status_label": i.get_status_display(),
             "infraction_code": i.infraction_code,
             "occurred_at": i.occurred_at}
            for i in open_autos
        ],
    }


def publication_list(pack=None) -> list[dict]:
    """Decisions to publish in the Diário Oficial where the pack requires it
    (PL 015/2025 art. 24, §3: cassações; art. 27, §1: decisions of appeals)."""
    pack = pack or regulation.current()
    required = pack.value("publication.required_for") or []
    out: list[dict] = []
    if "cassations" in required:
        for inf in _base().filter(status=S.FINAL).order_by("-final_on", "-id"):
            if rules.ENDING_KINDS & set((inf.penalty or {}).get("kinds", [])):
                out.append({"kind": "cassação", "infraction": inf, "on": inf.final_on,
                            "text": f"Cassação da {inf.authorization.act_name if inf.authorization else 'autorização'} "
                                    f"nº {inf.authorization.number if inf.authorization else '—'} "
                                    f"(auto de infração nº {inf.number})",
                            "legal_basis": pack.basis("publication.required_for")})
    if "appeal_decisions" in required:
        for appeal in (Appeal.objects.select_related("infraction", "infraction__holder")
                       .filter(decided_at__isnull=False).order_by("-decided_at", "-id")):
            out.append({"kind": "decisão de recurso", "infraction": appeal.infraction, "on": appeal.decided_at.date(),
                        "text": f"Recurso {'de ofício ' if appeal.ex_officio else ''}no auto nº {appeal.infraction.number}: "
                                f"{'provido' if appeal.granted else 'não provido'} (decisão nº {appeal.number})",
                        "legal_basis": pack.basis("publication.required_for")})
    return sorted(out, key=lambda r: r["on"], reverse=True)
