"""Whether a modality exists: the law provides for it and, where it leaves the service to a
decree, that decree is recorded and in force. Pure: the pack's data and the recorded decrees in,
a refusal out."""

from __future__ import annotations

from datetime import date

from portal.exceptions import RuleViolation


def modality_closed(*, modality: str, label: str, municipality: str, known: bool, decree_basis: str | None,
                    in_force: bool, upcoming: tuple[str, date] | None = None) -> RuleViolation | None:
    """Why ``modality`` offers no call, application or tariff, or None when it is open.

    ``decree_basis`` is the article that makes the service wait for a decree (pack:
    ``modalities.<m>.requires_decree``; e.g. Lei 3.703/2022, art. 29, parágrafo
    único: "Poderá o Chefe do Poder Executivo autorizar a exploração do Serviço de Moto Táxi
    […] mediante regulamentação através de Decreto específico"). Reading: the law only
    *allows* the Executive to open the service; until the decree exists the service does not,
    so nothing of it is offered. A decree is in force from its ``effective_from`` day (in the
    municipality's time zone), inclusive. A refusal for a missing decree is a conflict with the
    state of things (API 409); a modality the law does not name is invalid input (400)."""
    if not known:
        return RuleViolation("modality.unknown", f"A legislação de {municipality} não prevê a modalidade {modality}.",
                             field="modality")
    if decree_basis is None or in_force:
        return None
    if upcoming is not None:
        number, starts = upcoming
        message = (f"O serviço de {label.lower()} ainda não está em vigor: o {number}, que o regulamenta, "
                   f"vigora a partir de {starts:%d/%m/%Y}.")
    else:
        message = (f"O serviço de {label.lower()} ainda não existe em {municipality}: depende do decreto que o "
                   f"regulamenta ({decree_basis}), ainda não registrado pela Prefeitura.")
    return RuleViolation("modality.decree_pending", message, decree_basis, field="modality", conflict=True)
