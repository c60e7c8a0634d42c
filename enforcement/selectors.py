"""Reads shared by the HTML views and the API: scoped lists with constant queries."""

from __future__ import annotations

from datetime import date, timedelta

from django.db.models import Q, QuerySet
from django.http import Http404

from enforcement import rules
from enforcement.models import OPEN_STATUSES, Appeal, Infraction, InfractionStatus
from licensing.grants import selectors as licensing_selectors
from licensing.models import AlvaraStatus, AuthorizationStatus
from portal import regulation
from portal.exceptions import RuleViolation
from portal.roles import STAFF_ROLES, Role, has_role
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
    """Staff see every auto; the designated appeal authority the autos that reached an appeal
    (to read the process it decides); a holder the autos addressed to them; others nothing."""
    if has_role(user, *STAFF_ROLES):
        return _base()
    if not getattr(user, "is_authenticated", False):
        return Infraction.objects.none()
    if has_role(user, Role.APPEAL_AUTHORITY):
        return _base().filter(Q(pk__in=Appeal.objects.values("infraction_id")) | Q(holder=user))
    return _base().filter(holder=user)


def infraction_for(user, pk: int) -> Infraction:
    found = infractions_for(user).filter(pk=pk).first()
    if found is None:
        raise Http404("Auto de infração não encontrado.")
    return found


def appeal_designation(pack, modality: str | None, instance: int) -> tuple[bool, str]:
    """Whether the municipality designates the authority that decides the appeal of ``instance``
    (``rules.appeal_authority_key``), and the article or act that says who decides it."""
    key = rules.appeal_authority_key(instance)
    if pack.value(key, modality):
        return True, pack.basis(key, modality)
    return False, pack.basis("appeal.authority", modality) or pack.basis("appeal.distinct_judge", modality)


def appeal_decider_refusal(user, inf: Infraction, pack=None, instance: int | None = None) -> RuleViolation | None:
    """Why ``user`` may not decide the pending appeal of ``inf`` in the municipality in scope
    (designated authority or julgador; the two-people rule apart), or None."""
    pack = pack or regulation.current()
    designated, basis = appeal_designation(pack, inf.modality or None, instance or inf.appeal_instance)
    return rules.appeal_decider_violation(designated=designated, holds_authority=has_role(user, Role.APPEAL_AUTHORITY),
                                          is_judge=has_role(user, Role.JUDGE), legal_basis=basis)


def appeals_decidable_by(user, pack) -> Q:
    """The autos whose pending appeal ``user`` may decide, by modality and instance (the
    designation may differ for each): a filter for the queue."""
    allowed = Q(pk__in=[])
    for modality in [*pack.modalities, ""]:
        for instance in (1, 2):
            designated, _basis = appeal_designation(pack, modality or None, instance)
            if rules.appeal_decider_violation(designated=designated,
                                              holds_authority=has_role(user, Role.APPEAL_AUTHORITY),
                                              is_judge=has_role(user, Role.JUDGE), legal_basis="") is None:
                allowed |= (Q(modality=modality, appeal_instance__lte=1) if instance == 1
                            else Q(modality=modality, appeal_instance__gte=2))
    return allowed


def judge_queue(today: date, *, first_instance: bool = True, appeals: Q | None = None) -> QuerySet[Infraction]:
    """What awaits a julgador: autos ready for judgement (``first_instance``) and pending appeals
    (those matching ``appeals``, e.g. ``appeals_decidable_by``; None: all), oldest first."""
    pending_appeal = Appeal.objects.filter(granted__isnull=True).values("infraction_id")
    waiting = Q(pk__in=pending_appeal, status__in=[S.APPEALED, S.DISMISSED])
    if appeals is not None:
        waiting &= appeals
    if first_instance:
        waiting |= Q(status__in=[S.DEFENSE_FILED, S.AWAITING_JUDGEMENT]) | Q(status=S.NOTIFIED, defense_deadline__lt=today)
    return _base().filter(waiting).order_by("status_changed_at", "id")


def defense_running(today: date) -> QuerySet[Infraction]:
    """Notified autos whose defense period is still running (they will reach the queue)."""
    return _base().filter(status=S.NOTIFIED, defense_deadline__gte=today).order_by("defense_deadline", "id")


def notice_queue() -> QuerySet[Infraction]:
    """Autos issued and not yet notified (clerk)."""
    return _base().filter(status=S.ISSUED).order_by("created_at", "id")


def decision_notice_queue() -> QuerySet[Infraction]:
    """Upheld decisions waiting for their notice (clerk): the appeal period has not started."""
    return _base().filter(status=S.UPHELD, decision_notice_pending=True).order_by("status_changed_at", "id")


