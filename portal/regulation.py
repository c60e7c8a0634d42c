"""The regulation pack of the municipality in scope: a typed accessor over the pack data and its parameters.

Code asks ``current()`` for values by key and never names a municipality. A value is a
``Param`` with its legal basis; values are versioned by ``effective_from`` so that a decree
can change one without losing the old.
"""

from __future__ import annotations

import hashlib
import json
import threading
import tomllib
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from django.db import transaction
from django.utils import timezone

from portal import pack_keys
from portal.modality_rules import modality_closed

PACKS_DIR = Path(__file__).resolve().parent / "packs"
LAWS_DIR = PACKS_DIR / "laws"
_MISSING = object()


class PackError(Exception):
    """The pack file is malformed or no pack is active."""


@dataclass(frozen=True)
class Param:
    key: str
    value: Any
    legal_basis: str
    effective_from: date
    is_example: bool = False


@dataclass(frozen=True)
class ModalityDecreeRecord:
    """A decree the administrator recorded to open a modality (portal.models.ModalityDecree)."""

    number: str
    act_date: date
    effective_from: date
    link: str = ""


@dataclass
class Pack:
    municipality_id: int
    slug: str
    version: int
    data: dict
    population: int
    population_source: str
    population_year: int
    params: dict[str, list[Param]] = field(default_factory=dict)
    fiscal_units: list[tuple[date, Decimal, str, str, bool]] = field(default_factory=list)
    # recorded decrees that open a modality the law leaves to a decree, newest in force first
    modality_decrees: dict[str, list[ModalityDecreeRecord]] = field(default_factory=dict)
    # Municipality.revision it was built from (portal.tenant_revisions: when the cache holds it)
    revision: int = 0

    # --- municipality -------------------------------------------------------------
    @property
    def municipality(self) -> dict:
        return self.data.get("municipality", {})

    @property
    def name(self) -> str:
        return self.municipality.get("name", "")

    @property
    def uf(self) -> str:
        return self.municipality.get("uf", "")

    @property
    def display_name(self) -> str:
        return f"{self.name}/{self.uf}"

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.municipality.get("timezone", "America/Sao_Paulo"))

    def today(self) -> date:
        return timezone.now().astimezone(self.tz).date()

    # --- laws and acts --------------------------------------------------------------
    @property
    def laws(self) -> list[dict]:
        return self.data.get("laws", [])

    def law(self, key: str) -> dict | None:
        return next((law for law in self.laws if law.get("key") == key), None)

    @property
    def main_law(self) -> dict:
        return self.laws[0] if self.laws else {}

    def act(self, name: str) -> dict:
        return self.data.get("acts", {}).get(name, {})

    # --- modalities -----------------------------------------------------------------
    @property
    def modalities(self) -> dict[str, dict]:
        """Every modality the pack's law names, in force or not (see ``in_force_modalities``)."""
        return self.data.get("modalities", {})

    def decree_requirement(self, modality: str) -> str | None:
        """The article that makes the modality wait for a decree (``requires_decree``), or None."""
        raw = self.modalities.get(modality, {}).get("requires_decree") or {}
        return raw.get("legal_basis", "") if raw.get("value") else None

    def modality_decree(self, modality: str, at: date | None = None) -> ModalityDecreeRecord | None:
        """The recorded decree in force at ``at`` (default today, in the pack's time zone)."""
        at = at or self.today()
        return next((d for d in self.modality_decrees.get(modality, []) if d.effective_from <= at), None)

    def next_modality_decree(self, modality: str, at: date | None = None) -> ModalityDecreeRecord | None:
        """A recorded decree not yet in force at ``at`` (the earliest), or None."""
        at = at or self.today()
        future = [d for d in self.modality_decrees.get(modality, []) if d.effective_from > at]
        return min(future, key=lambda d: d.effective_from) if future else None

    def modality_refusal(self, modality: str, at: date | None = None):
        """Why the modality offers nothing at ``at`` (a RuleViolation citing the article), or None."""
        at = at or self.today()
        known = modality in self.modalities
        upcoming = self.next_modality_decree(modality, at)
        return modality_closed(
            modality=modality, label=self.modality_label(modality), municipality=self.display_name, known=known,
            decree_basis=self.decree_requirement(modality) if known else None,
            in_force=self.modality_decree(modality, at) is not None,
            upcoming=(upcoming.number, upcoming.effective_from) if upcoming else None)

    def modality_in_force(self, modality: str, at: date | None = None) -> bool:
        return self.modality_refusal(modality, at) is None

    def has_modality(self, modality: str) -> bool:
        """The modality exists today: its law provides for it and, where the law leaves it to a
        decree, the decree is recorded and in force."""
        return self.modality_in_force(modality)

    @property
    def in_force_modalities(self) -> list[str]:
        """The modalities in force today, in the usual order (táxi, mototáxi, then others)."""
        known = ("taxi", "mototaxi")  # the usual order of the name; a stored pack keeps its keys sorted
        ordered = sorted(self.modalities, key=lambda m: (known.index(m) if m in known else len(known), m))
        return [m for m in ordered if self.modality_in_force(m)]

    def modality_label(self, modality: str) -> str:
        return self.modalities.get(modality, {}).get("label", modality)

    @property
    def service_name(self) -> str:
        """The service the law regulates, for the header, titles and e-mails: "Táxi" under a
        táxi-only law, "Táxi e Mototáxi" where the law has both (the modalities in force: one
        that waits for its decree is not mentioned)."""
        labels = [self.modality_label(m) for m in self.in_force_modalities]
        return " e ".join([", ".join(labels[:-1]), labels[-1]]) if len(labels) > 1 else (labels or ["Transporte"])[0]

    # --- parameters -----------------------------------------------------------------
    def param(
        self, key: str, modality: str | None = None, at: date | None = None, default: Any = _MISSING
    ) -> Param | None:
        """The parameter in force at ``at`` (default today); modality-specific first."""
        at = at or self.today()
        for candidate in ([f"{modality}.{key}"] if modality else []) + [key]:
            versions = self.params.get(candidate)
            if not versions:
                continue
            for version in versions:  # newest first
                if version.effective_from <= at:
                    return version
            return versions[-1]
        if default is _MISSING:
            return None
        return default

    def value(self, key: str, modality: str | None = None, default: Any = None, at: date | None = None) -> Any:
        found = self.param(key, modality, at)
        return default if found is None else found.value

    def basis(self, key: str, modality: str | None = None) -> str:
        found = self.param(key, modality)
        return found.legal_basis if found else ""

    # --- fiscal unit ----------------------------------------------------------------
    @property
    def fiscal_unit(self) -> dict:
        return self.data.get("fiscal_unit", {})

    def fiscal_unit_value(self, at: date | None = None) -> tuple[Decimal, str, bool] | None:
        """(value in reais, legal basis, is_example) of the fiscal unit at a date."""
        at = at or self.today()
        for effective_from, value, _name, basis, example in self.fiscal_units:
            if effective_from <= at:
                return value, basis, example
        return None

    # --- lists ----------------------------------------------------------------------
    def _for_modality(self, items: list[dict], modality: str | None) -> list[dict]:
        if modality is None:
            return list(items)
        return [i for i in items if not i.get("modalities") or modality in i["modalities"]]

    def documents(self, modality: str, kind: str = "new", applies_to: str | None = None) -> list[dict]:
        items = self._for_modality(self.data.get("documents", []), modality)
        items = [i for i in items if not i.get("kinds") or kind in i["kinds"]]
        if applies_to:
            items = [i for i in items if i.get("applies_to", "holder") in (applies_to, "both")]
        return items

    def inspection_items(self, modality: str) -> list[dict]:
        return self._for_modality(self.data.get("inspection", []), modality)

    def infractions(self, modality: str | None = None) -> list[dict]:
        return self._for_modality(self.data.get("infractions", []), modality)

    def infraction(self, code: str) -> dict | None:
        return next((i for i in self.data.get("infractions", []) if i.get("code") == code), None)

    @property
    def penalty_codes(self) -> dict[str, dict]:
        return {p["code"]: p for p in self.data.get("penalty_codes", [])}

    @property
    def tariffs(self) -> list[dict]:
        return self.data.get("tariffs", [])

    @property
    def stands(self) -> list[dict]:
        return self.data.get("stands", [])

    @property
    def collective_transport(self) -> dict | None:
        return self.data.get("collective_transport")

    def collective_param(self, key: str) -> Param | None:
        ct = self.collective_transport or {}
        raw = (ct.get("params") or {}).get(key)
        if raw is None:
            return None
        return _param_from_raw(key, raw, self._law_date())

    def _law_date(self) -> date:
        raw = self.main_law.get("date")
        return date.fromisoformat(str(raw)) if raw else date(2000, 1, 1)


