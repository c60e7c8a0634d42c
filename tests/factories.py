"""factory_boy factories shared by the test suites."""

from __future__ import annotations

import itertools

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from validate_docbr import CPF, RENAVAM

from fleet.models import Vehicle
from portal.roles import Role

_plates = itertools.count(1000)


def _plate(n: int) -> str:
    letters = "ABCDEFGHJKLMNPRSTUVWXYZ"
    a, b, c = letters[(n // 529) % 23], letters[(n // 23) % 23], letters[n % 23]
    return f"{a}{b}{c}{n % 10}{letters[n % 23]}{(n // 10) % 10}{(n // 100) % 10}"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    cpf = factory.LazyFunction(lambda: CPF().generate())
    username = factory.LazyAttribute(lambda o: o.cpf)
    name = factory.Faker("name", locale="pt_BR")
    email = factory.LazyAttribute(lambda o: f"{o.username}@example.org")
    password = factory.PostGenerationMethodCall("set_password", "senha-forte-123")

    @factory.post_generation
    def role(self, create, extracted, **kwargs):
        if create:
            give_role(self, extracted or Role.APPLICANT)


# Staff made by the fixtures of the running test: they hold their role in the test's
# municipality — the one loaded when they were made and any loaded later in the same test
# (tests/conftest.py grants it on every Municipality saved). A test of isolation makes the
# other municipality's staff with ``grant_role`` directly, so they hold nothing elsewhere.
FIXTURE_STAFF: list[tuple[object, str]] = []


def give_role(user, role: str) -> None:
    """The role as a fixture gives it: installation roles as groups (a transactional test may
    have flushed them), staff roles as assignments in the test's municipality."""
    from portal.roles import MUNICIPAL_ROLES

    if role not in MUNICIPAL_ROLES:
        user.groups.add(Group.objects.get_or_create(name=role)[0])
        return
    FIXTURE_STAFF.append((user, str(role)))
    from portal.models import Municipality

    for municipality in Municipality.objects.all():
        grant_fixture_role(user, role, municipality)


def grant_fixture_role(user, role: str, municipality) -> None:
    from portal.staff import grant_role

    grant_role(actor=None, user=user, municipality=municipality, role=role, reason="Perfil de teste")


class VehicleFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Vehicle

    plate = factory.LazyFunction(lambda: _plate(next(_plates)))
    renavam = factory.LazyFunction(lambda: RENAVAM().generate())
    make = "Chevrolet"
    model = "Spin"
    color = "branca"
    manufacture_year = 2024
    first_registration_date = factory.LazyFunction(lambda: __import__("datetime").date(2024, 3, 1))
    doors = 5
    seats = 7
    engine_cc = 1800
    registration_category = "aluguel"


def issue_authorization(holder=None, vehicle=None, modality="taxi", actor=None, **kwargs):
    """A granted authorization (and its alvarás) through the real service."""
    from licensing.grants.services import authorization_issue

    holder = holder or UserFactory()
    vehicle = vehicle or VehicleFactory(owner=holder)
    auth, alvaras = authorization_issue(actor=actor, holder=holder, vehicle=vehicle, modality=modality, **kwargs)
    valid_from = kwargs.get("valid_from")
    if valid_from is not None and valid_from < auth.issued_at.date():
        # a grant that starts in the past was issued then (the renewal rules read the issue day)
        backdate_issue(auth, valid_from)
    return auth, alvaras


def listed_grants(pack, count: int, *, name: str, first_number: int, code: str, cancelled: int,
                  modality=lambda i: "taxi", valid_days: int = 400) -> None:
    """``count`` grants written in one insert for the public lists (no acts, no alvarás):
    ``name`` and ``code`` formatted with each one's index, the ``cancelled``-th one cancelled,
    the ``i``-th issued i days ago."""
    from datetime import timedelta

    from django.utils import timezone

    from licensing.models import Authorization

    today = pack.today()
    rows = []
    for i in range(count):
        holder = UserFactory(name=name.format(i))
        rows.append(Authorization(
            number=f"{first_number + i:06d}/{today.year}", act_name="Autorização", modality=modality(i),
            holder=holder, vehicle=VehicleFactory(owner=holder), status="cancelled" if i == cancelled else "active",
            issued_at=timezone.now() - timedelta(days=i), valid_from=today, valid_until=today + timedelta(days=valid_days),
            verification_code=code.format(i), legal_basis="teste"))
    Authorization.objects.bulk_create(rows)


def backdate_issue(auth, day):
    """Move the act's issue to ``day`` (10:00 in the pack's zone), as if issued then."""
    from datetime import datetime, time

    from django.utils import timezone

    from licensing.grants.models import Authorization
    from portal import regulation

    at = timezone.make_aware(datetime.combine(day, time(10)), regulation.current().tz)
    Authorization.objects.filter(pk=auth.pk).update(issued_at=at)
    auth.issued_at = at


def record_modality_decree(modality: str = "mototaxi", *, act_date=None, effective_from=None,
                  number: str = "Decreto nº 4.321/2026", link: str = ""):
    """Record the decree that opens ``modality`` (as the administrator), dated today by default."""
    from portal import regulation
    from portal.modality_decrees import modality_decree_record
    from portal.models import User
    from portal.roles import Role
    from tests.conftest import make_user

    admin = User.objects.filter(username="decree-admin").first() or make_user("decree-admin", Role.ADMIN)
    pack = regulation.current()
    row = modality_decree_record(actor=admin, modality=modality, number=number,
                                 act_date=act_date or pack.today(), effective_from=effective_from, link=link)
    regulation.invalidate()
    return row
