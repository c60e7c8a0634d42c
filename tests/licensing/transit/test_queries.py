"""Lists use a constant number of queries (1 row and 30 rows)."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from licensing.transit import services as svc
from tests.licensing.transit.conftest import make_company, make_concession, make_line

pytestmark = pytest.mark.django_db


def _populate(pack, n: int, start: int = 0):
    today = pack.today()
    for k in range(start, start + n):
        c = make_concession(pack, companies=[make_company(f"Empresa {k} Ltda")], signed_days_ago=3, started_days_ago=1)
        line = make_line(c, code=f"L{k:03d}")
        svc.fare_set(actor=None, line=line, zone="urban", amount=Decimal("4.50"), decree=f"D {k}",
                     announced_on=today - timedelta(days=20), effective_from=today - timedelta(days=10))
        svc.complaint_file(line=line, text="Atraso no horário das seis.")


def _count(client, url) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


@pytest.mark.parametrize("name,persona,api_call", [
    ("transit-lines", "anonymous", False),
    ("transit-concessions", "atendente", False),
    ("transit-concessionaires", "atendente", False),
    ("transit-complaints", "julgador", False),
    ("api-transit-lines", "anonymous", True),
    ("api-transit-concessions", "atendente", True),
    ("api-transit-complaints", "atendente", True),
])
def test_list_queries_do_not_grow_with_rows(name, persona, api_call, alegre, personas, web, api,
                                            django_assert_num_queries):
    user = personas[persona]
    client = api(user) if api_call else web(user)
    url = reverse(name)
    _populate(alegre, 1)
    client.get(url)  # warm caches (pack, session, content types)
    one = _count(client, url)
    assert one <= 15, f"{name}: {one} consultas para uma página de lista"
    _populate(alegre, 29, start=1)
    client.get(url)  # same warm state as the first measurement (the pack cache lives a few seconds)
    with django_assert_num_queries(one):
        assert client.get(url).status_code == 200
