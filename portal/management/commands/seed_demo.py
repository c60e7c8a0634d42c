import os

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand
from django.db import transaction

from portal import regulation
from portal.hooks import demo_seeds
from portal.management.municipality_option import add_municipality_argument, municipality_scope
from portal.roles import MUNICIPAL_ROLES, Role
from portal.staff import grant_role

# Demo people: valid CPFs generated for testing (not real people). Not the CPFs that everyone
# uses as examples (529.982.247-25, 111.444.777-35, …): a person signing up with one of those
# on a demo installation must not find it taken.
DEMO_USERS = [
    ("requerente", Role.APPLICANT, "Maria da Silva Demonstração", "24681357928", ""),
    ("atendente", Role.CLERK, "Ana Atendente Demonstração", None, ""),
    ("agente", Role.AGENT, "Carlos Agente Demonstração", None, "AG-0042"),
    ("julgador", Role.JUDGE, "Júlia Julgadora Demonstração", None, ""),
    # the appeal is decided by another authority than the first instance (two instances, two people)
    ("julgador2", Role.JUDGE, "Paulo Autoridade Recursal Demonstração", None, ""),
    ("admin", Role.ADMIN, "Administrador Demonstração", None, ""),
    # the appeal authority the municipality designates (e.g. the Prefeito): not a julgador, decides
    # the appeals only; created only where the regulation designates one (appeal.designated_authority)
    ("autoridade", Role.APPEAL_AUTHORITY, "Prefeito Autoridade Recursal Demonstração", None, ""),
    # the consortium's administrator: aggregate figures of every municipality, no personal data
    ("consorcio", Role.CONSORTIUM, "Consórcio Intermunicipal Demonstração", None, ""),
]


class Command(BaseCommand):
    help = "Cria usuários de demonstração (um por perfil) e alguns registros. Idempotente."

    def add_arguments(self, parser):
        parser.add_argument(
            "--sample-data", action="store_true",
            help="também cria editais abertos, requerimentos em andamento, uma outorga e autos de exemplo",
        )
        add_municipality_argument(parser)

    def handle(self, *args, sample_data: bool = False, **options):
        with municipality_scope(options) as municipality, transaction.atomic():
            self._seed(municipality, sample_data)

    def _seed(self, municipality, sample_data: bool) -> None:
        password = os.environ.get("DEMO_PASSWORD") or settings.DEMO_PASSWORD
        User = get_user_model()
        users = {}
        designates = _designates_appeal_authority()
        for username, role, name, cpf, registration in DEMO_USERS:
            if role == Role.APPEAL_AUTHORITY and not designates:
                continue  # no designation here: any julgador decides the appeals
            if cpf and User.objects.filter(cpf=cpf).exclude(username=username).exists():
                cpf = None  # someone else holds it: the demo user goes without a CPF
            user, created = User.objects.get_or_create(
                username=username,
                defaults={"name": name, "email": f"{username}@demo.prefeitura.example", "cpf": cpf,
                          "registration_number": registration},
            )
            if created or not user.check_password(password):
                user.set_password(password)
            user.is_staff = role == Role.ADMIN
            user.save()
            if role in MUNICIPAL_ROLES:  # staff work for the municipality in scope (issue 17)
                grant_role(actor=None, user=user, municipality=municipality, role=role,
                           reason="Usuário de demonstração")
            else:  # installation-wide roles; a flushed test database has no groups
                user.groups.add(Group.objects.get_or_create(name=role)[0])
            users[username] = user
        for seed in demo_seeds():
            seed(users, self.stdout, sample_data=sample_data)
        self.stdout.write(self.style.SUCCESS(
            "Usuários de demonstração prontos: " + ", ".join(users) + " (senha: DEMO_PASSWORD)."
        ))


def _designates_appeal_authority() -> bool:
    """Does the municipality in scope designate the authority that decides its appeals (first or
    further instance, any modality)?"""
    pack = regulation.current(required=False)
    if pack is None:
        return False
    keys = ("appeal.designated_authority", "appeal.second_instance_designated_authority")
    return any(pack.value(key, modality) for key in keys for modality in [*pack.modalities, None])
