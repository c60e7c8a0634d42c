"""Helpers of the collective-transport tests: companies, concessions and lines through services."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from validate_docbr import CNPJ, CPF

from licensing.transit import services as svc
from licensing.transit.rules import Segment


def make_company(name: str = "Viação Teste Ltda"):
    return svc.concessionaire_create(actor=None, legal_name=name, cnpj=CNPJ().generate(), registry_number="3220000",
                                     address="Rua Teste, 1", representative_name="Rep Legal",
                                     representative_cpf=CPF().generate())


def make_concession(pack, *, closed_days_ago: int = 5, category: str = "onibus", companies=None, signed_days_ago=None,
                    started_days_ago=None):
    today = pack.today()
    companies = companies or [make_company("Primeira Ltda"), make_company("Segunda Ltda")]
    c = svc.concession_create(actor=None, object="Linhas do município", category=category,
                              bidding_reference="CP 1/2026", bidding_closed_on=today - timedelta(days=closed_days_ago),
                              classified=companies)
    if signed_days_ago is not None:
        svc.concession_contract_sign(actor=None, concession=c, signed_on=today - timedelta(days=signed_days_ago),
                                     contract_number="CT-1")
    if started_days_ago is not None:
        svc.concession_service_start(actor=None, concession=c, started_on=today - timedelta(days=started_days_ago))
    c.refresh_from_db()
    return c


def hundred_km():
    return [Segment("A", "B", Decimal("40"), "urban"), Segment("B", "C", Decimal("60"), "urban")]


def make_line(concession, code="L01", segments=None):
    return svc.busline_create(actor=None, concession=concession, code=code, name=f"Linha {code}",
                              segments=segments or hundred_km(), schedule={"weekday": ["06:00"]})


@pytest.fixture
def running(alegre):
    """A concession in service (signed 3 days ago, started yesterday) with a 100 km urban line."""
    c = make_concession(alegre, closed_days_ago=5, signed_days_ago=3, started_days_ago=1)
    return c, make_line(c)
