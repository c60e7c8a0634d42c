"""PDFs of grants (the act and the alvará) and the pieces every licensing PDF shares."""

from __future__ import annotations

from django.utils import timezone

from licensing.grants.models import Alvara, Authorization
from portal import regulation
from portal.pdf import qr_svg_data_uri, render_pdf, verification_url
from portal.validators import format_cpf

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
        ctx.update({"verification_code": code, "verify_url": url, "qr": qr_svg_data_uri(url)})
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


def authorization_pdf(authorization: Authorization) -> bytes:
    pack = regulation.current()
    auxiliaries = [a for a in authorization.alvaras.select_related("person").filter(is_auxiliary=True)]
    if not auxiliaries:
        app = authorization.applications.first()
        auxiliaries = [{"person": {"display_name": a.name}} for a in app.auxiliaries.all()] if app else []
    ctx = _base(pack, title=authorization.act_name, number=authorization.number,
                legal_basis=authorization.legal_basis, code=authorization.verification_code)
    ctx.update({"obj": authorization, "holder_cpf": format_cpf(authorization.holder.cpf or ""),
                "modality_label": pack.modality_label(authorization.modality),
                "grant_verb": f"{_article(authorization.act_name)} presente {authorization.act_name}",
                "holder_title": holder_title(authorization.act_name),
                "auxiliaries": auxiliaries, "issued_date": _long_date(timezone.localtime(authorization.issued_at, pack.tz))})
    return render_pdf("licensing/grants/pdf/authorization.html", ctx)


def alvara_pdf(alvara: Alvara) -> bytes:
    pack = regulation.current()
    ctx = _base(pack, title=alvara.doc_name, number=alvara.number, legal_basis=alvara.legal_basis,
                code=alvara.verification_code)
    ctx.update({"obj": alvara, "person_cpf": format_cpf(alvara.person.cpf or ""),
                "holder_title": holder_title(alvara.authorization.act_name),
                "modality_label": pack.modality_label(alvara.authorization.modality),
                "issued_date": _long_date(timezone.localtime(alvara.issued_at, pack.tz))})
    return render_pdf("licensing/grants/pdf/alvara.html", ctx)
