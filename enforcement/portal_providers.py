"""What enforcement gives portal's public pages (verification of an auto, statistics),
registered in portal.registry by ``register()`` from EnforcementConfig.ready().

Moved from portal/public/selectors.py: portal imports no domain app.
"""

from __future__ import annotations

from datetime import date

from portal import registry
from portal.public.selectors import Verification, last_months
from portal.regulation import Pack


class InfractionVerification:
    """An auto de infração is authentic unless cancelled; the public sees no person's name."""

    def by_code(self, code: str):
        from enforcement.models import Infraction
        from portal.compiled_query import first_where

        # whether it is an auto's code, by a prepared statement (every code that is no document
        # asks here too: portal.public.selectors); the auto read only when it is one
        return first_where(Infraction, "verification_code", code)

    def by_number(self, number: str) -> list:
        return []

    def by_plate(self, plate: str) -> list:
        return []

    def verification(self, doc, pack: Pack) -> Verification | None:
        from enforcement.models import Infraction, InfractionStatus

        if not isinstance(doc, Infraction):
            return None
        return Verification(
            kind="infraction",
            document="Auto de Infração",
            number=doc.number,
            status=doc.status,
            valid=doc.status != "cancelled",
            valid_until=None,
            modality=doc.modality or "",
            modality_label=pack.modality_label(doc.modality) if doc.modality else "",
            plate=doc.display_plate,
            holder="",
            driver="",
            code=doc.verification_code,
            act_basis=(doc.catalogue[0].get("legal_basis", "") if doc.catalogue else ""),
            label=str(InfractionStatus(doc.status).label),
        )


def autos_by_article_and_month(pack: Pack, months: int = 12) -> tuple[list[date], dict[str, list[int]]]:
    """Autos de infração (not cancelled) by local month of the infraction and article of the law,
    from the summary the database keeps (enforcement.tallies): as many rows as codes × months."""
    from enforcement.models import InfractionTally

    month_list = last_months(pack, months)
    index = {m: i for i, m in enumerate(month_list)}
    rows = InfractionTally.objects.filter(month__gte=month_list[0], n__gt=0).values_list("infraction_code", "month", "n")
    series: dict[str, list[int]] = {}
    for code, month, n in rows:
        article = "art. " + code.split("-")[0]
        if month in index:
            series.setdefault(article, [0] * months)[index[month]] += n
    ordered = sorted(series, key=lambda a: (len(a), a))
    return month_list, {a: series[a] for a in ordered}


_INFRACTION_VERIFICATION = InfractionVerification()


def register() -> None:
    """Called from EnforcementConfig.ready()."""
    registry.register_verification(_INFRACTION_VERIFICATION)
    registry.provide(registry.STATS_AUTOS_BY_MONTH, autos_by_article_and_month)
    registry.provide(registry.OVERDUE_FINES, overdue_fines)
    registry.provide(registry.PUBLISHABLE_ACTS, publishable_acts)


def publishable_acts(pack: Pack, sections: list[str]) -> list[dict]:
    """The decisions of appeals, for the one publication desk where the pack requires them in the
    Diário Oficial (``publication.required_for`` "appeal_decisions"; PL 015/2025 art. 27, §1).
    Cassações go there as the act of cassation the grant receives (licensing), not from here.
    Names only, never a CPF (LGPD art. 6, III)."""
    from enforcement.models import Appeal
    from portal.public.selectors import public_name

    if "appeal_decisions" not in sections:
        return []
    out = []
    for appeal in (Appeal.objects.select_related("infraction", "infraction__holder")
                   .filter(decided_at__isnull=False).exclude(number="").order_by("decided_at", "id")):
        inf = appeal.infraction
        kind = "Recurso de ofício" if appeal.ex_officio else "Recurso"
        out.append({
            "ref": f"enforcement.appeal:{appeal.pk}", "section": "appeal_decisions", "on": appeal.decided_on or appeal.decided_at.date(),
            "document": "Decisão de recurso", "number": appeal.number, "holder": public_name(inf.holder),
            "modality": pack.modality_label(inf.modality) if inf.modality else "",
            "decision": f"{kind} no auto de infração nº {inf.number}: {'provido' if appeal.granted else 'não provido'}",
        })
    return out


def overdue_fines(on: date) -> list:
    """Fines unpaid past their due date without a DAM of the fees room (autos with no holder
    account: the debtor is the driver named on the auto; fines issued before their DAMs moved
    to the fees room)."""
    from django.urls import reverse

    from enforcement.models import Fine
    from licensing.fees.overdue import Debt

    fines = (Fine.objects.select_related("infraction", "infraction__holder", "infraction__authorization")
             .filter(paid=False, fee__isnull=True, due_date__lt=on, infraction__status="final")
             .order_by("due_date", "number"))
    out = []
    for fine in fines:
        inf = fine.infraction
        holder = inf.holder
        out.append(Debt(
            number=fine.number, kind="fine", kind_label="Multa", description=f"Multa — auto de infração nº {inf.number}",
            debtor=holder.display_name if holder else inf.driver_name,
            cpf=(getattr(holder, "cpf", "") if holder else inf.driver_cpf) or "",
            authorization=inf.authorization.number if inf.authorization_id else "",
            source=f"Auto de infração nº {inf.number}",
            legal_basis="; ".join(e.get("legal_basis", "") for e in inf.catalogue if e.get("legal_basis")),
            reference_year=fine.issued_at.year, due_date=fine.due_date, amount=fine.amount,
            url=reverse("enforcement:detail", args=[inf.pk]),
        ))
    return out
