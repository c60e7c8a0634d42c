"""Every write of enforcement: issue, notice, defense, judgement, appeal, effects, cancel.

Each service is keyword-only, runs in one transaction, locks the auto, checks its status
against ``INFRACTION_TRANSITIONS`` (in ``_transition``), applies the rules of
``enforcement.rules`` with the pack's parameters and writes an audit entry.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime, timedelta
from decimal import Decimal, InvalidOperation

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from enforcement import rules
from enforcement.models import (
    INFRACTION_TRANSITIONS,
    JUDGEABLE_STATUSES,
    OPEN_STATUSES,
    Appeal,
    Attachment,
    DecisionNotice,
    Defense,
    DefenseWaiver,
    FilingChannel,
    Fine,
    Infraction,
    InfractionStatus,
    Judgement,
    Notice,
    ProofPhoto,
    RecordedRegulation,
)
from licensing.grants import selectors as licensing_selectors
from licensing.grants import services as licensing_services
from licensing.grants.rules import add_months
from licensing.models import AlvaraStatus, AuthorizationStatus
from portal import regulation
from portal.audit import audit_log
from portal.exceptions import InvalidTransition, RuleViolation
from portal.notifications import notify
from portal.numbering import document_number, verification_code
from portal.uploads import validate_upload
from portal.validators import normalize_plate, only_digits, validate_cpf, validate_plate

S = InfractionStatus
# The portal's default when the pack has no ``fees.due_days``: 30 days to pay a fine.
DEFAULT_FINE_DUE_DAYS = 30
# Clock skew tolerated between the agent's phone and the server.
FUTURE_TOLERANCE = timedelta(minutes=10)


# --- helpers ------------------------------------------------------------------------
def _lock(infraction: Infraction) -> Infraction:
    return Infraction.objects.select_for_update().get(pk=infraction.pk)


def _transition(infraction: Infraction, to: str, *, actor, reason: str = "", data: dict | None = None,
                fields: Iterable[str] = ()) -> Infraction:
    """The one place an auto changes status (row already locked by the caller)."""
    before = infraction.status
    if to not in INFRACTION_TRANSITIONS.get(before, set()):
        raise InvalidTransition(
            f"O auto nº {infraction.number} está {S(before).label} e não pode passar a {S(to).label}."
        )
    infraction.status = to
    infraction.status_changed_at = timezone.now()
    infraction.save(update_fields=["status", "status_changed_at", *fields])
    audit_log(actor=actor, obj=infraction, action=f"infraction_{to}", from_state=before, to_state=to,
              reason=reason, data=data or {})
    return infraction


def _detail_link(infraction: Infraction) -> str:
    return reverse("enforcement:detail", kwargs={"pk": infraction.pk})


def _tell_holder(infraction: Infraction, subject: str, body: str, key: str) -> None:
    if infraction.holder_id:
        notify(recipient=infraction.holder, subject=subject, body=body, link=_detail_link(infraction),
               dedup_key=f"infraction:{infraction.pk}:{key}")


def _store_files(infraction: Infraction, files, *, kind: str | None, actor) -> None:
    for f in files or ():
        mime = validate_upload(f)
        if kind is None:
            ProofPhoto.objects.create(infraction=infraction, file=f, mime=mime, uploaded_by=actor)
        else:
            Attachment.objects.create(infraction=infraction, kind=kind, file=f, mime=mime,
                                      original_name=(getattr(f, "name", "") or "")[:200], uploaded_by=actor)


def _validate_files(files, field: str) -> None:
    for f in files or ():
        try:
            validate_upload(f)
        except ValidationError as exc:
            raise ValidationError({field: exc.messages}) from exc


def catalogue_entries(pack, codes: list[str]) -> list[dict]:
    out = []
    for code in codes:
        item = pack.infraction(code)
        if item is not None:
            out.append(rules.catalogue_entry(item, pack.penalty_codes))
    return out


def fine_overrides(pack, codes: list[str], at: date | None = None) -> dict[str, Decimal]:
    """Fine values set by decree, entered by the admin as parameters ``fine.<code>`` (reais),
    in force on the day of the infraction."""
    out = {}
    for code in codes:
        param = pack.param(f"fine.{code}", at=at)
        if param is None or (at is not None and param.effective_from > at):
            continue  # no decree value in force on that day: the catalogue's value applies
        raw = param.value
        if raw not in (None, ""):
            try:
                out[code] = Decimal(str(raw))
            except InvalidOperation:
                continue
    return out


def _return_retained_alvara(infraction: Infraction, *, actor, reason: str) -> None:
    alvara = infraction.retained_alvara
    if alvara is None:
        return
    alvara.refresh_from_db()
    if alvara.status == AlvaraStatus.RETAINED:
        licensing_services.alvara_set_status(actor=actor, alvara=alvara, to=AlvaraStatus.ACTIVE, reason=reason)


# --- issue --------------------------------------------------------------------------
def _pick_alvara(authorization, driver_cpf: str):
    alvaras = [a for a in licensing_selectors.current_alvaras(authorization) if a.status == AlvaraStatus.ACTIVE]
    if driver_cpf:
        for a in alvaras:
            if a.person.cpf == driver_cpf:
                return a
    for a in alvaras:
        if not a.is_auxiliary:
            return a
    return alvaras[0] if alvaras else None


def infraction_issue(
    *, actor, plate: str, infraction_code: str, occurred_at: datetime, location: str, description: str,
    driver_cpf: str = "", driver_name: str = "", alvara_retained: bool | None = False, signature_refused: bool = False,
    extra_codes: list[str] | None = None, idempotency_key: str | None = None, photos=(),
) -> tuple[Infraction, bool]:
    """Lavrar o auto de infração (PL 015/2025 art. 20). Returns (auto, created).

    The same ``idempotency_key`` (the form's hidden key) gives back the auto already
    issued: a double submit creates one auto, also under concurrent submits. When the
    agent does not say whether the alvará was retained (``alvara_retained=None``), the
    pack's ``infraction.retains_alvara`` decides (PL 015/2025 art. 20, §2: "o agente reterá").
    """
    key = (idempotency_key or "").strip()[:64] or None
    if key:
        existing = Infraction.objects.filter(idempotency_key=key).first()
        if existing is not None:
            return existing, False
    pack = regulation.current()
    errors: dict[str, list[str]] = {}
    plate = normalize_plate(plate or "")
    try:
        validate_plate(plate)
    except ValidationError as exc:
        errors["plate"] = exc.messages
    if occurred_at is None or timezone.is_naive(occurred_at):
        errors["occurred_at"] = ["Informe a data e a hora da infração com fuso horário."]
    elif occurred_at > timezone.now() + FUTURE_TOLERANCE:
        errors["occurred_at"] = ["A data e a hora da infração não podem estar no futuro."]
    if not (location or "").strip():
        errors["location"] = ["Informe o local onde a infração ocorreu."]
    if not (description or "").strip():
        errors["description"] = ["Descreva a circunstância da infração."]
    driver_cpf = only_digits(driver_cpf or "")
    if driver_cpf:
        try:
            validate_cpf(driver_cpf)
        except ValidationError as exc:
            errors["driver_cpf"] = exc.messages
    codes = [infraction_code, *[c for c in (extra_codes or []) if c and c != infraction_code]]
    unknown = [c for c in codes if pack.infraction(c) is None]
    if unknown:
        errors["infraction_code"] = [
            f"Código de infração desconhecido no catálogo desta lei: {', '.join(unknown)}."
        ]
    try:
        _validate_files(photos, "photos")
    except ValidationError as exc:
        errors.update(exc.message_dict)
    if errors:
        raise ValidationError(errors)

    from fleet.models import Vehicle

    authorization = (licensing_selectors.current_authorization_for_plate(plate)
                     or licensing_selectors.latest_authorization_for_plate(plate))
    vehicle = Vehicle.objects.filter(plate=plate).first()
    modality = authorization.modality if authorization else ""
    if modality:
        wrong = [c for c in codes
                 if pack.infraction(c).get("modalities") and modality not in pack.infraction(c)["modalities"]]
        if wrong:
            raise ValidationError({"infraction_code": [
                f"A infração {', '.join(wrong)} não se aplica à modalidade {pack.modality_label(modality)} "
                f"({pack.infraction(wrong[0])['legal_basis']})."
            ]})
    holder = authorization.holder if authorization else (vehicle.owner if vehicle else None)
    driver_is_auxiliary = False
    if driver_cpf and authorization is not None:
        for a in authorization.alvaras.select_related("person"):
            if a.person.cpf == driver_cpf:
                driver_is_auxiliary = a.is_auxiliary
                driver_name = driver_name or a.person.display_name
        if holder is not None and holder.cpf == driver_cpf:
            driver_name = driver_name or holder.display_name
    if alvara_retained is None:
        alvara_retained = bool(pack.value("infraction.retains_alvara", modality or None))
    local = occurred_at.astimezone(pack.tz)
    try:
        with transaction.atomic():
            infraction = Infraction.objects.create(
                number=document_number("infraction", pack.today().year),
                verification_code=verification_code(),
                plate=plate, vehicle=vehicle, authorization=authorization, holder=holder, modality=modality,
                driver_cpf=driver_cpf, driver_name=(driver_name or "").strip()[:200],
                driver_is_auxiliary=driver_is_auxiliary, agent=actor,
                agent_registration=getattr(actor, "registration_number", "") or "",
                infraction_code=infraction_code, extra_codes=codes[1:],
                catalogue=catalogue_entries(pack, codes), occurred_at=occurred_at, occurred_on=local.date(),
                location=location.strip()[:300], description=description.strip(),
                alvara_retained=bool(alvara_retained), signature_refused=bool(signature_refused),
                idempotency_key=key,
            )
            audit_log(actor=actor, obj=infraction, action="infraction_issued", to_state=S.ISSUED,
                      reason="Auto de infração lavrado",
                      data={"number": infraction.number, "codes": codes, "plate": plate,
                            "authorization": authorization.number if authorization else None,
                            "driver_cpf": driver_cpf, "alvara_retained": bool(alvara_retained)})
            if alvara_retained and authorization is not None and authorization.is_current:
                alvara = _pick_alvara(authorization, driver_cpf)
                if alvara is not None:
                    licensing_services.alvara_set_status(
                        actor=actor, alvara=alvara, to=AlvaraStatus.RETAINED,
                        reason=f"Retido na autuação do auto nº {infraction.number}")
                    infraction.retained_alvara = alvara
                    infraction.save(update_fields=["retained_alvara"])
            _store_files(infraction, photos, kind=None, actor=actor)
    except IntegrityError:
        if key:
            existing = Infraction.objects.filter(idempotency_key=key).first()
            if existing is not None:
                return existing, False
        raise
    return infraction, True


# --- periods ------------------------------------------------------------------------
def period(pack, start: date, days: int, *, key: str, modality: str | None, start_label: str) -> tuple[date, str]:
    """(last day, how it was counted) of a period of the pack (``key`` gives its days' article).

    Calendar days from the day after ``start``; where ``deadlines.next_business_day`` (Lei 9.784/1999
    art. 66, §1º, applied where the municipal law is silent), a last day without office hours —
    weekend, national or state holiday (``holidays``, state of the pack), municipal holiday of the
    pack (``deadlines.municipal_holidays``) — moves to the next business day."""
    extend = bool(pack.value("deadlines.next_business_day") or pack.value("deadlines.weekend_extends"))
    municipal = [h for h in (pack.value("deadlines.municipal_holidays") or []) if isinstance(h, dict)]
    return rules.counted_deadline(
        start, int(days), next_business_day=extend, uf=pack.uf, municipal=municipal, start_label=start_label,
        days_basis=pack.basis(key, modality),
        extension_basis=pack.basis("deadlines.next_business_day") or rules.NEXT_BUSINESS_DAY_BASIS)


def _notice_reason(refused: bool, published: bool) -> str:
    if refused:
        return "Recusa em receber a notificação (vale como notificação)"
    if published:
        return "Notificação por publicação (autuado não localizado)"
    return "Ciência registrada"


def _check_notice_date(inf: Infraction, on: date, today: date, *, not_before: date | None, what: str) -> None:
    if on > today:
        raise ValidationError({"acknowledged_on": ["A data da ciência não pode estar no futuro."]})
    if not_before and on < not_before:
        raise ValidationError({"acknowledged_on": [
            f"A data da ciência não pode ser anterior {what} ({not_before:%d/%m/%Y})."]})


# --- notice -------------------------------------------------------------------------
@transaction.atomic
def infraction_notify(*, actor, infraction: Infraction, acknowledged_on: date, refused: bool = False,
                      published: bool = False) -> Infraction:
    """Record the notice (ciência), its refusal, or its publication when the holder cannot be
    found, and open the defense period.

    The defense period runs ``defense.days`` calendar days from the day after the notice
    (PL 015/2025 art. 22; Lei 3.703/2022 art. 18, §4; where the law is silent, the pack's example
    value — Constituição art. 5º, LV). A refusal counts as notice (PL 015/2025 art. 21, §2, III) and,
    where ``notice.refusal_cancels_grant``, cancels the authorization by itself — a cancellation,
    not a cassação: no bar on a new grant (the 60 months of art. 19, §4 belong to cassação).
    Without a defense phase (no ``defense.days``) the auto goes straight to judgement.
    """
    pack = regulation.current()
    inf = _lock(infraction)
    if inf.status != S.ISSUED:
        raise InvalidTransition(f"O auto nº {inf.number} já foi notificado ({S(inf.status).label}).")
    if refused and published:
        raise ValidationError({"published": ["Escolha recusa ou publicação, não as duas."]})
    today = pack.today()
    _check_notice_date(inf, acknowledged_on, today, not_before=inf.occurred_on, what="à infração")
    Notice.objects.create(infraction=inf, acknowledged_on=acknowledged_on, refused=bool(refused),
                          published=bool(published), recorded_by=actor, number=document_number("notice", today.year))
    modality = inf.modality or None
    days = pack.value("defense.days", modality)
    reason = _notice_reason(refused, published)
    if days:
        inf.defense_deadline, inf.defense_deadline_note = period(
            pack, acknowledged_on, int(days), key="defense.days", modality=modality,
            start_label="ciência da notificação da autuação")
        _transition(inf, S.NOTIFIED, actor=actor, reason=reason, fields=["defense_deadline", "defense_deadline_note"],
                    data={"acknowledged_on": acknowledged_on.isoformat(), "refused": bool(refused),
                          "published": bool(published), "defense_deadline": inf.defense_deadline.isoformat(),
                          "counted": inf.defense_deadline_note,
                          "legal_basis": pack.basis("defense.days", modality)})
        body = (f"Você foi notificado do auto de infração nº {inf.number} (placa {inf.display_plate}). "
                f"Prazo para defesa prévia: até {inf.defense_deadline:%d/%m/%Y} ({inf.defense_deadline_note})")
    else:
        _transition(inf, S.AWAITING_JUDGEMENT, actor=actor, reason=reason,
                    data={"acknowledged_on": acknowledged_on.isoformat(), "refused": bool(refused),
                          "published": bool(published), "defense_phase": False})
        body = (f"Você foi notificado do auto de infração nº {inf.number} (placa {inf.display_plate}). "
                "O auto segue para julgamento; da decisão caberá recurso.")
    if refused and pack.value("notice.refusal_cancels_grant", modality):
        _cancel_grant_on_refusal(inf, pack, actor=actor)
    _tell_holder(inf, f"Notificação da autuação — auto nº {inf.number}", body, "notice")
    return inf


def _cancel_grant_on_refusal(inf: Infraction, pack, *, actor) -> None:
    """PL 015/2025 art. 21, §2, III: the refusal is "por si só, causa para o cancelamento automático
    da autorização" — the grant is cancelled, without the bar of art. 19, §4 (cassação only)."""
    auth = inf.authorization
    if auth is None:
        return
    auth.refresh_from_db()
    if not auth.is_current:
        return
    basis = pack.basis("notice.refusal_cancels_grant", inf.modality or None)
    licensing_services.authorization_set_status(
        actor=actor, authorization=auth, to=AuthorizationStatus.CANCELLED,
        reason=f"Cancelamento automático: recusa em receber a notificação do auto nº {inf.number} ({basis})",
        data={"infraction": inf.number, "legal_basis": basis})
    audit_log(actor=actor, obj=inf, action="grant_cancelled_on_refusal", from_state=inf.status, to_state=inf.status,
              reason=f"Recusa da notificação ({basis})", data={"authorization": auth.number, "legal_basis": basis})
    _tell_holder(inf, f"Autorização cancelada — auto nº {inf.number}",
                 f"A recusa em receber a notificação do auto nº {inf.number} cancelou a {auth.act_name} "
                 f"nº {auth.number} ({basis}).", "refusal_cancel")


# --- defense ------------------------------------------------------------------------
def _paper_check(actor, channel: str, inf: Infraction, on: date | None, today: date) -> date:
    if channel not in FilingChannel.values:
        raise ValidationError({"channel": ["Meio de entrega inválido: use balcão ou correio."]})
    if channel != FilingChannel.ONLINE:
        if on is None:
            raise ValidationError({"received_on": ["Informe a data do recebimento."]})
        if on > today:
            raise ValidationError({"received_on": ["A data do recebimento não pode estar no futuro."]})
        if inf.occurred_on and on < inf.occurred_on:
            raise ValidationError({"received_on": ["A data do recebimento não pode ser anterior à infração."]})
    return on or today


@transaction.atomic
def defense_file(*, actor, infraction: Infraction, text: str, attachments=(), on: date | None = None,
                 channel: str = FilingChannel.ONLINE) -> Defense:
    """Defesa prévia within the deadline (the last day accepted); late → 409 with the article.

    Online the holder files it; on paper (``channel`` counter or post) a clerk records it with the
    date of receipt (``on``), which judges its timeliness, and the scanned pages.
    Where the pack says so (PL 015/2025 art. 22, parágrafo único) the defense suspends the
    penalty and the retained alvará is returned until judgement.
    """
    pack = regulation.current()
    inf = _lock(infraction)
    modality = inf.modality or None
    if not pack.value("defense.days", modality):
        raise RuleViolation(
            "no_defense_phase",
            "Esta lei não prevê defesa prévia: o auto é julgado e da decisão cabe recurso.",
            pack.basis("appeal.days", modality), field="text", conflict=True,
        )
    on = _paper_check(actor, channel, inf, on, pack.today())
    if inf.status in (S.NOTIFIED, S.AWAITING_JUDGEMENT) and inf.defense_deadline:
        rules.check_within_deadline(on, inf.defense_deadline, what="apresentar a defesa prévia",
                                    legal_basis=pack.basis("defense.days", modality), code="defense_deadline_passed")
    if inf.status != S.NOTIFIED:
        raise InvalidTransition(f"O auto nº {inf.number} está {S(inf.status).label}: não cabe defesa prévia agora.")
    if not (text or "").strip():
        raise ValidationError({"text": ["Escreva as razões da defesa."]})
    _validate_files(attachments, "attachments")
    paper = channel != FilingChannel.ONLINE
    defense = Defense.objects.create(infraction=inf, author=inf.holder if paper and inf.holder_id else actor,
                                     text=text.strip(), filed_on=on, channel=channel,
                                     received_by=actor if paper else None)
    _store_files(inf, attachments, kind=Attachment.Kind.DEFENSE, actor=actor)
    _transition(inf, S.DEFENSE_FILED, actor=actor, reason="Defesa prévia apresentada" + (
        f" em papel ({FilingChannel(channel).label}), recebida em {on:%d/%m/%Y}" if paper else ""),
                data={"filed_on": on.isoformat(), "attachments": len(attachments or ()), "channel": channel})
    if pack.value("defense.returns_alvara", modality):
        _return_retained_alvara(inf, actor=actor, reason=(
            f"Devolvido com a defesa prévia do auto nº {inf.number} até o julgamento "
            f"({pack.basis('defense.returns_alvara', modality)})"))
    return defense


@transaction.atomic
def defense_waive(*, actor, infraction: Infraction, text: str, on: date | None = None,
                  channel: str = FilingChannel.ONLINE, attachments=()) -> DefenseWaiver:
    """The holder waives the rest of the defense period in writing (online, or on paper recorded by a
    clerk with its date of receipt and scanned pages): the auto may then be judged before the period
    ends. Recorded and audited; the period stays on the record."""
    pack = regulation.current()
    inf = _lock(infraction)
    modality = inf.modality or None
    on = _paper_check(actor, channel, inf, on, pack.today())
    if inf.status != S.NOTIFIED or not inf.defense_deadline:
        raise InvalidTransition(f"O auto nº {inf.number} está {S(inf.status).label}: não há prazo de defesa em curso.")
    if on > inf.defense_deadline:
        raise InvalidTransition(f"O prazo da defesa do auto nº {inf.number} já terminou em "
                                f"{inf.defense_deadline:%d/%m/%Y}: não há o que renunciar.")
    text = (text or "").strip()
    if not text:
        raise ValidationError({"text": ["Escreva o termo de renúncia ao prazo de defesa."]})
    _validate_files(attachments, "attachments")
    paper = channel != FilingChannel.ONLINE
    waiver = DefenseWaiver.objects.create(infraction=inf, author=inf.holder if inf.holder_id else None, text=text,
                                          waived_on=on, channel=channel, recorded_by=actor)
    _store_files(inf, attachments, kind=Attachment.Kind.WAIVER, actor=actor)
    _transition(inf, S.AWAITING_JUDGEMENT, actor=actor,
                reason="Renúncia escrita ao prazo de defesa" + (f" ({FilingChannel(channel).label})" if paper else ""),
                data={"waived_on": on.isoformat(), "channel": channel,
                      "defense_deadline": inf.defense_deadline.isoformat(),
                      "legal_basis": pack.basis("defense.days", modality)})
    return waiver


# --- judgement ----------------------------------------------------------------------
def prior_fines(infraction: Infraction) -> list[rules.PriorFine]:
    """Earlier autos of the same holder judged upheld (never dismissed, cancelled or granted on
    appeal: their penalty is cleared), with or without a fine (``has_fine``)."""
    if not infraction.holder_id:
        return []
    rows = (Infraction.objects.filter(holder_id=infraction.holder_id, occurred_at__lt=infraction.occurred_at,
                                      status__in=[S.UPHELD, S.APPEALED, S.FINAL], penalty__isnull=False)
            .exclude(pk=infraction.pk).only("number", "occurred_on", "penalty"))
    out = []
    for row in rows:
        pen = row.penalty or {}
        has_fine = "fine" in (pen.get("kinds") or []) or bool(pen.get("amount"))
        out.append(rules.PriorFine(ref=row.number, occurred_on=row.occurred_on,
                                   multiplier=int(pen.get("multiplier") or 1),
                                   amount=Decimal(pen["amount"]) if pen.get("amount") else None, has_fine=has_fine))
    return out


def recorded_fine_values(pack, codes: list[str], at: date) -> dict[str, Decimal]:
    """Fine values fixed by a recorded regulation in force on ``at`` (``fine:<code>``)."""
    out: dict[str, Decimal] = {}
    rows = (RecordedRegulation.objects.filter(municipality_id=pack.municipality_id, effective_from__lte=at,
                                              key__in=[f"fine:{c}" for c in codes])
            .order_by("key", "-effective_from", "-id"))
    for row in rows:
        out.setdefault(row.key.split(":", 1)[1], row.value)
    return out


def compute_penalty_for(infraction: Infraction, pack=None) -> dict:
    """The penalty the law imposes on this auto, recidivism included (no writes). Values in force
    on the day of the infraction; an example value produces no legal effect (``missing_regulation``)."""
    pack = pack or regulation.current()
    modality = infraction.modality or None
    entries = infraction.catalogue or catalogue_entries(pack, infraction.codes)
    multiplier, refs = rules.recidivism(
        infraction.occurred_on, prior_fines(infraction),
        window_days=pack.value("recidivism.window_days", modality),
        mode=pack.value("recidivism.mode", modality),
        counted_from=pack.value("recidivism.counted_from", modality),
        counts=pack.value("recidivism.counts", modality),
    )
    unit = pack.fiscal_unit_value(infraction.occurred_on)
    recorded_unit = (RecordedRegulation.objects.filter(municipality_id=pack.municipality_id, key="fiscal_unit",
                                                       effective_from__lte=infraction.occurred_on)
                     .order_by("-effective_from", "-id").first())
    if recorded_unit is not None:  # the regulation in force on the day of the infraction fixes the unit
        unit = (recorded_unit.value, f"{recorded_unit.act_number}, de {recorded_unit.act_date:%d/%m/%Y}", False)
    overrides = fine_overrides(pack, infraction.codes, infraction.occurred_on)
    overrides.update(recorded_fine_values(pack, infraction.codes, infraction.occurred_on))
    penalty = rules.compute_penalty(
        entries, unit_value=unit[0] if unit else None, unit_name=pack.fiscal_unit.get("name", ""),
        multiplier=multiplier, recidivism_refs=[p.ref for p in refs],
        recidivism_basis=pack.basis("recidivism.mode", modality),
        fine_overrides=overrides, unit_is_example=bool(unit and unit[2]), unit_basis=unit[1] if unit else "",
    )
    if penalty["recidivism"]:
        penalty["recidivism_autos"] = [
            {"number": p.ref, "occurred_on": p.occurred_on.isoformat(), "date": f"{p.occurred_on:%d/%m/%Y}",
             "amount": str(p.amount) if p.amount else None,
             "multiplier": p.multiplier, "days_before": (infraction.occurred_on - p.occurred_on).days}
            for p in refs
        ]
    return penalty


def decision_notice_required(pack, modality: str | None) -> bool:
    """Whether the appeal period waits for the notice of the decision (``appeal.counted_from``)."""
    return rules.appeal_period_start(counted_from=pack.value("appeal.counted_from", modality),
                                     decided_on=date.min, decision_notice_on=None) is None


@transaction.atomic
def infraction_judge(*, actor, infraction: Infraction, upheld: bool, grounds: str) -> Judgement:
    """Julgar o auto: procedente (penalty of the catalogue with recidivism) or improcedente.

    Refused (409, with the article) while the defense period runs, unless a defense was filed or
    the holder waived the period in writing. Where the appeal period counts from the notice of the
    decision, the decision waits for that notice: no appeal period, no effect, never final before it.
    """
    pack = regulation.current()
    inf = _lock(infraction)
    modality = inf.modality or None
    if inf.status == S.ISSUED:
        raise InvalidTransition(
            f"O auto nº {inf.number} ainda não foi notificado: a validade de qualquer punição depende da "
            "notificação da autuação.")
    if inf.status not in JUDGEABLE_STATUSES:
        raise InvalidTransition(f"O auto nº {inf.number} está {S(inf.status).label} e não aguarda julgamento.")
    today = pack.today()
    blocked = rules.judgement_blocked(
        today, defense_deadline=inf.defense_deadline, defense_filed=hasattr(inf, "defense"),
        waived=DefenseWaiver.objects.filter(infraction=inf).exists(), legal_basis=pack.basis("defense.days", modality))
    if blocked is not None:
        raise blocked
    if not (grounds or "").strip():
        raise ValidationError({"grounds": ["Escreva a fundamentação da decisão."]})
    penalty = compute_penalty_for(inf, pack) if upheld else None
    judgement = Judgement.objects.create(
        infraction=inf, number=document_number("decision", today.year), judge=actor, upheld=bool(upheld),
        grounds=grounds.strip(), penalty=penalty, recidivism_refs=(penalty or {}).get("recidivism_refs", []),
        decided_on=today,
    )
    if upheld:
        inf.penalty = penalty
        days = pack.value("appeal.days", modality)
        inf.appeal_instance = 1
        inf.decision_notice_pending = bool(days) and decision_notice_required(pack, modality)
        if days and not inf.decision_notice_pending:
            inf.appeal_deadline, inf.appeal_deadline_note = period(
                pack, today, int(days), key="appeal.days", modality=modality, start_label="decisão")
        else:
            inf.appeal_deadline, inf.appeal_deadline_note = None, ""
        _transition(inf, S.UPHELD, actor=actor, reason=grounds.strip(),
                    fields=["penalty", "appeal_deadline", "appeal_deadline_note", "appeal_instance",
                            "decision_notice_pending"],
                    data={"decision": judgement.number, "penalty": penalty,
                          "appeal_deadline": inf.appeal_deadline.isoformat() if inf.appeal_deadline else None,
                          "decision_notice_pending": inf.decision_notice_pending})
        missing = penalty.get("missing_regulation")
        summary = (f"Penalidade: {', '.join(penalty['labels'])}"
                   + (f", multa de R$ {penalty['amount']}" if penalty.get("amount") else "")
                   + (f". A multa não pode ser cobrada enquanto não houver {missing}" if missing else ""))
        if not days:
            finalize(actor=actor, infraction=inf, today=today)
        elif inf.decision_notice_pending:
            _tell_holder(inf, f"Decisão — auto nº {inf.number} julgado procedente",
                         f"O auto nº {inf.number} foi julgado procedente. {summary}. Você receberá a notificação da "
                         f"decisão; o prazo de recurso conta da ciência dela ({pack.basis('appeal.counted_from', modality)}).",
                         "upheld")
        else:
            effects = {}
            if not appeal_is_suspensive(pack, modality):
                effects = apply_grant_effects(actor=actor, infraction=inf, today=today)
            _tell_holder(inf, f"Decisão — auto nº {inf.number} julgado procedente",
                         f"O auto nº {inf.number} foi julgado procedente. {summary}. Você pode recorrer até "
                         f"{inf.appeal_deadline:%d/%m/%Y}."
                         + _effects_sentence(effects, pack, modality), "upheld")
    else:
        inf.penalty = None
        _transition(inf, S.DISMISSED, actor=actor, reason=grounds.strip(), fields=["penalty"],
                    data={"decision": judgement.number})
        if pack.value("appeal.ex_officio_review", modality):
            Appeal.objects.create(
                infraction=inf, instance=1, ex_officio=True, authority=pack.value("appeal.authority", modality) or "",
                text=f"Recurso hierárquico de ofício da decisão que julgou procedente a defesa "
                     f"({pack.basis('appeal.ex_officio_review', modality)}).", filed_on=today)
            audit_log(actor=actor, obj=inf, action="ex_officio_review_opened", from_state=S.DISMISSED,
                      to_state=S.DISMISSED, reason=pack.basis("appeal.ex_officio_review", modality))
        else:
            _return_retained_alvara(inf, actor=actor, reason=f"Auto nº {inf.number} julgado improcedente")
        _tell_holder(inf, f"Decisão — auto nº {inf.number} julgado improcedente",
                     f"O auto nº {inf.number} foi julgado improcedente e arquivado.", "dismissed")
    infraction.refresh_from_db()
    return judgement


def _effects_sentence(effects: dict, pack, modality) -> str:
    if effects.get("cassada") or effects.get("suspended_until"):
        return (" A suspensão ou cassação vale desde já: o recurso não a suspende "
                f"({pack.basis('appeal.suspensive', modality)}); se ele for provido, ela é desfeita.")
    return ""


def _decision_number(inf: Infraction, instance: int) -> str:
    if instance <= 1:
        judgement = Judgement.objects.filter(infraction=inf).first()
        return judgement.number if judgement else ""
    appeal = inf.appeals.filter(instance=instance - 1, granted__isnull=False).order_by("-id").first()
    return appeal.number if appeal else ""


def _decided_on(inf: Infraction, instance: int) -> date | None:
    pack = regulation.current()
    if instance <= 1:
        judgement = Judgement.objects.filter(infraction=inf).first()
        return judgement.decided_on if judgement else None
    appeal = inf.appeals.filter(instance=instance - 1, granted__isnull=False).order_by("-id").first()
    if appeal is None:
        return None
    return appeal.decided_on or (appeal.decided_at.astimezone(pack.tz).date() if appeal.decided_at else None)


@transaction.atomic
def decision_notice_record(*, actor, infraction: Infraction, acknowledged_on: date, refused: bool = False,
                           published: bool = False) -> DecisionNotice:
    """Notificação da decisão (Lei 3.703/2022 art. 18, §5; PL 015/2025 art. 25; Lei 724/2008 art. 25,
    caput and §1): recorded like the first notice — date of ciência, of the refusal, or of the
    publication when the holder cannot be found — it opens the appeal period against that decision
    (``appeal.days``, or ``appeal.second_instance_days`` for a further appeal) and, where the appeal
    has no suspensive effect, lets the decision take effect on the grant."""
    pack = regulation.current()
    inf = _lock(infraction)
    modality = inf.modality or None
    if inf.status != S.UPHELD or not inf.decision_notice_pending:
        raise InvalidTransition(f"O auto nº {inf.number} está {S(inf.status).label}: não há decisão aguardando "
                                "notificação.")
    if refused and published:
        raise ValidationError({"published": ["Escolha recusa ou publicação, não as duas."]})
    today = pack.today()
    instance = inf.appeal_instance
    decided_on = _decided_on(inf, instance)
    _check_notice_date(inf, acknowledged_on, today, not_before=decided_on, what="à decisão")
    key = "appeal.second_instance_days" if instance > 1 else "appeal.days"
    days = int(pack.value(key, modality))
    inf.appeal_deadline, inf.appeal_deadline_note = period(
        pack, acknowledged_on, days, key=key, modality=modality, start_label="ciência da notificação da decisão")
    inf.decision_notice_pending = False
    notice = DecisionNotice.objects.create(
        infraction=inf, instance=instance, decision=_decision_number(inf, instance), acknowledged_on=acknowledged_on,
        refused=bool(refused), published=bool(published), appeal_deadline=inf.appeal_deadline, recorded_by=actor,
        number=document_number("notice", today.year))
    inf.save(update_fields=["appeal_deadline", "appeal_deadline_note", "decision_notice_pending"])
    audit_log(actor=actor, obj=inf, action="decision_notified", from_state=inf.status, to_state=inf.status,
              reason=_notice_reason(refused, published) + f" da decisão nº {notice.decision}",
              data={"acknowledged_on": acknowledged_on.isoformat(), "refused": bool(refused),
                    "published": bool(published), "instance": instance,
                    "appeal_deadline": inf.appeal_deadline.isoformat(), "counted": inf.appeal_deadline_note,
                    "legal_basis": pack.basis("appeal.counted_from", modality) or pack.basis(key, modality)})
    effects = {}
    if instance == 1 and not appeal_is_suspensive(pack, modality):
        effects = apply_grant_effects(actor=actor, infraction=inf, today=today)
    _tell_holder(inf, f"Notificação da decisão — auto nº {inf.number}",
                 f"Decisão nº {notice.decision} do auto nº {inf.number}: você pode recorrer até "
                 f"{inf.appeal_deadline:%d/%m/%Y} ({inf.appeal_deadline_note})" + _effects_sentence(effects, pack, modality),
                 f"decision_notice{instance}")
    return notice


# --- appeal -------------------------------------------------------------------------
@transaction.atomic
def appeal_file(*, actor, infraction: Infraction, text: str, attachments=(), on: date | None = None,
                channel: str = FilingChannel.ONLINE) -> Appeal:
    """Recurso within the appeal period (Lei 3.703/2022 art. 18, §§5º–7º; PL 015/2025 art. 25;
    Lei 724/2008 art. 25, §1–2: D and E go on to the Prefeito). On paper a clerk records it with its
    date of receipt (``on``), which judges timeliness. Filed before the notice of the decision it is
    timely (the holder knew of the decision)."""
    pack = regulation.current()
    inf = _lock(infraction)
    modality = inf.modality or None
    on = _paper_check(actor, channel, inf, on, pack.today())
    basis_key = "appeal.second_instance_days" if inf.appeal_instance > 1 else "appeal.days"
    if inf.status in (S.UPHELD, S.FINAL) and inf.appeal_deadline:
        rules.check_within_deadline(on, inf.appeal_deadline, what="recorrer",
                                    legal_basis=pack.basis(basis_key, modality), code="appeal_deadline_passed")
    if inf.status != S.UPHELD or not (inf.appeal_deadline or inf.decision_notice_pending):
        raise InvalidTransition(f"O auto nº {inf.number} está {S(inf.status).label}: não cabe recurso agora.")
    if not (text or "").strip():
        raise ValidationError({"text": ["Escreva as razões do recurso."]})
    _validate_files(attachments, "attachments")
    authority = (pack.value("appeal.authority", modality) if inf.appeal_instance == 1
                 else pack.municipality.get("authority", ""))
    paper = channel != FilingChannel.ONLINE
    appeal = Appeal.objects.create(infraction=inf, instance=inf.appeal_instance, authority=authority or "",
                                   author=inf.holder if paper and inf.holder_id else actor, text=text.strip(),
                                   filed_on=on, channel=channel, received_by=actor if paper else None)
    _store_files(inf, attachments, kind=Attachment.Kind.APPEAL, actor=actor)
    if inf.decision_notice_pending and inf.appeal_instance == 1 and not appeal_is_suspensive(pack, modality):
        apply_grant_effects(actor=actor, infraction=inf, today=pack.today())  # the holder knew of the decision
    inf.decision_notice_pending = False
    _transition(inf, S.APPEALED, actor=actor, reason="Recurso interposto" + (
        f" em papel ({FilingChannel(channel).label}), recebido em {on:%d/%m/%Y}" if paper else ""),
                fields=["decision_notice_pending"],
                data={"instance": appeal.instance, "authority": appeal.authority, "filed_on": on.isoformat(),
                      "channel": channel})
    return appeal


def earlier_judges(inf: Infraction, appeal: Appeal) -> list[int]:
    """Who decided the instances before ``appeal`` (first-instance julgador, earlier appeals)."""
    ids = [j for j in Judgement.objects.filter(infraction=inf).values_list("judge_id", flat=True)]
    ids += [a.judge_id for a in inf.appeals.exclude(pk=appeal.pk) if a.judge_id and a.instance < appeal.instance]
    return ids


@transaction.atomic
def review_hearing_open(*, actor, infraction: Infraction, acknowledged_on: date) -> Infraction:
    """The ex officio review may make the holder's situation worse (reform a dismissal): the holder
    is heard first — notified to present allegations within ``appeal.ex_officio_hearing_days``
    (PL 015/2025 art. 25, §1; Lei 9.784/1999 art. 64, parágrafo único, art. 62)."""
    pack = regulation.current()
    inf = _lock(infraction)
    modality = inf.modality or None
    appeal = inf.appeals.filter(ex_officio=True, granted__isnull=True).first()
    if inf.status != S.DISMISSED or appeal is None:
        raise InvalidTransition(f"O auto nº {inf.number} não tem revisão de ofício pendente.")
    if inf.review_hearing_deadline is not None:
        raise InvalidTransition(f"A audiência do autuado na revisão do auto nº {inf.number} já foi aberta.")
    _check_notice_date(inf, acknowledged_on, pack.today(), not_before=appeal.filed_on, what="à revisão")
    days = int(pack.value("appeal.ex_officio_hearing_days", modality) or 5)
    inf.review_hearing_deadline, note = period(pack, acknowledged_on, days, key="appeal.ex_officio_hearing_days",
                                               modality=modality, start_label="ciência da revisão de ofício")
    inf.save(update_fields=["review_hearing_deadline"])
    audit_log(actor=actor, obj=inf, action="review_hearing_opened", from_state=inf.status, to_state=inf.status,
              reason="Autuado intimado a se manifestar na revisão de ofício",
              data={"acknowledged_on": acknowledged_on.isoformat(), "until": inf.review_hearing_deadline.isoformat(),
                    "counted": note, "legal_basis": pack.basis("appeal.ex_officio_hearing_days", modality)})
    _tell_holder(inf, f"Revisão de ofício — auto nº {inf.number}",
                 f"A decisão que arquivou o auto nº {inf.number} está em revisão de ofício e pode ser reformada. "
                 f"Você pode apresentar alegações até {inf.review_hearing_deadline:%d/%m/%Y} ({note})", "review_hearing")
    return inf


@transaction.atomic
def review_allegations_file(*, actor, infraction: Infraction, text: str, attachments=(), on: date | None = None,
                            channel: str = FilingChannel.ONLINE) -> Appeal:
    """The holder's allegations in the ex officio review, within the hearing period."""
    pack = regulation.current()
    inf = _lock(infraction)
    modality = inf.modality or None
    on = _paper_check(actor, channel, inf, on, pack.today())
    appeal = inf.appeals.filter(ex_officio=True, granted__isnull=True).first()
    if inf.status != S.DISMISSED or appeal is None or inf.review_hearing_deadline is None:
        raise InvalidTransition(f"O auto nº {inf.number} não tem revisão de ofício aberta a alegações.")
    rules.check_within_deadline(on, inf.review_hearing_deadline, what="apresentar alegações",
                                legal_basis=pack.basis("appeal.ex_officio_hearing_days", modality),
                                code="review_hearing_passed")
    if not (text or "").strip():
        raise ValidationError({"text": ["Escreva as alegações."]})
    _validate_files(attachments, "attachments")
    appeal.text = f"{appeal.text}\n\nAlegações do autuado ({on:%d/%m/%Y}): {text.strip()}"
    appeal.author = inf.holder if inf.holder_id else actor
    appeal.save(update_fields=["text", "author"])
    _store_files(inf, attachments, kind=Attachment.Kind.HEARING, actor=actor)
    audit_log(actor=actor, obj=inf, action="review_allegations_filed", from_state=inf.status, to_state=inf.status,
              reason="Alegações na revisão de ofício", data={"filed_on": on.isoformat(), "channel": channel})
    return appeal


@transaction.atomic
def appeal_judge(*, actor, infraction: Infraction, granted: bool, grounds: str) -> Appeal:
    """Decide the pending appeal (or the ex officio review of a dismissal).

    Two instances, two people: whoever decided an earlier instance is refused (409, with the
    article). A review that reforms the dismissal (worse for the holder) needs the holder heard
    first (``review_hearing_open``; PL 015/2025 art. 25, §1; Lei 9.784/1999 art. 64, parágrafo único).
    A further appeal (Lei 724/2008 art. 25, §2) waits for the notice of the appeal decision.
    """
    pack = regulation.current()
    inf = _lock(infraction)
    modality = inf.modality or None
    appeal = inf.appeals.filter(granted__isnull=True).order_by("-instance", "-id").first()
    if appeal is None or inf.status not in (S.APPEALED, S.DISMISSED):
        raise InvalidTransition(f"O auto nº {inf.number} não tem recurso pendente de julgamento.")
    group = pack.value("appeal.authority_group", modality)
    if group and not actor.groups.filter(name=group).exists():
        basis = pack.basis("appeal.authority_group", modality)
        raise RuleViolation("not_appeal_authority",
                            f"O recurso é decidido pela autoridade designada ({group}) — {basis}.",
                            basis, field="granted", conflict=True)
    if pack.value("appeal.distinct_judge", modality, default=True):
        violation = rules.same_judge_violation(
            actor.pk, earlier_judges(inf, appeal),
            pack.basis("appeal.distinct_judge", modality) or pack.basis("appeal.authority", modality))
        if violation is not None:
            raise violation
    today = pack.today()
    if appeal.ex_officio and granted:
        hearing = inf.review_hearing_deadline
        heard = hearing is not None and (today > hearing or "Alegações do autuado" in appeal.text)
        if not heard:
            basis = pack.basis("appeal.ex_officio_review", modality)
            raise RuleViolation(
                "review_hearing_required",
                "A revisão de ofício que reforma o arquivamento agrava a situação do autuado: ele deve ser "
                "intimado e ouvido antes da decisão"
                + (f" (alegações até {hearing:%d/%m/%Y})" if hearing else "")
                + f" — {basis}; Lei 9.784/1999, art. 64, parágrafo único.",
                f"{basis}; Lei 9.784/1999, art. 64, parágrafo único", field="granted", conflict=True)
    if not (grounds or "").strip():
        raise ValidationError({"grounds": ["Escreva a fundamentação da decisão do recurso."]})
    appeal.granted = bool(granted)
    appeal.grounds = grounds.strip()
    appeal.judge = actor
    appeal.decided_at = timezone.now()
    appeal.decided_on = today
    appeal.number = document_number("decision", today.year)
    appeal.save(update_fields=["granted", "grounds", "judge", "decided_at", "decided_on", "number"])
    audit_log(actor=actor, obj=inf, action="appeal_judged", from_state=inf.status, to_state=inf.status,
              reason=grounds.strip(), data={"instance": appeal.instance, "granted": bool(granted),
                                            "ex_officio": appeal.ex_officio, "decision": appeal.number})
    if appeal.ex_officio:
        if granted:  # the review reforms the dismissal: the auto is upheld, with no further appeal
            inf.penalty = compute_penalty_for(inf, pack)
            inf.save(update_fields=["penalty"])
            finalize(actor=actor, infraction=inf, today=today, reason="Decisão reformada em recurso de ofício")
        else:
            _return_retained_alvara(inf, actor=actor, reason=f"Auto nº {inf.number} arquivado (recurso de ofício)")
        return appeal
    if granted:
        revert_grant_effects(actor=actor, infraction=inf, today=today,
                             reason=f"Recurso provido no auto nº {inf.number}: {grounds.strip()}")
        inf.penalty = None
        _transition(inf, S.DISMISSED, actor=actor, reason=f"Recurso provido: {grounds.strip()}", fields=["penalty"],
                    data={"decision": appeal.number})
        _return_retained_alvara(inf, actor=actor, reason=f"Recurso provido no auto nº {inf.number}")
        _tell_holder(inf, f"Recurso provido — auto nº {inf.number}", "Seu recurso foi provido; o auto foi arquivado.",
                     f"appeal{appeal.instance}")
        recidivism_recompute(actor=actor, annulled=inf, reason=f"recurso provido (decisão nº {appeal.number})")
        return appeal
    codes = (inf.penalty or {}).get("codes", [])
    if appeal.instance == 1 and rules.second_instance_allowed(codes, pack.value("appeal.second_instance_codes", modality)):
        days = int(pack.value("appeal.second_instance_days", modality))
        inf.appeal_instance = 2
        inf.decision_notice_pending = decision_notice_required(pack, modality)
        if inf.decision_notice_pending:
            inf.appeal_deadline, inf.appeal_deadline_note = None, ""
        else:
            inf.appeal_deadline, inf.appeal_deadline_note = period(
                pack, today, days, key="appeal.second_instance_days", modality=modality, start_label="decisão")
        _transition(inf, S.UPHELD, actor=actor, reason=f"Recurso não provido: {grounds.strip()}",
                    fields=["appeal_instance", "appeal_deadline", "appeal_deadline_note", "decision_notice_pending"],
                    data={"decision": appeal.number,
                          "second_instance_until": inf.appeal_deadline.isoformat() if inf.appeal_deadline else None,
                          "legal_basis": pack.basis("appeal.second_instance_days", modality)})
        _tell_holder(inf, f"Recurso não provido — auto nº {inf.number}",
                     f"Seu recurso não foi provido. Cabe novo recurso ao {pack.municipality.get('authority', '')} "
                     + (f"até {inf.appeal_deadline:%d/%m/%Y}." if inf.appeal_deadline else
                        f"em {days} dias da ciência da notificação desta decisão."), f"appeal{appeal.instance}")
        return appeal
    finalize(actor=actor, infraction=inf, today=today, reason=f"Recurso não provido: {grounds.strip()}")
    return appeal


@transaction.atomic
def appeal_grant_suspensive_effect(*, actor, infraction: Infraction, grounds: str) -> Infraction:
    """Exceptionally, on request and with grounds, the authority gives the pending appeal
    suspensive effect (the pack's ``appeal.suspensive`` basis; Lei 9.784/1999 art. 61, parágrafo
    único): the decision's effects on the grant are undone until the appeal is decided, and apply
    again if the decision becomes final."""
    pack = regulation.current()
    inf = _lock(infraction)
    if inf.status != S.APPEALED:
        raise InvalidTransition(f"O auto nº {inf.number} está {S(inf.status).label}: só um recurso pendente pode "
                                "receber efeito suspensivo.")
    if inf.effects_on is None:
        raise InvalidTransition(f"A decisão do auto nº {inf.number} não tem efeitos em vigor sobre a autorização.")
    if not (grounds or "").strip():
        raise ValidationError({"grounds": ["Motive a concessão do efeito suspensivo."]})
    basis = pack.basis("appeal.suspensive", inf.modality or None)
    revert_grant_effects(actor=actor, infraction=inf, today=pack.today(),
                         reason=f"Efeito suspensivo concedido ao recurso do auto nº {inf.number} ({basis}): "
                                f"{grounds.strip()}")
    audit_log(actor=actor, obj=inf, action="appeal_suspensive_effect", from_state=inf.status, to_state=inf.status,
              reason=grounds.strip(), data={"legal_basis": basis})
    _tell_holder(inf, f"Efeito suspensivo — auto nº {inf.number}",
                 "Seu recurso recebeu efeito suspensivo: a penalidade sobre a autorização fica suspensa até a "
                 "decisão do recurso.", "suspensive")
    return inf


# --- final decision and effects -----------------------------------------------------
def _holder_and_auxiliaries(auth) -> list:
    """The holder and every auxiliary driver of the grant, however the law records them:
    an alvará of their own (alvará per driver), a registration added later, or the
    application that was granted (alvará per vehicle, or no alvará at all)."""
    from licensing.models import ApplicationAuxiliary
    from licensing.requests.models import AuxiliaryDriver, AuxiliaryStatus

    registered = list(AuxiliaryDriver.objects.filter(authorization=auth).select_related("person"))
    removed = {a.person_id for a in registered if a.status != AuxiliaryStatus.ACTIVE} - {
        a.person_id for a in registered if a.status == AuxiliaryStatus.ACTIVE}
    people = [auth.holder]
    people += [a.person for a in auth.alvaras.select_related("person")]
    people += [a.person for a in registered if a.status == AuxiliaryStatus.ACTIVE]
    people += [a.person for a in ApplicationAuxiliary.objects.filter(application__authorization=auth,
                                                                    person__isnull=False).select_related("person")
               if a.person_id not in removed]
    return people


# an upheld decision whose effects may be in force (applied at the decision or when final)
EFFECTIVE_STATUSES = (S.UPHELD, S.APPEALED, S.FINAL)


def appeal_is_suspensive(pack, modality: str | None) -> bool:
    """Whether an appeal holds the decision's effects on the grant (``appeal.suspensive``). Where
    it does not, the upheld decision suspends or ends the grant at once and an appeal that is
    granted undoes it; without the parameter the effects wait for the final decision."""
    param = pack.param("appeal.suspensive", modality)
    return param is None or bool(param.value)


def apply_grant_effects(*, actor, infraction: Infraction, today: date) -> dict:
    """The upheld decision's effects on the grant, once: suspension for its days (a further one
    starts the day after the one being served; one without end date absorbs a fixed one),
    suspension until regularised and impediment without end date; cassação / cancellation ends
    the grant (alvarás follow) and bars the holder and the auxiliaries for ``cassation.bar_months``
    or without term where ``revocation.bars_future_grants``."""
    pack = regulation.current()
    inf = infraction
    if inf.effects_on is not None:
        return {}
    modality = inf.modality or None
    penalty = inf.penalty or {}
    kinds = set(penalty.get("kinds", []))
    inf.effects_on = today
    inf.save(update_fields=["effects_on"])
    auth = inf.authorization
    if auth is not None:
        auth.refresh_from_db()
    effects: dict = {}
    if auth is None or not auth.is_current:
        return effects
    if kinds & rules.ENDING_KINDS:
        licensing_services.authorization_set_status(
            actor=actor, authorization=auth, to=AuthorizationStatus.CASSADA,
            reason=f"Cassação decorrente do auto nº {inf.number}", data={"infraction": inf.number})
        effects["cassada"] = auth.number
        months = pack.value("cassation.bar_months", modality)
        bars_forever = pack.value("revocation.bars_future_grants", modality)
        if months or bars_forever:
            until = add_months(today, int(months)) if months else None
            basis = pack.basis("cassation.bar_months" if months else "revocation.bars_future_grants", modality)
            seen = set()
            for person in _holder_and_auxiliaries(auth):
                if person.pk in seen:
                    continue
                seen.add(person.pk)
                licensing_services.grant_bar_create(
                    actor=actor, person=person, until=until, legal_basis=basis, source=f"auto {inf.number}",
                    reason=f"Cassação da {auth.act_name} nº {auth.number} (auto de infração nº {inf.number})")
            effects["bar_until"] = until.isoformat() if until else None
    elif auth.status in (AuthorizationStatus.ACTIVE, AuthorizationStatus.SUSPENDED) and (
        {"suspension_until_regularised", "impediment"} & kinds or penalty.get("suspension_days")
    ):
        open_ended = bool({"suspension_until_regularised", "impediment"} & kinds)
        serving = auth.status == AuthorizationStatus.SUSPENDED
        if open_ended or (serving and auth.suspended_until is None):
            until = None  # without end date, or absorbed by a suspension until regularised
        else:
            start = rules.next_suspension_start(today, auth.suspended_until if serving else None)
            until = rules.suspension_last_day(start, int(penalty["suspension_days"]))
        reason = f"Suspensão decorrente do auto nº {inf.number}"
        if not serving:
            licensing_services.authorization_set_status(
                actor=actor, authorization=auth, to=AuthorizationStatus.SUSPENDED, suspended_until=until,
                reason=reason, data={"infraction": inf.number})
        elif until != auth.suspended_until:
            licensing_services.authorization_set_suspension_end(
                actor=actor, authorization=auth, until=until, reason=reason, data={"infraction": inf.number})
        inf.suspension_until = until
        inf.save(update_fields=["suspension_until"])
        effects["suspended_until"] = until.isoformat() if until else "até a regularização"
    if effects:
        audit_log(actor=actor, obj=inf, action="infraction_effects", from_state=inf.status, to_state=inf.status,
                  reason="Efeitos da decisão sobre a autorização", data=effects)
    return effects


def revert_grant_effects(*, actor, infraction: Infraction, today: date, reason: str) -> None:
    """An appeal granted undoes what the upheld decision did to the grant: a cassação is
    undone (bars lifted; the grant active again, or expired if its term is over), a suspension
    imposed by this auto is lifted — or shortened by its days when another one is being served."""
    inf = infraction
    if inf.effects_on is None:
        return
    auth = inf.authorization
    kinds = set((inf.penalty or {}).get("kinds", []))
    licensing_services.grant_bars_lift(actor=actor, source=f"auto {inf.number}", on=today, reason=reason)
    if auth is not None:
        auth.refresh_from_db()
        caused_by_this = f"auto nº {inf.number}" in (auth.status_reason or "")
        if auth.status == AuthorizationStatus.CASSADA and kinds & rules.ENDING_KINDS and caused_by_this:
            licensing_services.authorization_restore(actor=actor, authorization=auth, reason=reason)
        elif auth.status == AuthorizationStatus.SUSPENDED:
            others = Infraction.objects.filter(authorization=auth, effects_on__isnull=False,
                                               status__in=EFFECTIVE_STATUSES,
                                               suspension_lifted=False).exclude(pk=inf.pk).filter(
                Q(suspension_until__isnull=True) | Q(suspension_until__gte=today))
            others = [o for o in others if set((o.penalty or {}).get("kinds", [])) & {
                "suspension_until_regularised", "impediment"} or (o.penalty or {}).get("suspension_days")]
            days = (inf.penalty or {}).get("suspension_days")
            if not others:
                licensing_services.authorization_set_status(actor=actor, authorization=auth,
                                                            to=AuthorizationStatus.ACTIVE, reason=reason,
                                                            data={"infraction": inf.number})
            elif days and auth.suspended_until is not None and inf.suspension_until is not None:
                licensing_services.authorization_set_suspension_end(
                    actor=actor, authorization=auth, until=auth.suspended_until - timedelta(days=int(days)),
                    reason=reason, data={"infraction": inf.number})
    inf.effects_on = None
    inf.suspension_until = None
    inf.save(update_fields=["effects_on", "suspension_until"])
    audit_log(actor=actor, obj=inf, action="infraction_effects_reverted", from_state=inf.status,
              to_state=inf.status, reason=reason)


def finalize(*, actor, infraction: Infraction, today: date, reason: str = "Decisão definitiva") -> Infraction:
    """Make the upheld decision final: its effects on the grant (unless applied at the decision,
    see ``appeal_is_suspensive``), the fine's payment slip (DAM), the retained alvará returned."""
    pack = regulation.current()
    inf = infraction
    modality = inf.modality or None
    penalty = inf.penalty or {}
    if penalty.get("missing_regulation"):  # a regulation recorded since the decision, in force on the day
        fresh = compute_penalty_for(inf, pack)
        if fresh.get("amount") and not fresh.get("missing_regulation"):
            audit_log(actor=actor, obj=inf, action="penalty_recomputed", from_state=inf.status, to_state=inf.status,
                      reason="Valor da multa fixado por regulamento em vigor na data da infração",
                      data={"amount": fresh["amount"]})
            penalty = inf.penalty = fresh
    inf.final_on = today
    _transition(inf, S.FINAL, actor=actor, reason=reason, fields=["final_on", "penalty"], data={"penalty": penalty})
    apply_grant_effects(actor=actor, infraction=inf, today=today)
    effects: dict = {}
    if penalty.get("amount"):
        due_days = int(pack.value("fees.due_days", modality) or DEFAULT_FINE_DUE_DAYS)
        fine = Fine.objects.create(infraction=inf, number=document_number("dam", today.year),
                                   amount=Decimal(penalty["amount"]), due_date=today + timedelta(days=due_days))
        audit_log(actor=actor, obj=fine, action="fine_issued", to_state="open", reason=f"DAM do auto nº {inf.number}",
                  data={"amount": penalty["amount"], "due_date": fine.due_date.isoformat()})
        effects["dam"] = fine.number
    _return_retained_alvara(inf, actor=actor, reason=f"Decisão definitiva do auto nº {inf.number}")
    if effects:
        audit_log(actor=actor, obj=inf, action="infraction_effects", from_state=S.FINAL, to_state=S.FINAL,
                  reason="Efeitos da decisão definitiva", data=effects)
    _tell_holder(inf, f"Decisão definitiva — auto nº {inf.number}",
                 f"A decisão do auto nº {inf.number} tornou-se definitiva. Penalidade: "
                 f"{', '.join(penalty.get('labels', [])) or '—'}."
                 + (f" Multa de R$ {penalty['amount']}: o DAM está disponível no portal." if penalty.get("amount") else ""),
                 "final")
    return inf


# --- cancel and payment -------------------------------------------------------------
@transaction.atomic
def infraction_cancel(*, actor, infraction: Infraction, reason: str) -> Infraction:
    """A julgador cancels an auto with a reason (never deletes or edits it)."""
    inf = _lock(infraction)
    if not (reason or "").strip():
        raise ValidationError({"reason": ["Informe o motivo do cancelamento."]})
    if inf.status not in OPEN_STATUSES:
        raise InvalidTransition(f"O auto nº {inf.number} está {S(inf.status).label} e não pode ser cancelado.")
    inf.cancel_reason = reason.strip()
    _transition(inf, S.CANCELLED, actor=actor, reason=reason.strip(), fields=["cancel_reason"])
    _return_retained_alvara(inf, actor=actor, reason=f"Auto nº {inf.number} cancelado")
    _tell_holder(inf, f"Auto nº {inf.number} cancelado", f"O auto nº {inf.number} foi cancelado: {reason.strip()}",
                 "cancelled")
    recidivism_recompute(actor=actor, annulled=inf, reason=f"auto cancelado: {reason.strip()}")
    return inf


@transaction.atomic
def fine_mark_paid(*, actor, fine: Fine, paid_on: date) -> Fine:
    locked = Fine.objects.select_for_update().get(pk=fine.pk)
    if locked.paid:
        raise InvalidTransition(f"O DAM nº {locked.number} já está pago.", field="paid_on")
    if paid_on > regulation.current().today():
        raise ValidationError({"paid_on": ["A data do pagamento não pode estar no futuro."]})
    locked.paid, locked.paid_on, locked.paid_recorded_by = True, paid_on, actor
    locked.save(update_fields=["paid", "paid_on", "paid_recorded_by"])
    audit_log(actor=actor, obj=locked, action="fine_paid", from_state="open", to_state="paid",
              reason="Pagamento registrado", data={"paid_on": paid_on.isoformat(), "amount": str(locked.amount)})
    return locked


@transaction.atomic
def regularisation_record(*, actor, infraction: Infraction, inspected_on: date, note: str = "") -> Infraction:
    """End a suspension "até a regularização" (or an impediment) once the holder proved it:
    new vistoria and the fine paid (Lei 3.703/2022 art. 20, parágrafo único)."""
    pack = regulation.current()
    inf = _lock(infraction)
    kinds = set((inf.penalty or {}).get("kinds", []))
    auth = inf.authorization
    if (inf.status not in EFFECTIVE_STATUSES or inf.effects_on is None or inf.suspension_lifted
            or not ({"suspension_until_regularised", "impediment"} & kinds)
            or auth is None or auth.status != AuthorizationStatus.SUSPENDED or auth.suspended_until is not None):
        raise InvalidTransition(f"O auto nº {inf.number} não tem suspensão por regularização em curso.")
    if inspected_on > pack.today():
        raise ValidationError({"inspected_on": ["A data da vistoria não pode estar no futuro."]})
    fine = Fine.objects.filter(infraction=inf).first()
    if fine is not None and not fine.paid:
        basis = "; ".join(e["legal_basis"] for e in inf.catalogue)
        raise RuleViolation(
            "fine_unpaid",
            f"Para voltar às atividades é preciso pagar a multa (DAM nº {fine.number}) — {basis}.",
            basis, field="inspected_on", conflict=True,
        )
    licensing_services.authorization_set_status(
        actor=actor, authorization=auth, to=AuthorizationStatus.ACTIVE,
        reason=f"Regularização comprovada (vistoria em {inspected_on:%d/%m/%Y}) — auto nº {inf.number}",
        data={"infraction": inf.number, "inspected_on": inspected_on.isoformat()})
    inf.suspension_lifted = True
    inf.save(update_fields=["suspension_lifted"])
    audit_log(actor=actor, obj=inf, action="suspension_lifted", from_state=inf.status, to_state=inf.status,
              reason=note.strip() or "Regularização comprovada", data={"inspected_on": inspected_on.isoformat()})
    _tell_holder(inf, f"Atividades liberadas — auto nº {inf.number}",
                 "A regularização foi registrada e sua autorização voltou a ficar ativa.", "regularised")
    return inf


# --- periodic advancement (idempotent) ----------------------------------------------
def close_defense_windows(today: date | None = None) -> int:
    """Defense period over without a defense → awaiting judgement."""
    today = today or regulation.current().today()
    changed = 0
    for pk in Infraction.objects.filter(status=S.NOTIFIED, defense_deadline__lt=today).values_list("pk", flat=True):
        with transaction.atomic():
            inf = Infraction.objects.select_for_update().filter(pk=pk, status=S.NOTIFIED,
                                                                defense_deadline__lt=today).first()
            if inf is None:
                continue
            _transition(inf, S.AWAITING_JUDGEMENT, actor=None, reason="Prazo de defesa encerrado sem defesa",
                        data={"defense_deadline": inf.defense_deadline.isoformat()})
            changed += 1
    return changed


def close_appeal_windows(today: date | None = None) -> int:
    """Appeal period over without an appeal → final, effects applied."""
    today = today or regulation.current().today()
    changed = 0
    qs = Infraction.objects.filter(status=S.UPHELD, appeal_deadline__lt=today).order_by("appeal_deadline", "id")
    for pk in qs.values_list("pk", flat=True):
        with transaction.atomic():
            inf = Infraction.objects.select_for_update().filter(pk=pk, status=S.UPHELD,
                                                                appeal_deadline__lt=today).first()
            if inf is None:
                continue
            finalize(actor=None, infraction=inf, today=today, reason="Prazo de recurso encerrado sem recurso")
            changed += 1
    return changed


def lift_ended_suspensions(today: date | None = None) -> int:
    """Suspension served → the grant is active again (only the suspension this auto set)."""
    today = today or regulation.current().today()
    changed = 0
    qs = Infraction.objects.filter(status__in=EFFECTIVE_STATUSES, effects_on__isnull=False, suspension_until__lt=today,
                                   suspension_lifted=False)
    for pk in qs.values_list("pk", flat=True):
        with transaction.atomic():
            inf = Infraction.objects.select_for_update().filter(pk=pk, suspension_lifted=False).first()
            if inf is None:
                continue
            auth = inf.authorization
            if (auth is not None and auth.status == AuthorizationStatus.SUSPENDED
                    and auth.suspended_until == inf.suspension_until):
                licensing_services.authorization_set_status(
                    actor=None, authorization=auth, to=AuthorizationStatus.ACTIVE,
                    reason=f"Fim da suspensão do auto nº {inf.number}", data={"infraction": inf.number})
            inf.suspension_lifted = True
            inf.save(update_fields=["suspension_lifted"])
            audit_log(actor=None, obj=inf, action="suspension_lifted", from_state=inf.status, to_state=inf.status,
                      reason="Suspensão cumprida", data={"suspended_until": inf.suspension_until.isoformat()})
            changed += 1
    return changed


# --- recidivism recomputed ----------------------------------------------------------
def recidivism_recompute(*, actor, annulled: Infraction, reason: str) -> list[str]:
    """An earlier auto annulled on appeal or cancelled stops counting for recidivism (Lei 3.703/2022
    art. 23; Lei 724/2008 art. 26): each later penalty of the holder that was doubled because of it
    is recomputed, with an audit entry and a notice to the holder. An unpaid DAM follows the new
    amount; a paid one is recorded as owing the difference back. Returns the autos recomputed."""
    if not annulled.holder_id:
        return []
    changed = []
    later = (Infraction.objects.select_for_update()
             .filter(holder_id=annulled.holder_id, status__in=[S.UPHELD, S.APPEALED, S.FINAL], penalty__isnull=False)
             .exclude(pk=annulled.pk).order_by("occurred_at", "id"))
    for inf in later:
        old = inf.penalty or {}
        if annulled.number not in (old.get("recidivism_refs") or []):
            continue
        fresh = compute_penalty_for(inf)
        inf.penalty = fresh
        inf.save(update_fields=["penalty"])
        data = {"annulled": annulled.number, "before": {k: old.get(k) for k in ("multiplier", "amount")},
                "after": {k: fresh.get(k) for k in ("multiplier", "amount")}}
        fine = Fine.objects.select_for_update().filter(infraction=inf).first()
        if fine is not None and fresh.get("amount"):
            if not fine.paid:
                data["dam"] = {"number": fine.number, "before": str(fine.amount), "after": fresh["amount"]}
                fine.amount = Decimal(fresh["amount"])
                fine.save(update_fields=["amount"])
            else:
                data["refund_due"] = str(fine.amount - Decimal(fresh["amount"]))
        audit_log(actor=actor, obj=inf, action="penalty_recomputed", from_state=inf.status, to_state=inf.status,
                  reason=f"Reincidência recalculada: o auto nº {annulled.number} deixou de contar ({reason})",
                  data=data)
        _tell_holder(inf, f"Penalidade recalculada — auto nº {inf.number}",
                     f"O auto nº {annulled.number} deixou de contar para a reincidência ({reason}). A penalidade do "
                     f"auto nº {inf.number} foi recalculada"
                     + (f": multa de R$ {fresh['amount']}" if fresh.get("amount") else "")
                     + (f"; o valor pago a maior (R$ {data['refund_due']}) será restituído" if data.get("refund_due")
                        else "") + ".", f"recomputed:{annulled.pk}")
        changed.append(inf.number)
    return changed


# --- regulations that fix example values ----------------------------------------------
def regulation_keys(pack) -> list[tuple[str, str, str]]:
    """(key, label, legal basis) of the values a regulation may fix: the fiscal unit and the fine
    of each infraction whose value the law leaves to a regulation or the pack only exemplifies."""
    out = []
    unit = pack.fiscal_unit
    if unit:
        out.append(("fiscal_unit", f"Valor da {unit.get('name', 'unidade fiscal')} ({unit.get('long_name', '')})",
                    unit.get("legal_basis", "")))
    for item in pack.infractions():
        entry = rules.catalogue_entry(item, pack.penalty_codes)
        for p in entry["penalties"]:
            if p["kind"] == "fine" and (p.get("example") or not p.get("value_set")):
                out.append((f"fine:{item['code']}", f"Multa da infração {item['code']}", p["legal_basis"]))
                break
    return out


@transaction.atomic
def regulation_record(*, actor, key: str, act_number: str, act_date: date, value, effective_from: date | None = None
                      ) -> RecordedRegulation:
    """The administrator records the regulation (decreto) that fixes a value the law leaves to it:
    number, date, value (reais), in force from ``effective_from`` (default: its date). From then on
    the value produces legal effect for infractions committed while it is in force."""
    pack = regulation.current()
    errors: dict[str, list[str]] = {}
    keys = {k for k, _label, _basis in regulation_keys(pack)}
    if key not in keys:
        errors["key"] = ["Escolha um valor que a lei remete a regulamento."]
    if not (act_number or "").strip():
        errors["act_number"] = ["Informe o número do regulamento (decreto)."]
    try:
        amount = Decimal(str(value))
    except (InvalidOperation, TypeError):
        amount = None
    if amount is None or not amount.is_finite() or amount <= 0 or amount >= Decimal("1e10"):
        errors["value"] = ["Informe um valor em reais maior que zero."]
    today = pack.today()
    if act_date is None or act_date > today:
        errors["act_date"] = ["A data do regulamento não pode estar no futuro."]
    effective_from = effective_from or act_date
    if effective_from is not None and act_date is not None and effective_from < act_date:
        errors["effective_from"] = ["A vigência não pode começar antes da data do regulamento."]
    if errors:
        raise ValidationError(errors)
    row = RecordedRegulation.objects.create(
        municipality_id=pack.municipality_id, key=key, act_number=act_number.strip()[:60], act_date=act_date,
        effective_from=effective_from, value=rules.money(amount), recorded_by=actor)
    if key == "fiscal_unit":
        from portal.models import FiscalUnitValue

        unit = pack.fiscal_unit
        FiscalUnitValue.objects.update_or_create(
            municipality_id=pack.municipality_id, name=unit.get("name", ""), effective_from=effective_from,
            defaults={"long_name": unit.get("long_name", ""), "value": row.value, "is_example": False,
                      "legal_basis": f"{row.act_number}, de {act_date:%d/%m/%Y} ({unit.get('legal_basis', '')})"[:300]})
        regulation.invalidate()
        transaction.on_commit(regulation.invalidate)
    audit_log(actor=actor, obj=row, action="regulation_recorded", to_state="recorded",
              reason=f"Regulamento registrado: {row.act_number}",
              data={"key": key, "act_number": row.act_number, "act_date": act_date.isoformat(),
                    "effective_from": effective_from.isoformat(), "value": str(row.value)})
    return row