def _param_from_raw(key: str, raw: Any, default_date: date) -> Param:
    if not isinstance(raw, dict) or "value" not in raw:
        raise PackError(f"Parâmetro {key!r}: informe value e legal_basis.")
    if not raw.get("legal_basis"):
        raise PackError(f"Parâmetro {key!r} sem legal_basis.")
    eff = raw.get("effective_from")
    return Param(
        key=key,
        value=raw["value"],
        legal_basis=raw["legal_basis"],
        effective_from=date.fromisoformat(str(eff)) if eff else default_date,
        is_example=bool(raw.get("example", False)),
    )


# --- cache of the packs, one per municipality -------------------------------------------
# Every municipality's parsed pack stays in the process; one query checks the revisions of all
# of them at most every tenant_revisions.CHECK_SECONDS, and only a changed one is rebuilt.
_lock = threading.Lock()
_cached: dict[int, Pack] = {}


def invalidate(municipality_id: int | None = None) -> None:
    """Forget the cached pack of one municipality (all, without an id), and the hosts; the
    revisions are read again at the next use (a change made in this process is seen at once)."""
    from portal import tenant_hosts, tenant_revisions

    tenant_revisions.forget()
    tenant_hosts.invalidate()
    with _lock:
        if municipality_id is None:
            _cached.clear()
        else:
            _cached.pop(municipality_id, None)


