"""The administrator records the decree that opens a modality the law leaves to one."""

from __future__ import annotations

from datetime import date

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import transaction

from portal import regulation
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.models import ModalityDecree


def decree_modalities(pack: regulation.Pack) -> list[tuple[str, str, str]]:
    """(modality, label, legal basis) of each modality that waits for a decree."""
    out = []
    for modality in pack.modalities:
        basis = pack.decree_requirement(modality)
        if basis is not None:
            out.append((modality, pack.modality_label(modality), basis))
    return out


def decree_rows(pack: regulation.Pack):
    return (ModalityDecree.objects.filter(municipality_id=pack.municipality_id)
            .select_related("recorded_by").order_by("modality", "-effective_from", "-id"))


@transaction.atomic
def modality_decree_record(*, actor, modality: str, number: str, act_date: date | None,
                           effective_from: date | None = None, link: str = "") -> ModalityDecree:
    """Record the decree (number, date, optional start and link of its publication) that opens
    ``modality``. The modality opens on ``effective_from`` (default: the decree's date), a day
    of the municipality's calendar. The date of a decree cannot be in the future: one not yet
    signed is not recorded; a decree signed today that starts later is recorded with its start."""
    pack = regulation.current()
    errors: dict[str, list[str]] = {}
    if modality not in {m for m, _label, _basis in decree_modalities(pack)}:
        errors["modality"] = ["Escolha uma modalidade que a lei remete a decreto."]
    number = (number or "").strip()
    if not number:
        errors["number"] = ["Informe o número do decreto (ex.: Decreto nº 1.234/2026)."]
    today = pack.today()
    if act_date is None:
        errors["act_date"] = ["Informe a data do decreto."]
    elif act_date > today:
        errors["act_date"] = ["A data do decreto não pode estar no futuro."]
    effective_from = effective_from or act_date
    if effective_from is not None and act_date is not None and effective_from < act_date:
        errors["effective_from"] = ["A vigência não pode começar antes da data do decreto."]
    link = (link or "").strip()
    if link:
        try:
            URLValidator(schemes=["http", "https"])(link)
        except ValidationError:
            errors["link"] = ["Informe o endereço completo da publicação (https://…), ou deixe em branco."]
    if errors:
        raise ValidationError(errors)
    row = ModalityDecree.objects.create(
        municipality_id=pack.municipality_id, modality=modality, number=number[:60], act_date=act_date,
        effective_from=effective_from, link=link[:300], recorded_by=actor)
    audit_log(actor=actor, obj=row, action=AuditAction.MODALITY_DECREE_RECORDED, to_state="recorded",
              reason=f"{row.number} regulamenta {pack.modality_label(modality)}",
              data={"modality": modality, "number": row.number, "act_date": act_date.isoformat(),
                    "effective_from": effective_from.isoformat(), "link": row.link,
                    "legal_basis": pack.decree_requirement(modality)})
    regulation.invalidate()
    transaction.on_commit(regulation.invalidate)
    return row