def open_autos_for_plate(plate: str) -> QuerySet[Infraction]:
    return Infraction.objects.filter(plate=normalize_plate(plate), status__in=OPEN_STATUSES).order_by("-occurred_at")


def authorized_drivers(auth, today: date, pack, *, with_photos: bool) -> list[dict]:
    """Who may drive the vehicle, for the agent to compare with the person at the wheel: the
    holder, the registered auxiliaries and the preposto in office, each with their photograph
    where the pack asks for one (``photo = true`` on a [[documents]] item; rules.photo_document_items).
    ``with_photos`` is False for staff who are not agents: they get no link to the photograph."""
    from django.urls import reverse

    from licensing.applications.selectors import accepted_photos
    from licensing.requests.selectors import registered_drivers

    if auth is None:
        return []
    people = [("autorizatário", auth.holder), *registered_drivers(auth, today)]
    items = rules.photo_document_items(pack.documents(auth.modality))
    photos = accepted_photos([p.pk for _, p in people], [i["code"] for i in items]) if with_photos else {}
    out = []
    for role, person in people:
        doc = photos.get(person.pk)
        shown = doc is not None and doc.mime in rules.PHOTO_MIMES
        out.append({
            "role": role, "name": person.display_name, "cpf": mask_cpf(person.cpf or ""),
            "photo_asked": bool(items),
            "photo_legal_basis": "; ".join(dict.fromkeys(i["legal_basis"] for i in items)),
            "photo_url": reverse("enforcement:driver-photo", kwargs={"doc_id": doc.pk}) if shown else None,
        })
    return out


def road_check_photo(doc_id: int):
    """The accepted photograph an agent's road check links to; anything else is a 404 (another
    document, a refused or superseded file, one purged under the LGPD, an item not marked photo)."""
    from licensing.applications.models import ApplicationDocument, DocumentStatus

    codes = [i["code"] for i in rules.photo_document_items(regulation.current().data.get("documents", []))]
    doc = ApplicationDocument.objects.filter(
        pk=doc_id, code__in=codes, status=DocumentStatus.ACCEPTED, superseded_by__isnull=True,
        purged_at__isnull=True, mime__in=rules.PHOTO_MIMES,
    ).select_related("application").first()
    if doc is None or not doc.file:
        raise Http404("Foto não encontrada.")
    return doc


def vehicle_status(plate: str, today: date, driver_cpf: str = "", *, with_photos: bool = False) -> dict:
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
        from licensing.requests.selectors import (
            auxiliary_reregistration_for,
            registered_driver_role,
        )

        reregistration = auxiliary_reregistration_for(auth, driver_cpf, today)
        registered = registered_driver_role(auth, driver_cpf, today)
        scope = pack.act("alvara").get("scope", "none")
        if role is None and registered is not None:
            if scope == "driver":
                # each driver carries an alvará of their own: registered, but without a valid one
                reasons.append(f"O {registered} está cadastrado nesta autorização, mas sem alvará de condutor "
                               f"válido ({pack.act('alvara').get('legal_basis', '')}).")
            else:
                # the vehicle's alvará names the registered drivers, or (no alvará under this law)
                # the registration itself is what authorizes them
                role = registered
        driver = {"cpf": mask_cpf(driver_cpf), "authorized": role is not None, "role": role,
                  "reregistration": reregistration,
                  "reregistration_overdue": bool(reregistration and reregistration["overdue"]),
                  "notes": ["recadastramento vencido"] if reregistration and reregistration["overdue"] else []}
        if role is None and registered is None:
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
        # what the agent compares with the vehicle stopped in front of them
        "vehicle": None if auth is None or auth.vehicle is None else {
            "make": auth.vehicle.make, "model": auth.vehicle.model, "color": auth.vehicle.color,
            "manufacture_year": auth.vehicle.manufacture_year, "plate": auth.vehicle.display_plate,
        },
        # who may drive it, with a photograph where the law asks for one (agents only)
        "drivers": authorized_drivers(auth, today, pack, with_photos=with_photos),
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