def current(required: bool = True) -> Pack | None:
    """The pack of the municipality in scope (``portal.tenancy``), cached in the process while
    its revision holds. Without a municipality in scope: ``TenantMissing`` when required, else None."""
    from portal import tenancy

    municipality_id = tenancy.current_id() if required else tenancy.current_id_or_none()
    if municipality_id is None:
        return None
    return pack_of(municipality_id, required=required)


def pack_of(municipality_id: int, required: bool = True) -> Pack | None:
    """The pack of a given municipality (cached like ``current``)."""
    from portal import tenant_revisions

    row = tenant_revisions.current().rows.get(municipality_id)
    if row is None:  # newer than the last check (or no such municipality): look again
        row = tenant_revisions.current(force=True).rows.get(municipality_id)
    hit = _cached.get(municipality_id)
    if hit is not None and row is not None and hit.revision == row.revision:
        return hit
    pack = _build(municipality_id)
    if pack is None:
        if required:
            raise PackError(
                "Nenhum pacote de regulamentação para este município: rode "
                "`python manage.py load_regulation <pacote>`."
            )
        return None
    with _lock:
        _cached[municipality_id] = pack
    if row is not None and pack.revision != row.revision:
        tenant_revisions.forget()  # changed since the last check: read the revisions again
    return pack


def _build(municipality_id: int) -> Pack | None:
    from portal.models import FiscalUnitValue, ModalityDecree, Municipality, RegulationParameter

    municipality = Municipality.objects.filter(pk=municipality_id).first()
    if municipality is None:
        return None
    params: dict[str, list[Param]] = {}
    for row in RegulationParameter.objects.filter(municipality=municipality).order_by(
        "key", "-effective_from", "-id"
    ):
        params.setdefault(row.key, []).append(
            Param(row.key, row.value, row.legal_basis, row.effective_from, row.is_example)
        )
    units = [
        (u.effective_from, u.value, u.name, u.legal_basis, u.is_example)
        for u in FiscalUnitValue.objects.filter(municipality=municipality).order_by("-effective_from")
    ]
    decrees: dict[str, list[ModalityDecreeRecord]] = {}
    for d in ModalityDecree.objects.filter(municipality=municipality).order_by("-effective_from", "-id"):
        decrees.setdefault(d.modality, []).append(
            ModalityDecreeRecord(d.number, d.act_date, d.effective_from, d.link))
    return Pack(
        modality_decrees=decrees,
        municipality_id=municipality.pk,
        slug=municipality.slug,
        version=municipality.version,
        data=municipality.pack,
        population=municipality.population,
        population_source=municipality.population_source,
        population_year=municipality.population_year,
        params=params,
        fiscal_units=units,
        # read with the row, before its parameters: a change committed in between is rebuilt
        # at the next check, never kept under the new revision with the old data
        revision=municipality.revision,
    )


# --- loading ------------------------------------------------------------------------
def available_packs() -> list[str]:
    return sorted(p.stem for p in PACKS_DIR.glob("*.toml"))


def read_pack_file(slug: str) -> dict:
    path = PACKS_DIR / f"{slug}.toml"
    if not path.is_file():
        raise PackError(
            f"Pacote {slug!r} não encontrado. Disponíveis: {', '.join(available_packs())}."
        )
    with path.open("rb") as fh:
        data = tomllib.load(fh)
    validate_pack_data(data)
    return data


_REQUIRED_MUNICIPALITY = ("name", "uf", "timezone", "population", "population_source", "population_year")


