"""The penalty the law imposes on an auto (catalogue, decree values, recidivism) and its recomputation
when an earlier auto stops counting. Apart from judgement and effects so that neither imports the other."""

from __future__ import annotations

from datetime import date
from decimal import Decimal, InvalidOperation

from enforcement import rules
from enforcement.models import (
    Fine,
    Infraction,
    RecordedRegulation,
)
from enforcement.services._common import S, _tell_holder
from enforcement.services.fine_dam import fine_reissue
from portal import regulation
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.numbers import brl


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
        # the pk lets the judgement screen link each earlier auto (same holder: the julgador may open it)
        ids = dict(Infraction.objects.filter(holder_id=infraction.holder_id, number__in=[p.ref for p in refs])
                   .values_list("number", "pk"))
        penalty["recidivism_autos"] = [
            {"number": p.ref, "id": ids.get(p.ref), "occurred_on": p.occurred_on.isoformat(), "date": f"{p.occurred_on:%d/%m/%Y}",
             "amount": str(p.amount) if p.amount else None,
             "multiplier": p.multiplier, "days_before": (infraction.occurred_on - p.occurred_on).days}
            for p in refs
        ]
    return penalty


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
                before = {"number": fine.number, "amount": str(fine.amount)}
                fine_reissue(actor=actor, fine=fine, amount=Decimal(fresh["amount"]),
                             reason=f"penalidade do auto nº {inf.number} recalculada")
                data["dam"] = {"number": fine.number, "before": before["amount"], "after": fresh["amount"],
                               "replaces": before["number"]}
            else:
                data["refund_due"] = str(fine.amount - Decimal(fresh["amount"]))
        audit_log(actor=actor, obj=inf, action=AuditAction.PENALTY_RECOMPUTED, from_state=inf.status, to_state=inf.status,
                  reason=f"Reincidência recalculada: o auto nº {annulled.number} deixou de contar ({reason})",
                  data=data)
        _tell_holder(inf, f"Penalidade recalculada — auto nº {inf.number}",
                     f"O auto nº {annulled.number} deixou de contar para a reincidência ({reason}). A penalidade do "
                     f"auto nº {inf.number} foi recalculada"
                     + (f": multa de {brl(fresh['amount'])}" if fresh.get("amount") else "")
                     + (f"; o valor pago a maior ({brl(data['refund_due'])}) será restituído" if data.get("refund_due")
                        else "") + ".", f"recomputed:{annulled.pk}")
        changed.append(inf.number)
    return changed
