"""PDFs of grants (the act and the alvará) and the pieces every licensing PDF shares."""

from __future__ import annotations

from django.db.models import Subquery
from django.utils import timezone

from licensing.grants.models import Alvara, Amendment, Authorization, HolderType
from portal import regulation
from portal.issued import frozen_pdf
from portal.pdf import qr_png_data_uri, render_pdf, verification_url
from portal.signing import DEMO_MARK, signing_identity
from portal.validators import format_cpf, mask_cpf

UF_NAMES = {  # "Estado d…" with the article each state takes
    "AC": "do Acre", "AL": "de Alagoas", "AP": "do Amapá", "AM": "do Amazonas", "BA": "da Bahia",
    "CE": "do Ceará", "DF": "do Distrito Federal", "ES": "do Espírito Santo", "GO": "de Goiás",
    "MA": "do Maranhão", "MT": "de Mato Grosso", "MS": "de Mato Grosso do Sul", "MG": "de Minas Gerais",
    "PA": "do Pará", "PB": "da Paraíba", "PR": "do Paraná", "PE": "de Pernambuco", "PI": "do Piauí",
    "RJ": "do Rio de Janeiro", "RN": "do Rio Grande do Norte", "RS": "do Rio Grande do Sul",
    "RO": "de Rondônia", "RR": "de Roraima", "SC": "de Santa Catarina", "SP": "de São Paulo",
    "SE": "de Sergipe", "TO": "do Tocantins",
}


def _base(pack, *, title: str, number: str = "", legal_basis: str = "", code: str = "") -> dict:
    ctx = {"pack": pack, "state_name": UF_NAMES.get(pack.uf, pack.uf), "title": title, "number": number,
           "legal_basis": legal_basis, "generated_at": timezone.localtime(timezone.now(), pack.tz)}
    if code:
        url = verification_url(code)
        ctx.update({"verification_code": code, "verify_url": url, "qr": qr_png_data_uri(url, module_px=4)})
    return ctx


MONTHS = ("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro",
          "novembro", "dezembro")


def _long_date(day) -> str:
    return f"{day.day} de {MONTHS[day.month - 1]} de {day.year}"


def _article(act_name: str) -> str:
    """'a' or 'o' for the act's first word (a Portaria, a Autorização, o Termo)."""
    first = (act_name.split() or [""])[0].lower()
    return "a" if first.endswith(("a", "ão")) else "o"


def holder_title(act_name: str) -> str:
    return "Permissionário" if "permiss" in act_name.lower() else "Autorizatário"


def _signature_note() -> str:
    """The visible line that says how the PDF is signed (the signature itself is PAdES)."""
    identity = signing_identity()
    if identity is None:
        return "Documento emitido sem assinatura digital: confira-o pelo código de verificação."
    note = f"Documento assinado digitalmente (PAdES) por {identity.subject}."
    return f"{note} {DEMO_MARK}." if identity.demo else note


def _location(pack) -> str:
    return f"{pack.name}/{pack.uf}"


def authorization_pdf(authorization: Authorization) -> bytes:
    """The grant act as issued: rendered and signed once, then the same bytes forever."""
    pack = regulation.current()
    return frozen_pdf(
        authorization, kind="authorization", render=lambda: _render_authorization(authorization),
        number=authorization.number, verification_code=authorization.verification_code,
        reason=f"{authorization.act_name} nº {authorization.number}", location=_location(pack),
    ).pdf


def alvara_pdf(alvara: Alvara) -> bytes:
    """The alvará as issued: rendered and signed once, then the same bytes forever."""
    pack = regulation.current()
    return frozen_pdf(
        alvara, kind="alvara", render=lambda: _render_alvara(alvara), number=alvara.number,
        verification_code=alvara.verification_code, reason=f"{alvara.doc_name} nº {alvara.number}",
        location=_location(pack),
    ).pdf


