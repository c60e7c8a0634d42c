"""What licensing answers to the public verification of a code, a number or a plate (the QR
code of an act, an alvará or an act of amendment), registered in portal.registry by
licensing.portal_providers.register(): the document found, and what the public may see of it.
"""

from __future__ import annotations

import functools
import json

from django.db.models import Case, Value, When

from licensing.models import CURRENT_STATUSES, Alvara, Amendment, Authorization
from portal.compiled_query import CompiledLookup, first_where
from portal.public.selectors import Verification, effective_status, public_name, public_name_of
from portal.regulation import Pack


def grant_holder_public_name(auth: Authorization) -> str:
    """The holder as the public sees it: a company's razão social (its CNPJ is public record),
    else the person's public name (a CPF never is)."""
    return auth.company_name or public_name(auth.holder)


def _authorizations():
    return Authorization.objects.select_related("holder", "vehicle")


def _alvaras():
    return Alvara.objects.select_related(
        "authorization", "authorization__holder", "authorization__vehicle", "person", "vehicle", "superseded_by"
    )


def _vehicle_of(vehicle) -> dict | None:
    if vehicle is None:
        return None
    return {"make": vehicle.make, "model": vehicle.model, "color": vehicle.color}


def _drivers_of(auth: Authorization) -> list[str]:
    """The holder and the active auxiliary drivers of the grant: who may drive the vehicle
    (names only — LGPD art. 6, III)."""
    from licensing.requests.models import AuxiliaryDriver, AuxiliaryStatus

    names = [public_name(auth.holder)]
    auxiliaries = AuxiliaryDriver.objects.filter(authorization=auth, status=AuxiliaryStatus.ACTIVE).select_related(
        "person").order_by("id")
    names += [public_name(a.person) for a in auxiliaries]
    return list(dict.fromkeys(n for n in names if n))


def _sha256_of(doc, kind: str) -> str | None:
    stored = _stored(doc, kind)
    return stored.sha256 if stored is not None else None


def _signer_of(doc, kind: str) -> str:
    stored = _stored(doc, kind)
    return _signer_shown(stored.signed, stored.signer) if stored is not None else ""


def _signer_shown(signed: bool, signer: str) -> str:
    """The signer the public sees: only of a PDF that was signed."""
    return signer if signed else ""


def _stored(doc, kind: str):
    """The stored PDF of ``doc``, read once per verification (hash and signer come from it)."""
    from portal.issued import stored_document_meta

    memo = doc.__dict__.setdefault("_stored_documents", {})
    if kind not in memo:
        memo[kind] = stored_document_meta(doc, kind)
    return memo[kind]


def _successor(alvara: Alvara) -> dict | None:
    """The alvará in force that superseded this one (following the chain to its end)."""
    try:
        nxt = alvara.superseded_by  # joined in the lookup: no query for the common case
    except Alvara.DoesNotExist:
        return None
    current, seen = nxt, {nxt.pk}
    while True:
        nxt = Alvara.objects.filter(supersedes=current).first()
        if nxt is None or nxt.pk in seen:
            break
        seen.add(nxt.pk)
        current = nxt
    return {"document": current.doc_name, "number": current.number, "code": current.verification_code}


def _amendments():
    return Amendment.objects.select_related("authorization", "authorization__holder", "authorization__vehicle")


def _ref(doc) -> dict:
    name = getattr(doc, "act_name", "") or getattr(doc, "doc_name", "")
    return {"document": name, "number": doc.number, "code": doc.verification_code}


def _certified_vehicle(auth: Authorization, amendments: list[Amendment]):
    """The vehicle the act named when issued: the one the first substitution replaced, else its own."""
    for amendment in amendments:
        for change in amendment.changes:
            if change.get("field") == "vehicle" and change.get("before_vehicle"):
                return change["before_vehicle"]
    v = auth.vehicle if auth.vehicle_id else None
    return {"plate": v.display_plate, "make": v.make, "model": v.model, "color": v.color} if v else None


def _what(amendment: Amendment) -> str:
    parts = [f"{c['label']}: {c.get('before') or '—'} → {c.get('after') or '—'}" for c in amendment.changes]
    return f"{amendment.get_kind_display()} ({'; '.join(parts)})" if parts else amendment.get_kind_display()


@functools.cache
def _verification_lookup():
    """licensing.grants.selectors.verification_rows, compiled once in this process (the
    municipality is a parameter): building and compiling that queryset cost several times
    running it, on the path every distinct QR code takes."""
    from licensing.grants.selectors import verification_rows
    from licensing.requests.selectors import has_active_auxiliaries

    return CompiledLookup(lambda code: verification_rows(code, has_auxiliaries=has_active_auxiliaries()))


def _document_by_code(code: str, kinds) -> Authorization | Alvara | Amendment | None:
    """The document of the first of ``kinds`` (model, its queryset with the relations a
    verification reads) whose verification code is ``code``.

    Each kind is asked for the id by one prepared statement (portal.compiled_query.first_where),
    and only a document found is read with its relations. Asking each kind's queryset straight
    away compiled it, with its joins, on every request: a code that is no document (mistyped,
    made up, or one of an enumeration, which the page cache never holds) took ~8 ms of CPU in
    the worker, 17 times a grant act that exists."""
    for model, documents in kinds:
        found = first_where(model, "verification_code", code, documents)
        if found is not None:
            return found
    return None


