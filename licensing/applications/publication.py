"""Publication in the Diário Oficial — the one publication desk: the acts the pack says must be
published (``publication.required_for``: granted requests, renewals, cassações, and the decisions
of appeals that enforcement gives through ``portal.registry.PUBLISHABLE_ACTS``) gathered into a list, as a
PDF and as plain text for the municipality's Diário Oficial; the clerk records the date, edition
and page it came out (PL 015/2025 art. 18, §5; where the law extends validity until then, art. 18,
§6, the renewal hold in ``selectors.renewals_filed_in_time`` reads that date)."""

from __future__ import annotations

from datetime import date

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from licensing.applications.models import (
    Application,
    ApplicationKind,
    ApplicationStatus,
    Publication,
    PublishedAct,
)
from licensing.grants.models import Amendment, AmendmentKind, Authorization
from portal import registry, regulation
from portal.audit import audit_log
from portal.exceptions import InvalidTransition, RuleViolation
from portal.issued import frozen_pdf
from portal.numbering import document_number
from portal.public.selectors import public_name

SECTIONS = {"grants": "Outorgas deferidas", "renewals": "Renovações deferidas", "cassations": "Cassações",
            "appeal_decisions": "Decisões de recursos"}
# Sections whose acts another room gives (by registry): licensing does not import enforcement.
OTHER_ROOMS = ("appeal_decisions",)


def required_sections(pack) -> list[str]:
    return [s for s in (pack.value("publication.required_for") or []) if s in SECTIONS]


def pending(pack=None) -> dict[str, list]:
    """What the pack requires published and no publication holds yet, per section, oldest first."""
    pack = pack or regulation.current()
    sections = required_sections(pack)
    out: dict[str, list] = {s: [] for s in sections}
    if "grants" in sections or "renewals" in sections:
        granted = (Application.objects.filter(status=ApplicationStatus.APPROVED, authorization__isnull=False,
                                              authorization__publications__isnull=True)
                   .select_related("authorization", "authorization__holder", "authorization__vehicle")
                   .order_by("authorization__issued_at", "authorization_id"))
        for app in granted:
            section = "renewals" if app.kind == ApplicationKind.RENEWAL else "grants"
            if section in out:
                out[section].append(app.authorization)
    if "cassations" in sections:
        # the act of cassation (apostila / portaria) issued when an auto ends the grant: one entry
        out["cassations"] = list(Amendment.objects.filter(kind=AmendmentKind.CASSATION, publications__isnull=True)
                                 .select_related("authorization", "authorization__holder").order_by("issued_at", "id"))
    others = [s for s in sections if s in OTHER_ROOMS]
    if others and registry.has(registry.PUBLISHABLE_ACTS):
        acts = registry.call(registry.PUBLISHABLE_ACTS, pack, others)
        published = set(PublishedAct.objects.filter(ref__in=[a["ref"] for a in acts]).values_list("ref", flat=True))
        for act in sorted(acts, key=lambda a: (a["on"], a["ref"])):
            if act["ref"] not in published and act["section"] in out:
                out[act["section"]].append(act)
    return out


def _item(section: str, doc, pack) -> dict:
    if isinstance(doc, dict):  # an act of another room, already in the item's shape
        return {k: v for k, v in doc.items() if k != "on"} | {"section": section}
    if isinstance(doc, Authorization):
        plate = doc.vehicle.display_plate if doc.vehicle_id else ""
        return {"section": section, "document": doc.act_name, "number": doc.number,
                "holder": public_name(doc.holder), "modality": pack.modality_label(doc.modality), "plate": plate,
                "valid_until": f"{doc.valid_until:%d/%m/%Y}"}
    auth = doc.authorization
    return {"section": section, "document": doc.act_name, "number": doc.number, "holder": public_name(auth.holder),
            "modality": pack.modality_label(auth.modality), "amends": f"{auth.act_name} nº {auth.number}",
            "reason": doc.reason}


def plain_text(pack, number: str, legal_basis: str, items: list[dict], on: date) -> str:
    """The text as it goes to the Diário Oficial: no CPF, one line per act (LGPD art. 6, III)."""
    lines = [f"PREFEITURA MUNICIPAL DE {pack.name.upper()}/{pack.uf}",
             str(pack.municipality.get("office", "")).upper(), "",
             f"PUBLICAÇÃO Nº {number}", f"Fundamento: {legal_basis}", ""]
    for section, title in SECTIONS.items():
        rows = [i for i in items if i["section"] == section]
        if not rows:
            continue
        lines.append(title.upper())
        for n, i in enumerate(rows, 1):
            if "decision" in i:
                lines.append(f"{n}. {i['document']} nº {i['number']} — {i['holder']} ({i['modality']}): "
                             f"{i['decision']}")
            elif "amends" in i:
                lines.append(f"{n}. {i['document']} nº {i['number']}, à {i['amends']} — {i['holder']} "
                             f"({i['modality']}): {i['reason']}")
            else:
                plate = f", placa {i['plate']}" if i.get("plate") else ""
                lines.append(f"{n}. {i['document']} nº {i['number']} — {i['holder']} ({i['modality']}{plate}), "
                             f"válida até {i['valid_until']}")
        lines.append("")
    lines.append(f"{pack.name}/{pack.uf}, {on:%d/%m/%Y}.")
    lines.append(str(pack.municipality.get("authority", "")))
    return "\n".join(lines) + "\n"