def amendment_pdf(amendment: Amendment) -> bytes:
    """The act of amendment as issued: rendered and signed once, then the same bytes forever."""
    pack = regulation.current()
    return frozen_pdf(
        amendment, kind="amendment", render=lambda: _render_amendment(amendment), number=amendment.number,
        verification_code=amendment.verification_code,
        reason=f"{amendment.act_name} nº {amendment.number} à {amendment.authorization.act_name} "
               f"nº {amendment.authorization.number}", location=_location(pack),
    ).pdf


def freeze_grant_documents(authorization: Authorization) -> None:
    """Store the act and every alvará of the grant that is not stored yet, as they stand now."""
    authorization_pdf(authorization)
    for alvara in authorization.alvaras.select_related("authorization", "person", "vehicle"):
        alvara_pdf(alvara)


def _render_authorization(authorization: Authorization) -> bytes:
    pack = regulation.current()
    auxiliaries = [a for a in authorization.alvaras.select_related("person").filter(is_auxiliary=True)]
    if not auxiliaries:
        # the auxiliaries named in the grant's latest application (applications.first()), in one
        # query with that application as a subquery instead of reading the application first;
        # through the grant's own reverse relation (licensing.grants imports no other room), a
        # left join that gives one row of None for an application without auxiliaries
        latest = authorization.applications.values("pk")[:1]
        names = (authorization.applications.filter(pk=Subquery(latest)).order_by("auxiliaries__position")
                 .values_list("auxiliaries__name", flat=True))
        auxiliaries = [{"person": {"display_name": name}} for name in names if name is not None]
    ctx = _base(pack, title=authorization.act_name, number=authorization.number,
                legal_basis=authorization.legal_basis, code=authorization.verification_code)
    ctx.update({"obj": authorization, "holder_cpf": format_cpf(authorization.holder.cpf or ""),
                # a company holder (e.g. Lei 724/2008, art. 2): the act names it and its responsible driver (art. 4 §2 IX)
                "company": authorization.holder_type == HolderType.PJ,
                "modality_label": pack.modality_label(authorization.modality),
                "grant_verb": f"{_article(authorization.act_name)} presente {authorization.act_name}",
                "holder_title": holder_title(authorization.act_name),
                "auxiliaries": auxiliaries, "issued_date": _long_date(timezone.localtime(authorization.issued_at, pack.tz))})
    ctx["signature_note"] = _signature_note()
    return render_pdf("licensing/grants/pdf/authorization.html", ctx)


def _render_alvara(alvara: Alvara) -> bytes:
    pack = regulation.current()
    ctx = _base(pack, title=alvara.doc_name, number=alvara.number, legal_basis=alvara.legal_basis,
                code=alvara.verification_code)
    # The alvará hangs inside the vehicle for every passenger to read: a masked CPF at most
    # (LGPD art. 6, III — only the data needed to identify the driver).
    ctx.update({"obj": alvara, "person_cpf": mask_cpf(alvara.person.cpf or ""),
                "holder_title": holder_title(alvara.authorization.act_name),
                "modality_label": pack.modality_label(alvara.authorization.modality),
                "issued_date": _long_date(timezone.localtime(alvara.issued_at, pack.tz))})
    ctx["signature_note"] = _signature_note()
    return render_pdf("licensing/grants/pdf/alvara.html", ctx)


def _render_amendment(amendment: Amendment) -> bytes:
    pack = regulation.current()
    amended = amendment.authorization
    ctx = _base(pack, title=amendment.act_name, number=amendment.number, legal_basis=amendment.legal_basis,
                code=amendment.verification_code)
    ctx.update({"obj": amendment, "amended": amended, "amended_article": _article(amended.act_name),
                "amended_date": _long_date(timezone.localtime(amended.issued_at, pack.tz)),
                "modality_label": pack.modality_label(amended.modality),
                "issued_date": _long_date(timezone.localtime(amendment.issued_at, pack.tz))})
    ctx["signature_note"] = _signature_note()
    return render_pdf("licensing/grants/pdf/amendment.html", ctx)