@functools.cache
def _alvara_verification_lookup():
    """licensing.grants.selectors.alvara_verification_rows, compiled once in this process: the
    QR code of an alvará (the one inside the vehicle) answered in one query, as a grant act's."""
    from licensing.grants.selectors import alvara_verification_rows
    from licensing.requests.selectors import has_active_auxiliaries

    return CompiledLookup(lambda code: alvara_verification_rows(
        code, has_auxiliaries=has_active_auxiliaries("authorization_id")))


class GrantVerification:
    """Authorizations, their acts of amendment and alvarás, found by code, by number or
    (authorizations) by plate."""

    def by_code(self, code: str):
        return _document_by_code(code, ((Authorization, _authorizations), (Alvara, _alvaras),
                                        (Amendment, _amendments)))

    def verification_by_code(self, code: str, pack: Pack) -> Verification | None:
        """by_code() + verification() in one query for a grant act with no act of amendment,
        and in one more for an alvará that no other superseded (the two QR codes the public
        scans); an act with amendments, a superseded alvará or an amendment take the full path."""
        rows = _verification_lookup().rows(code)
        row = rows[0] if rows else None
        if row is not None and not row["has_amendments"]:
            return _authorization_verification_of_row(row, pack)
        if row is not None:  # a grant act with acts of amendment
            doc = next(iter(_authorizations().filter(verification_code=code)[:1]), None)
        else:  # not a grant act (the row query said so): an alvará, in one query, or an amendment
            rows = _alvara_verification_lookup().rows(code)
            if rows and not rows[0]["has_successor"]:
                return _alvara_verification_of_row(rows[0], pack)
            doc = (next(iter(_alvaras().filter(pk=rows[0]["id"])[:1]), None) if rows  # superseded: the chain
                   else _document_by_code(code, ((Amendment, _amendments),)))
        return self.verification(doc, pack) if doc is not None else None

    def by_number(self, number: str) -> list:
        return (list(_authorizations().filter(number=number)) + list(_alvaras().filter(number=number))
                + list(_amendments().filter(number=number)))

    def by_plate(self, plate: str) -> list:
        # Several people may have declared the plate (one vehicle row each): the grant in force
        # on it comes first, whoever issued last; without one, the latest grant.
        in_force = Case(When(status__in=CURRENT_STATUSES, then=Value(0)), default=Value(1))
        return list(_authorizations().filter(vehicle__plate=plate).order_by(in_force, "-issued_at", "-id")[:1])

    def verification(self, doc, pack: Pack) -> Verification | None:
        today = pack.today()
        if isinstance(doc, Amendment):
            return _amendment_verification(doc, pack)
        if isinstance(doc, Authorization):
            status = effective_status(doc.status, doc.valid_until, today)
            amendments = list(doc.amendments.order_by("issued_at", "id"))
            certified = _certified_vehicle(doc, amendments)
            return Verification(
                kind="authorization",
                document=doc.act_name,
                number=doc.number,
                status=status,
                valid=status == "active",
                valid_until=doc.valid_until,
                modality=doc.modality,
                modality_label=pack.modality_label(doc.modality),
                # what the act certified when issued; later changes are its acts of amendment
                plate=certified["plate"] if certified else "",
                holder=grant_holder_public_name(doc),
                driver="",
                code=doc.verification_code,
                suspended_until=doc.suspended_until if status == "suspended" else None,
                act_basis=doc.legal_basis,
                vehicle={k: certified[k] for k in ("make", "model", "color")} if certified else None,
                drivers=_drivers_of(doc),
                sha256=_sha256_of(doc, "authorization"),
                signer=_signer_of(doc, "authorization"),
                amended_by=[{**_ref(a), "what": _what(a)} for a in amendments],
            )
        if not isinstance(doc, Alvara):
            return None
        auth = doc.authorization
        status = effective_status(doc.status, doc.valid_until, today)
        vehicle = doc.vehicle or auth.vehicle
        # An alvará is valid only while it and its grant are in force.
        auth_status = effective_status(auth.status, auth.valid_until, today)
        return Verification(
            kind="alvara",
            document=doc.doc_name,
            number=doc.number,
            status=status,
            valid=status == "active" and auth_status == "active",
            valid_until=doc.valid_until,
            modality=auth.modality,
            modality_label=pack.modality_label(auth.modality),
            plate=vehicle.display_plate if vehicle else "",
            holder=grant_holder_public_name(auth),
            driver=public_name(doc.person),
            code=doc.verification_code,
            act_basis=doc.legal_basis,
            # what this alvará certified (its own vehicle, if it names one), and who drives now
            vehicle=_vehicle_of(vehicle),
            drivers=_drivers_of(auth),
            superseded_by=_successor(doc),
            sha256=_sha256_of(doc, "alvara"),
            signer=_signer_of(doc, "alvara"),
        )