# --- the procedure of one auto: periods, what may be done now and by whom ---------------
def procedure(inf: Infraction, pack=None) -> dict:
    """Timeline of the procedure, each period with start, end, article and how it was counted, and
    the acts that may be done now (by whom) — for agents, julgadores, clerks and the holder."""
    from enforcement.models import DecisionNotice, DefenseWaiver, Judgement

    pack = pack or regulation.current()
    modality = inf.modality or None
    today = pack.today()
    notice = getattr(inf, "notice", None) if hasattr(inf, "notice") else None
    defense = getattr(inf, "defense", None) if hasattr(inf, "defense") else None
    waiver = DefenseWaiver.objects.filter(infraction=inf).first()
    judgement = Judgement.objects.filter(infraction=inf).first()
    dnotices = list(DecisionNotice.objects.filter(infraction=inf))
    appeals = list(inf.appeals.all())
    periods: list[dict] = []
    steps: list[dict] = [{"date": inf.occurred_on, "label": "Infração constatada; auto lavrado",
                          "legal_basis": (inf.catalogue[0]["legal_basis"] if inf.catalogue else "")}]
    if notice is not None:
        how = "recusa em receber" if notice.refused else "publicação" if notice.published else "ciência"
        steps.append({"date": notice.acknowledged_on, "label": f"Notificação da autuação ({how})",
                      "legal_basis": pack.basis("defense.days", modality)})
    if inf.defense_deadline and notice is not None:
        state = ("defesa apresentada" if defense else "prazo renunciado" if waiver
                 else "em curso" if today <= inf.defense_deadline else "encerrado")
        periods.append({"code": "defense", "label": "Prazo da defesa prévia", "start": notice.acknowledged_on,
                        "end": inf.defense_deadline, "legal_basis": pack.basis("defense.days", modality),
                        "counted": inf.defense_deadline_note, "state": state})
    if defense is not None:
        steps.append({"date": defense.filed_on, "label": f"Defesa prévia apresentada ({defense.get_channel_display()})",
                      "legal_basis": pack.basis("defense.days", modality)})
    if waiver is not None:
        steps.append({"date": waiver.waived_on, "label": f"Renúncia escrita ao prazo de defesa ({waiver.get_channel_display()})",
                      "legal_basis": pack.basis("defense.days", modality)})
    if judgement is not None:
        steps.append({"date": judgement.decided_on, "label": f"Decisão nº {judgement.number}: "
                      + ("procedente" if judgement.upheld else "improcedente"), "legal_basis": ""})
    for dn in dnotices:
        key = "appeal.second_instance_days" if dn.instance > 1 else "appeal.days"
        how = "recusa em receber" if dn.refused else "publicação" if dn.published else "ciência"
        steps.append({"date": dn.acknowledged_on, "label": f"Notificação da decisão nº {dn.decision} ({how})",
                      "legal_basis": pack.basis("appeal.counted_from", modality)})
        filed = next((a for a in appeals if a.instance == dn.instance and not a.ex_officio), None)
        state = ("recurso interposto" if filed else "em curso" if dn.appeal_deadline and today <= dn.appeal_deadline
                 else "encerrado")
        label = "Prazo do recurso" + (f" ({dn.instance}ª instância)" if dn.instance > 1 else "")
        periods.append({"code": f"appeal{dn.instance}", "label": label, "start": dn.acknowledged_on,
                        "end": dn.appeal_deadline, "legal_basis": pack.basis(key, modality),
                        "counted": inf.appeal_deadline_note if dn.instance == inf.appeal_instance else "",
                        "state": state})
    if not dnotices and inf.appeal_deadline and judgement is not None:
        periods.append({"code": "appeal1", "label": "Prazo do recurso", "start": judgement.decided_on,
                        "end": inf.appeal_deadline, "legal_basis": pack.basis("appeal.days", modality),
                        "counted": inf.appeal_deadline_note,
                        "state": "em curso" if today <= inf.appeal_deadline else "encerrado"})
    for a in appeals:
        steps.append({"date": a.filed_on, "label": ("Revisão de ofício aberta" if a.ex_officio else
                                                    f"Recurso interposto ({a.get_channel_display()})")
                      + (f" — {a.authority}" if a.authority else ""), "legal_basis": ""})
        if a.decided_at:
            steps.append({"date": a.decided_on or a.decided_at.astimezone(pack.tz).date(),
                          "label": f"Decisão do recurso nº {a.number}: " + ("provido" if a.granted else "não provido"),
                          "legal_basis": ""})
    if inf.review_hearing_deadline:
        periods.append({"code": "review_hearing", "label": "Prazo das alegações na revisão de ofício", "start": None,
                        "end": inf.review_hearing_deadline,
                        "legal_basis": pack.basis("appeal.ex_officio_hearing_days", modality), "counted": "",
                        "state": "em curso" if today <= inf.review_hearing_deadline else "encerrado"})
    if inf.final_on:
        steps.append({"date": inf.final_on, "label": "Decisão definitiva", "legal_basis": ""})
    if inf.status == S.CANCELLED:
        steps.append({"date": inf.status_changed_at.astimezone(pack.tz).date(), "label": "Auto cancelado",
                      "legal_basis": ""})
    return {"periods": periods, "timeline": sorted(steps, key=lambda s: s["date"]),
            "actions": allowed_actions(inf, pack, today=today, defense=defense, waiver=waiver, appeals=appeals)}


