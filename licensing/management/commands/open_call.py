"""manage.py open_call {taxi|mototaxi} --start YYYY-MM-DD --end YYYY-MM-DD [--slots N] [--min-bid 1500.00]"""

from __future__ import annotations

from datetime import date
from decimal import Decimal, InvalidOperation

from django.core.management.base import BaseCommand, CommandError

from licensing.applications.calls import call_open
from portal.management.municipality_option import add_municipality_argument, municipality_scope
from portal.refusals import SERVICE_ERRORS, refusal_message


def _date(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise CommandError(f"Data inválida {value!r}: use AAAA-MM-DD.") from exc


class Command(BaseCommand):
    help = "Abre um edital para novas outorgas de uma modalidade (idempotente para o mesmo período)."

    def add_arguments(self, parser):
        parser.add_argument("modality", choices=["taxi", "mototaxi"])
        parser.add_argument("--start", required=True)
        parser.add_argument("--end", required=True)
        parser.add_argument("--slots", type=int, default=None)
        parser.add_argument("--min-bid", dest="min_bid", default=None)
        add_municipality_argument(parser)

    def handle(self, *args, **options):
        min_bid = None
        if options["min_bid"] is not None:
            try:
                min_bid = Decimal(options["min_bid"])
            except InvalidOperation as exc:
                raise CommandError("Oferta mínima inválida: use 1500.00.") from exc
        with municipality_scope(options):
            try:
                call, created = call_open(actor=None, modality=options["modality"], start=_date(options["start"]),
                                          end=_date(options["end"]), slots=options["slots"], min_bid=min_bid)
            except SERVICE_ERRORS as exc:
                raise CommandError(refusal_message(exc)) from exc
            verb = "Edital aberto" if created else "Edital já existia"
            slots = f"{call.slots} vaga(s)" if call.slots is not None else "vagas livres da cota"
            self.stdout.write(self.style.SUCCESS(f"{verb}: {call} (id {call.pk}; {slots})."))
