"""Demo autos for `manage.py seed_demo` (idempotent through their idempotency keys)."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from portal import regulation


def seed_demo(users: dict, stdout, *, sample_data: bool = False) -> None:
    from enforcement.models import Infraction
    from enforcement.services import infraction_issue, infraction_notify
    from licensing.models import Authorization

    pack = regulation.current(required=False)
    agent = users.get("agente")
    if pack is None or agent is None or not pack.infractions():
        return
    clerk = users.get("atendente")
    holder = users.get("requerente")
    first = pack.infractions()[0]["code"]
    when = timezone.now() - timedelta(days=3)
    inf, created = infraction_issue(
        actor=agent, plate="DEM0A01", infraction_code=first, occurred_at=when,
        location="Praça da Matriz (demonstração)", description="Transporte de passageiros sem autorização (demonstração).",
        idempotency_key=f"demo-auto-1-{pack.slug}",  # the key is unique across the installation
    )
    auth = (
        Authorization.objects.filter(status__in=["active", "suspended"], vehicle__isnull=False)
        .select_related("holder", "vehicle").order_by("pk").first()
        if sample_data else None
    )
    if auth is not None:
        holder = auth.holder
        code = next((i["code"] for i in pack.infractions(auth.modality)), first)
        inf2, created2 = infraction_issue(
            actor=agent, plate=auth.vehicle.plate, infraction_code=code, occurred_at=when,
            location="Rodoviária (demonstração)", description="Infração de demonstração.",
            driver_cpf=holder.cpf or "", idempotency_key=f"demo-auto-2-{pack.slug}",
        )
        if clerk is not None and inf2.status == "issued":
            infraction_notify(actor=clerk, infraction=inf2, acknowledged_on=pack.today())
    stdout.write(f"Autos de demonstração: {Infraction.objects.filter(idempotency_key__startswith='demo-').count()}.")