def validate_pack_data(data: dict) -> None:
    if data.get("schema") != 1:
        raise PackError("Versão de esquema do pacote não suportada (esperado schema = 1).")
    muni = data.get("municipality") or {}
    missing = [k for k in _REQUIRED_MUNICIPALITY if k not in muni]
    if missing:
        raise PackError(f"[municipality] sem: {', '.join(missing)}.")
    ZoneInfo(muni["timezone"])
    if not data.get("laws"):
        raise PackError("O pacote precisa listar ao menos uma lei em [[laws]].")
    if not data.get("modalities"):
        raise PackError("O pacote precisa de ao menos uma modalidade em [modalities].")
    for modality, table in data["modalities"].items():
        _check_modality(modality, table)
    law_date = date.fromisoformat(str(data["laws"][0]["date"]))
    for key, raw in (data.get("params") or {}).items():
        _param_from_raw(key, raw, law_date)
        _check_declared(pack_keys.PARAMS, "[params]", key, raw, data["modalities"])
    for key, raw in ((data.get("collective_transport") or {}).get("params") or {}).items():
        _param_from_raw(key, raw, law_date)
        _check_declared(pack_keys.COLLECTIVE_PARAMS, "[collective_transport.params]", key, raw, ())
    for key, value in ((data.get("collective_transport") or {}).get("articles") or {}).items():
        if key not in pack_keys.COLLECTIVE_ARTICLES:
            raise PackError(f"[collective_transport.articles]: chave desconhecida {key!r} (declare-a em portal/pack_keys.py).")
        if not isinstance(value, str) or not value.strip():
            raise PackError(f"[collective_transport.articles]: {key!r} deve ser o artigo da lei, em texto.")
    for section in ("documents", "inspection", "infractions", "penalty_codes", "tariffs"):
        seen: set[str] = set()
        for item in data.get(section, []):
            code = item.get("code") or f"{item.get('modality')}:{item.get('effective_from')}"
            if code in seen:
                raise PackError(f"[[{section}]]: código repetido {code!r}.")
            seen.add(code)
            if not item.get("legal_basis"):
                raise PackError(f"[[{section}]] {code!r} sem legal_basis.")
            proves = item.get("proves", [])
            known = pack_keys.RANKING_CRITERIA + pack_keys.ADMISSION_CRITERIA
            if section == "documents" and (not isinstance(proves, list) or any(p not in known for p in proves)):
                raise PackError(f"[[documents]] {code!r}: proves deve listar critérios entre {', '.join(known)}.")
            if section == "documents" and not isinstance(item.get("vehicle", False), bool):
                raise PackError(f"[[documents]] {code!r}: vehicle deve ser true ou false.")
            if section == "documents" and item.get("validity", "each_request") not in pack_keys.DOCUMENT_VALIDITY:
                raise PackError(f"[[documents]] {code!r}: validity deve ser {', '.join(pack_keys.DOCUMENT_VALIDITY)}.")


def _check_modality(modality: str, table: Any) -> None:
    """A [modalities.<m>] table carries only the keys of pack_keys.MODALITY_KEYS, each of its type."""
    section = f"[modalities.{modality}]"
    if not isinstance(table, dict):
        raise PackError(f"{section} deve ser uma tabela.")
    for key, value in table.items():
        spec = pack_keys.MODALITY_KEYS.get(key)
        if spec is None:
            raise PackError(f"{section}: chave desconhecida {key!r} (declare-a em portal/pack_keys.py ou corrija o nome).")
        problem = pack_keys.type_error(spec, value)
        if problem:
            raise PackError(f"{section}: {key!r} com valor inválido: {problem}.")
    decree = table.get("requires_decree")
    if decree is not None and (not isinstance(decree.get("value"), bool) or not decree.get("legal_basis")):
        raise PackError(f"{section}: requires_decree deve ser {{ value = true|false, legal_basis = \"...\" }}.")


def _check_declared(table: dict, section: str, key: str, raw: dict, modalities) -> None:
    """A key must be declared in portal.pack_keys, with a value of its type."""
    spec = pack_keys.declared(table, key, modalities)
    if spec is None:
        raise PackError(
            f"{section}: parâmetro desconhecido {key!r} (declare-o em portal/pack_keys.py ou corrija o nome)."
        )
    problem = pack_keys.type_error(spec, raw["value"])
    if problem:
        raise PackError(f"{section}: parâmetro {key!r} com valor inválido: {problem}.")


def _jsonable(data: Any) -> Any:
    return json.loads(json.dumps(data, default=str, sort_keys=True))


@dataclass
class LoadResult:
    municipality_id: int
    created: bool
    changed_params: int
    activated: bool
    population_changed: bool


