"""Writes of tariff tables: seeding from the pack and publishing a new table by decree."""

from __future__ import annotations

from datetime import date

from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction

from portal import regulation
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import RuleViolation, RuleViolations
from portal.roles import Role, has_role
from tariffs import rules
from tariffs.models import TariffSource, TariffTable
from tariffs.selectors import forget_fingerprint, pack_tables

PUBLISHER_ROLES = (Role.ADMIN, Role.JUDGE)


@transaction.atomic
def tariff_seed_from_pack(*, pack: regulation.Pack, actor=None) -> int:
    """Store the pack's initial tables that are not stored yet. Idempotent; returns how many."""
    created = 0
    for table in pack_tables(pack):
        if table.modality in pack.modalities and not pack.has_modality(table.modality):
            continue  # waits for the modality's decree (stored at a later load, once it is in force)
        exists = TariffTable.objects.filter(
            municipality_id=pack.municipality_id,
            modality=table.modality,
            effective_from=table.effective_from,
        ).exists()
        if exists:
            continue
        try:
            with transaction.atomic():
                table.save(force_insert=True)
        except IntegrityError:  # stored at the same moment by another process
            continue
        audit_log(
            actor=actor,
            obj=table,
            action=AuditAction.TARIFF_SEEDED,
            to_state="stored",
            reason=f"Tabela inicial do pacote: {table.decree}",
            data={"modality": table.modality, "effective_from": table.effective_from.isoformat()},
        )
        created += 1
    if created:
        _forget(pack.municipality_id)
    return created


def _forget(municipality_id: int) -> None:
    forget_fingerprint(municipality_id)
    transaction.on_commit(lambda: forget_fingerprint(municipality_id))


def on_pack_loaded(result) -> None:
    """portal.hooks pack-loaded callback: store the tables of the pack just loaded."""
    pack = regulation.current(required=False)
    if pack is not None and pack.municipality_id == result.municipality_id:
        tariff_seed_from_pack(pack=pack)


def _allowed_modalities(pack: regulation.Pack) -> list[str]:
    out = [m for m in ("taxi", "mototaxi") if pack.has_modality(m)]
    if pack.collective_transport:
        out.append("bus")
    return out


@transaction.atomic
def tariff_publish(
    *,
    actor,
    modality: str,
    decree: str,
    published_on: date,
    effective_from: date,
    structure: str,
    components: dict,
    legal_basis: str,
    is_example: bool = False,
) -> TariffTable:
    """Publish a new tariff table; it supersedes the previous one from its effective date.

    A table takes effect only from its effective date, never before its publication; bus
    fares only after the minimum notice of the collective-transport law (pack
    ``fare.min_notice_days``, e.g. Lei 3.447/2017, art. 17). History is kept:
    tables are never edited, and no table may start before today (a past quote keeps the
    table then in force).
    """
    if not has_role(actor, *PUBLISHER_ROLES):
        raise PermissionDenied("Somente o administrador ou o julgador publica tabelas de tarifas.")
    pack = regulation.current()
    violations: list[RuleViolation] = []
    closed = pack.modality_refusal(modality) if modality in pack.modalities else None
    if closed is not None:  # a modality left to a decree not yet in force: no table to publish
        violations.append(closed)
    elif modality not in _allowed_modalities(pack):
        violations.append(
            RuleViolation(
                "tariff.modality",
                "Este serviço não existe na lei do município.",
                "",
                field="modality",
            )
        )
    if not decree.strip():
        violations.append(
            RuleViolation("tariff.decree", "Informe o número do decreto.", "", field="decree")
        )
    if not legal_basis.strip():
        violations.append(
            RuleViolation(
                "tariff.legal_basis",
                "Informe a base legal (artigo da lei).",
                "",
                field="legal_basis",
            )
        )
    for message in rules.component_errors(structure, components):
        violations.append(RuleViolation("tariff.components", message, "", field="components"))
    notice = pack.collective_param("fare.min_notice_days") if modality == "bus" else None
    violation = rules.effective_date_violation(
        modality=modality,
        published_on=published_on,
        effective_from=effective_from,
        legal_basis=legal_basis,
        min_notice_days=int(notice.value) if notice else None,
        notice_basis=notice.legal_basis if notice else "",
    )
    if violation:
        violations.append(violation)
    if effective_from < pack.today():
        violations.append(
            RuleViolation(
                "tariff.retroactive",
                "A vigência não pode começar antes de hoje: as corridas já feitas seguem a tabela então em vigor.",
                "",
                field="effective_from",
            )
        )
    if violations:
        raise RuleViolations(violations)
    tariff_seed_from_pack(pack=pack, actor=actor)
    if TariffTable.objects.filter(
        municipality_id=pack.municipality_id, modality=modality, effective_from=effective_from
    ).exists():
        raise RuleViolation(
            "tariff.duplicate_date",
            f"Já existe uma tabela deste serviço em vigor a partir de {effective_from:%d/%m/%Y}.",
            "",
            field="effective_from",
            conflict=True,
        )
    table = TariffTable(
        municipality_id=pack.municipality_id,
        modality=modality,
        decree=decree.strip(),
        published_on=published_on,
        effective_from=effective_from,
        structure=structure,
        components=components,
        legal_basis=legal_basis.strip(),
        is_example=is_example,
        source=TariffSource.PUBLISHED,
        created_by=actor,
    )
    try:
        with transaction.atomic():
            table.save(force_insert=True)
    except IntegrityError:  # another table for the same date was published at the same moment
        raise RuleViolation(
            "tariff.duplicate_date",
            f"Já existe uma tabela deste serviço em vigor a partir de {effective_from:%d/%m/%Y}.",
            "",
            field="effective_from",
            conflict=True,
        ) from None
    _forget(pack.municipality_id)
    audit_log(
        actor=actor,
        obj=table,
        action=AuditAction.TARIFF_PUBLISHED,
        to_state="published",
        reason=decree,
        data={
            "modality": modality,
            "effective_from": effective_from.isoformat(),
            "published_on": published_on.isoformat(),
            "structure": structure,
            "components": components,
        },
    )
    return table
