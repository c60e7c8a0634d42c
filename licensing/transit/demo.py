"""Demo records of collective transport for ``manage.py seed_demo`` (idempotent) and the
home-page section. Registered from licensing/transit_urls.py (see the note there)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

DEMO_CNPJ = "11222333000181"  # valid check digits; a test number, not a real company


def seed_transit_demo(users: dict, stdout, *, sample_data: bool = False) -> None:
    from licensing.transit import selectors as sel
    from licensing.transit import services as svc
    from licensing.transit.models import Concessionaire
    from licensing.transit.rules import Segment
    from portal import regulation

    if not sel.transit_enabled() or Concessionaire.objects.filter(cnpj=DEMO_CNPJ).exists():
        return
    pack = regulation.current()
    today = pack.today()
    clerk = users.get("atendente")
    first = svc.concessionaire_create(
        actor=clerk, legal_name="Viação Demonstração Ltda", trade_name="Viação Demo", cnpj=DEMO_CNPJ,
        registry_number="32200012345", address="Rua da Estação, 100 — Centro", email="contato@viacao.example",
        representative_name="Roberto Representante", representative_cpf="39053344705", representative_role="Sócio-gerente",
    )
    second = svc.concessionaire_create(
        actor=clerk, legal_name="Transportes Segunda Colocada Ltda", cnpj="45723174000110", registry_number="32200054321",
        address="Avenida Principal, 200", representative_name="Sônia Sócia", representative_cpf="11144477735",
    )
    concession = svc.concession_create(
        actor=clerk, object="Serviço regular de transporte coletivo urbano e rural por ônibus",
        category="onibus", bidding_reference="Concorrência Pública nº 1/2026",
        bidding_closed_on=today - timedelta(days=20), classified=[first, second],
        justification_act="Ato de justificação publicado na imprensa oficial",
    )
    line = svc.busline_create(
        actor=clerk, concession=concession, code="L01", name="Rodoviária — Centro — Distrito",
        segments=[Segment("Rodoviária", "Praça Central", Decimal("2.4"), "urban"),
                  Segment("Praça Central", "Hospital", Decimal("1.8"), "urban"),
                  Segment("Hospital", "Distrito", Decimal("9.5"), "rural")],
        schedule={"weekday": ["05:40", "06:30", "07:20", "12:00", "17:30", "18:20"],
                  "saturday": ["06:30", "12:00"], "sunday": ["08:00"]},
    )
    svc.fare_set(actor=clerk, line=line, zone="urban", amount=Decimal("4.50"), decree="Decreto nº 100/2026",
                 announced_on=today - timedelta(days=20), effective_from=today - timedelta(days=13))
    svc.fare_set(actor=clerk, line=line, zone="rural", amount=Decimal("6.80"), decree="Decreto nº 100/2026",
                 announced_on=today - timedelta(days=20), effective_from=today - timedelta(days=13))
    # the lines and fares of the bidding are registered before the signature: the contract,
    # frozen when signed, carries them
    svc.concession_contract_sign(actor=clerk, concession=concession, signed_on=today - timedelta(days=12),
                                 contract_number="Contrato nº 10/2026")
    svc.concession_service_start(actor=clerk, concession=concession, started_on=today - timedelta(days=10))
    svc.concession_clauses_record(actor=clerk, concession=concession,
                                  checked=[c["code"] for c in svc.pack_list(pack, "clauses")])
    svc.bus_register(actor=clerk, concession=concession, plate="RTE4B56", category="onibus", seated=42, standing=10,
                     make="Mercedes-Benz", model="OF-1721", manufacture_year=2022)
    svc.complaint_file(line=line, text="O ônibus das 06:30 passou adiantado na Praça Central.",
                       occurred_on=today - timedelta(days=2))
    stdout.write("Transporte coletivo: concessão, linha L01, tarifas e veículo de demonstração criados.")


def home_section(request) -> dict | None:
    from licensing.transit import selectors as sel

    if not sel.transit_enabled():
        return None
    from decimal import Decimal

    from portal import regulation

    student = regulation.current().collective_param("fare.student_discount")
    pct = f"{(Decimal(str(student.value)) * 100).normalize():f}".replace(".", ",") if student else ""
    return {"title": "Transporte coletivo", "template": "licensing/transit/_home_section.html",
            "context": {"lines": sel.public_lines().count(), "student_pct": pct},
            "public_link": True, "public_link_label": "veja as linhas de ônibus"}