@transaction.atomic
def load_pack(slug: str, *, population: int | None = None, actor=None) -> LoadResult:
    """Add or update the municipality of a pack from its file, and put it in service.
    Idempotent; the other municipalities of the installation are left as they are."""
    from portal import tenancy
    from portal.models import FiscalUnitValue, Municipality, RegulationParameter

    data = _jsonable(read_pack_file(slug))
    muni = data["municipality"]
    digest = hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()
    law_date = date.fromisoformat(str(data["laws"][0]["date"]))
    defaults = {
        "name": muni["name"],
        "uf": muni["uf"],
        "ibge_code": str(muni.get("ibge_code", "")),
        "time_zone": muni["timezone"],
        "office": muni.get("office", ""),
        "authority": muni.get("authority", ""),
        "contact_email": muni.get("contact_email", ""),
        "contact_phone": muni.get("contact_phone", ""),
        "complaints_phone": muni.get("complaints_phone", ""),
    }
    municipality = Municipality.objects.select_for_update().filter(slug=slug).first()
    created = municipality is None
    if created:
        municipality = Municipality(
            slug=slug,
            population=population or int(muni["population"]),
            population_source=muni["population_source"] if population is None else "informada pelo administrador",
            population_year=int(muni["population_year"]) if population is None else timezone.now().year,
            **defaults,
        )
    changed = created
    for name, value in defaults.items():
        if getattr(municipality, name) != value:
            setattr(municipality, name, value)
            changed = True
    if municipality.pack_digest != digest:
        municipality.pack = data
        municipality.pack_digest = digest
        changed = True
    population_changed = False
    if population is not None and municipality.population != population:
        old = municipality.population
        municipality.population = population
        municipality.population_source = "informada pelo administrador"
        municipality.population_year = timezone.now().year
        population_changed = not created
        changed = True
    if changed and not created:
        municipality.version += 1
        municipality.loaded_at = timezone.now()
    municipality.save()

    changed_params = 0
    for key, raw in (data.get("params") or {}).items():
        param = _param_from_raw(key, raw, law_date)
        row, was_created = RegulationParameter.objects.get_or_create(
            municipality=municipality,
            key=key,
            effective_from=param.effective_from,
            defaults={
                "value": param.value,
                "legal_basis": param.legal_basis,
                "is_example": param.is_example,
            },
        )
        if was_created:
            changed_params += 1
        elif row.source == "pack" and (
            row.value != param.value or row.legal_basis != param.legal_basis or row.is_example != param.is_example
        ):
            row.value, row.legal_basis, row.is_example = param.value, param.legal_basis, param.is_example
            row.save(update_fields=["value", "legal_basis", "is_example"])
            changed_params += 1

    unit = data.get("fiscal_unit")
    if unit:
        FiscalUnitValue.objects.update_or_create(
            municipality=municipality,
            name=unit["name"],
            effective_from=date.fromisoformat(str(unit.get("effective_from", law_date))),
            defaults={
                "long_name": unit.get("long_name", ""),
                "value": Decimal(str(unit["value"])),
                "legal_basis": unit.get("legal_basis", ""),
                "is_example": bool(unit.get("example", False)),
            },
        )

    # in service from its first load; another municipality's row is never touched (each is a
    # tenant of the one installation: its law, numbers, quota and data stay its own)
    activated = not municipality.is_active
    if activated:
        municipality.is_active = True
        municipality.save(update_fields=["is_active"])
    with tenancy.activate(municipality):
        return _after_load(slug, municipality, actor, created, changed, changed_params, activated,
                           population_changed, old if population_changed else None)


def _after_load(slug, municipality, actor, created, changed, changed_params, activated, population_changed,
                population_before) -> LoadResult:
    from portal.audit import audit_log
    from portal.audit_actions import AuditAction

    if created or changed or changed_params or activated:
        audit_log(
            actor=actor,
            obj=municipality,
            action=AuditAction.PACK_LOADED,
            reason=f"Pacote {slug} carregado",
            data={
                "created": created,
                "changed_params": changed_params,
                "activated": activated,
                "population": municipality.population,
                **({"population_before": population_before} if population_changed else {}),
            },
        )
    transaction.on_commit(lambda: invalidate(municipality.pk))
    invalidate(municipality.pk)
    result = LoadResult(municipality.pk, created, changed_params, activated, population_changed)
    from portal.hooks import pack_loaded_callbacks

    for callback in pack_loaded_callbacks():  # e.g. tariff tables and stands from the pack, quota check
        callback(result)
    return result