@transaction.atomic
def publication_prepare(*, actor) -> Publication:
    """Gather what is pending into a new publication (its own number; the PDF is frozen)."""
    pack = regulation.current()
    sections = required_sections(pack)
    if not sections:
        raise RuleViolation("publication.not_required", "A lei do município não exige publicar estes atos no "
                            "Diário Oficial.", pack.basis("publication.required_for"), conflict=True)
    found = pending(pack)
    docs = [(s, d) for s in sections for d in found.get(s, [])]
    if not docs:
        raise InvalidTransition("Não há ato pendente de publicação.")
    today = pack.today()
    number = document_number("publication", today.year)
    basis = pack.basis("publication.required_for")
    items = [_item(s, d, pack) for s, d in docs]
    pub = Publication.objects.create(number=number, legal_basis=basis[:300], items=items,
                                     text=plain_text(pack, number, basis, items, today),
                                     prepared_by=actor if getattr(actor, "is_authenticated", False) else None)
    pub.authorizations.set([d for _, d in docs if isinstance(d, Authorization)])
    pub.amendments.set([d for _, d in docs if isinstance(d, Amendment)])
    PublishedAct.objects.bulk_create([PublishedAct(publication=pub, ref=d["ref"]) for _, d in docs if isinstance(d, dict)])
    audit_log(actor=actor, obj=pub, action="publication_prepared", reason=f"Publicação nº {number} preparada",
              data={"number": number, "items": [f"{i['document']} nº {i['number']}" for i in items]})
    freeze_on_commit_publication(pub)
    return pub


def freeze_on_commit_publication(pub: Publication) -> None:
    transaction.on_commit(lambda: publication_pdf(pub))


@transaction.atomic
def publication_record(*, actor, publication: Publication, published_on: date, edition: str = "",
                       page: str = "") -> Publication:
    """Record once the day the list came out in the Diário Oficial (with edition and page)."""
    locked = Publication.objects.select_for_update().get(pk=publication.pk)
    if locked.published_on is not None:
        raise InvalidTransition(f"A publicação nº {locked.number} já foi registrada como publicada em "
                                f"{locked.published_on:%d/%m/%Y}.")
    pack = regulation.current()
    prepared_on = timezone.localtime(locked.prepared_at, pack.tz).date()
    if published_on > pack.today():
        raise ValidationError({"published_on": ["A data da publicação não pode ser futura."]})
    if published_on < prepared_on:
        raise ValidationError({"published_on": [f"A data da publicação não pode ser anterior à preparação da lista "
                                                f"({prepared_on:%d/%m/%Y})."]})
    locked.published_on = published_on
    locked.edition = (edition or "").strip()[:40]
    locked.page = (page or "").strip()[:20]
    locked.recorded_by = actor if getattr(actor, "is_authenticated", False) else None
    locked.recorded_at = timezone.now()
    locked.save(update_fields=["published_on", "edition", "page", "recorded_by", "recorded_at"])
    audit_log(actor=actor, obj=locked, action="publication_recorded",
              reason=f"Publicada no Diário Oficial em {published_on:%d/%m/%Y}",
              data={"published_on": published_on.isoformat(), "edition": locked.edition, "page": locked.page})
    publication.refresh_from_db()
    return locked


def publication_pdf(pub: Publication) -> bytes:
    """The list as prepared, rendered once and kept byte for byte."""
    from licensing.grants.documents import UF_NAMES
    from portal.pdf import render_pdf

    pack = regulation.current()

    def render() -> bytes:
        ctx = {"pack": pack, "state_name": UF_NAMES.get(pack.uf, pack.uf), "title": "Publicação no Diário Oficial",
               "number": pub.number, "legal_basis": pub.legal_basis,
               "generated_at": timezone.localtime(pub.prepared_at, pack.tz), "obj": pub,
               "sections": [(title, [i for i in pub.items if i["section"] == key]) for key, title in SECTIONS.items()]}
        return render_pdf("licensing/applications/pdf/publication.html", ctx)

    return frozen_pdf(pub, kind="publication", render=render, number=pub.number,
                      reason=f"Publicação nº {pub.number}", location=f"{pack.name}/{pack.uf}").pdf