def _drivers_of_row(holder: str, has_auxiliaries: bool, grant_id: int) -> list[str]:
    """What _drivers_of gives, from a verification row: the holder's public name (already
    formatted) and, only when the row says the grant has any, its active auxiliary drivers'
    (one more query)."""
    names = [holder]
    if has_auxiliaries:
        from licensing.requests.selectors import active_auxiliary_names

        names += [public_name_of(*n) for n in active_auxiliary_names(grant_id)]
    return list(dict.fromkeys(n for n in names if n))


def _stored_pdf_of_row(row: dict) -> dict:
    """What _sha256_of and _signer_of give, from a verification row's ``stored_pdf`` (the stored PDF's
    hash, signed flag and signer; None while the PDF is not stored)."""
    if row["stored_pdf"] is None:
        return {"sha256": None, "signer": ""}
    pdf = json.loads(row["stored_pdf"])
    return {"sha256": pdf["sha256"], "signer": _signer_shown(pdf["signed"], pdf["signer"])}


def _authorization_verification_of_row(row: dict, pack: Pack) -> Verification:
    """The Verification that verification() builds for an Authorization without amendments,
    from verification_rows() (same fields, same values)."""
    from fleet.models import display_plate

    status = effective_status(row["status"], row["valid_until"], pack.today())
    person = public_name_of(row["holder__name"], row["holder__first_name"], row["holder__last_name"])
    holder = row["company_name"] or person  # a company holder: its razão social; the person drives
    has_vehicle = row["vehicle_id"] is not None
    return Verification(
        kind="authorization", document=row["act_name"], number=row["number"], status=status,
        valid=status == "active", valid_until=row["valid_until"], modality=row["modality"],
        modality_label=pack.modality_label(row["modality"]),
        plate=display_plate(row["vehicle__plate"]) if has_vehicle else "", holder=holder, driver="",
        code=row["verification_code"], suspended_until=row["suspended_until"] if status == "suspended" else None,
        act_basis=row["legal_basis"],
        vehicle={k: row[f"vehicle__{k}"] for k in ("make", "model", "color")} if has_vehicle else None,
        drivers=_drivers_of_row(person, row["has_auxiliaries"], row["id"]), **_stored_pdf_of_row(row),
        amended_by=[],
    )


def _alvara_verification_of_row(row: dict, pack: Pack) -> Verification:
    """The Verification that verification() builds for an Alvara that no other superseded, from
    alvara_verification_rows() (same fields, same values)."""
    from fleet.models import display_plate

    today = pack.today()
    status = effective_status(row["status"], row["valid_until"], today)
    # An alvará is valid only while it and its grant are in force.
    auth_status = effective_status(row["authorization__status"], row["authorization__valid_until"], today)
    # what this alvará certified: its own vehicle if it names one, else its grant's
    prefix = "vehicle__" if row["vehicle_id"] is not None else (
        "authorization__vehicle__" if row["authorization__vehicle_id"] is not None else None)
    person = public_name_of(row["authorization__holder__name"], row["authorization__holder__first_name"],
                            row["authorization__holder__last_name"])
    modality = row["authorization__modality"]
    return Verification(
        kind="alvara", document=row["doc_name"], number=row["number"], status=status,
        valid=status == "active" and auth_status == "active", valid_until=row["valid_until"], modality=modality,
        modality_label=pack.modality_label(modality),
        plate=display_plate(row[f"{prefix}plate"]) if prefix else "",
        holder=row["authorization__company_name"] or person,
        driver=public_name_of(row["person__name"], row["person__first_name"], row["person__last_name"])
        if row["person_id"] is not None else "",
        code=row["verification_code"], act_basis=row["legal_basis"],
        vehicle={k: row[f"{prefix}{k}"] for k in ("make", "model", "color")} if prefix else None,
        drivers=_drivers_of_row(person, row["has_auxiliaries"], row["authorization_id"]), superseded_by=None,
        **_stored_pdf_of_row(row),
    )


def _amendment_verification(doc: Amendment, pack: Pack) -> Verification:
    """An act of amendment is authentic once issued; it shows what it changed and the act it amends."""
    auth = doc.authorization
    issued_on = doc.issued_at.astimezone(pack.tz).date()
    return Verification(
        kind="amendment", document=doc.act_name, number=doc.number, status="issued", valid=True,
        label=f"emitido em {issued_on:%d/%m/%Y}", valid_until=None, modality=auth.modality,
        modality_label=pack.modality_label(auth.modality), plate=auth.vehicle.display_plate if auth.vehicle_id else "",
        holder=grant_holder_public_name(auth), driver="", code=doc.verification_code, act_basis=doc.legal_basis,
        sha256=_sha256_of(doc, "amendment"), signer=_signer_of(doc, "amendment"), amends=_ref(auth),
        changes=[{"label": c.get("label", ""), "before": c.get("before", ""), "after": c.get("after", "")}
                 for c in doc.changes], issued_on=issued_on,
    )