def allowed_actions(inf: Infraction, pack, *, today: date, defense, waiver, appeals) -> list[dict]:
    """What may be done now, by whom, until or from when, with the article."""
    modality = inf.modality or None
    out: list[dict] = []

    def add(code, label, by, legal_basis="", until=None, from_=None):
        out.append({"code": code, "label": label, "by": by, "legal_basis": legal_basis, "until": until,
                    "from": from_})

    defense_basis = pack.basis("defense.days", modality)
    if inf.status == S.ISSUED:
        add("notify", "Registrar a notificação da autuação (ciência, recusa ou publicação)", "atendente",
            pack.basis("defense.days", modality))
    elif inf.status == S.NOTIFIED and inf.defense_deadline:
        if today <= inf.defense_deadline:
            add("defense", "Apresentar defesa prévia (pelo portal, no balcão ou pelo correio)", "autuado",
                defense_basis, until=inf.defense_deadline)
            add("defense_waiver", "Renunciar por escrito ao prazo de defesa", "autuado", defense_basis,
                until=inf.defense_deadline)
            add("defense_paper", "Registrar defesa ou renúncia entregue em papel", "atendente", defense_basis,
                until=inf.defense_deadline)
            add("judge", "Julgar o auto", "julgador", defense_basis,
                from_=inf.defense_deadline + timedelta(days=1))
        else:
            add("judge", "Julgar o auto", "julgador", defense_basis, from_=today)
    elif inf.status in (S.DEFENSE_FILED, S.AWAITING_JUDGEMENT):
        add("judge", "Julgar o auto", "julgador", defense_basis, from_=today)
    elif inf.status == S.UPHELD:
        key = "appeal.second_instance_days" if inf.appeal_instance > 1 else "appeal.days"
        if inf.decision_notice_pending:
            add("decision_notice", "Registrar a notificação da decisão (abre o prazo do recurso)", "atendente",
                pack.basis("appeal.counted_from", modality))
            add("appeal", "Recorrer da decisão", "autuado", pack.basis(key, modality))
        elif inf.appeal_deadline and today <= inf.appeal_deadline:
            add("appeal", "Recorrer da decisão", "autuado", pack.basis(key, modality), until=inf.appeal_deadline)
            add("appeal_paper", "Registrar recurso entregue em papel", "atendente", pack.basis(key, modality),
                until=inf.appeal_deadline)
        elif inf.appeal_deadline:
            add("final", "Decisão definitiva (prazo de recurso encerrado)", "sistema", pack.basis(key, modality),
                from_=inf.appeal_deadline + timedelta(days=1))
    elif inf.status == S.APPEALED:
        pending = next((a for a in appeals if a.granted is None), None)
        authority = pending.authority if pending else ""
        designated, basis = appeal_designation(pack, modality, pending.instance if pending else inf.appeal_instance)
        distinct = pack.basis("appeal.distinct_judge", modality)
        if designated:  # the municipality's designation names who acts now: its profile, not any julgador
            add("appeal_judge", "Julgar o recurso" + (f" ({authority})" if authority else "")
                + " — pela autoridade recursal designada (perfil “Autoridade recursal”), não quem decidiu a "
                "instância anterior", Role.APPEAL_AUTHORITY.value, "; ".join(dict.fromkeys(b for b in (basis, distinct) if b)))
        else:
            add("appeal_judge", "Julgar o recurso" + (f" ({authority})" if authority else "")
                + " — outro julgador, não quem decidiu a instância anterior", "julgador",
                distinct or pack.basis("appeal.authority", modality))
    elif inf.status == S.DISMISSED and any(a.ex_officio and a.granted is None for a in appeals):
        basis = pack.basis("appeal.ex_officio_review", modality)
        if inf.review_hearing_deadline is None:
            add("review_hearing", "Intimar o autuado a se manifestar antes de reformar a decisão", "atendente", basis)
        elif today <= inf.review_hearing_deadline:
            add("review_allegations", "Apresentar alegações na revisão de ofício", "autuado", basis,
                until=inf.review_hearing_deadline)
        designated, designation = appeal_designation(pack, modality, 1)
        add("review_judge", "Julgar a revisão de ofício (manter o arquivamento a qualquer tempo; reformar só "
            "depois de ouvido o autuado)" + (" — pela autoridade recursal designada (perfil “Autoridade recursal”)"
                                             if designated else ""),
            Role.APPEAL_AUTHORITY.value if designated else "julgador",
            f"{basis}; {designation}" if designated else basis)
    return out
