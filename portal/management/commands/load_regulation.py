from django.core.management.base import BaseCommand, CommandError

from portal import regulation
from portal.numbers import thousands


class Command(BaseCommand):
    help = ("Carrega (ou atualiza) o pacote de regulamentação de um município e o põe em funcionamento. "
            "Idempotente; os outros municípios da instalação não são tocados.")

    def add_arguments(self, parser):
        parser.add_argument("pack", help=f"um de: {', '.join(regulation.available_packs())}")
        parser.add_argument("--population", type=int, help="população a usar (substitui a do pacote)")

    def handle(self, *args, pack: str, population: int | None = None, **options):
        if population is not None and population <= 0:
            raise CommandError("--population deve ser um número inteiro positivo.")
        try:
            result = regulation.load_pack(pack, population=population)
        except regulation.PackError as exc:
            raise CommandError(str(exc)) from exc
        active = regulation.pack_of(result.municipality_id)
        if result.created:
            state = "criado"
        elif result.changed_params or result.population_changed:
            state = "atualizado"
        elif result.activated:
            state = "sem mudanças nos valores"
        else:
            state = "sem mudanças"
        if result.activated and not result.created:
            state += "; entrou em funcionamento"
        self.stdout.write(
            self.style.SUCCESS(
                f"Pacote {pack} ({active.display_name}) {state}; em funcionamento; população {thousands(active.population)}; "
                f"{result.changed_params} parâmetro(s) alterado(s)."
            )
        )
