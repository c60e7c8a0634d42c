"""The transparency list's pages by keyset (CountedIds' page index) are exactly the OFFSET
pages, at every page and page size, and follow a change of the data within the stamp."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from licensing.grants.services import authorization_set_status
from licensing.models import Authorization
from portal.public import selectors
from portal.public.http import forget_grants_fingerprint
from tests.factories import UserFactory, VehicleFactory, issue_authorization, listed_grants


@pytest.fixture
def many(alegre, monkeypatch):
    """One grant through the service (its audit entry) and 60 bulk rows, 1 in 6 not current."""
    monkeypatch.setattr(selectors.CountedIds, "STRIDE", 7)  # many strides with few rows
    selectors.CountedIds._indexes.clear()
    first, _ = issue_authorization()
    today = alegre.today()
    rows = []
    for i in range(60):
        holder = UserFactory(name=f"Titular {i}")
        rows.append(Authorization(
            number=f"{900 + i:06d}/{today.year}", act_name="Autorização", modality="taxi", holder=holder,
            vehicle=VehicleFactory(owner=holder), status="cancelled" if i % 6 == 0 else "active",
            issued_at=timezone.now() - timedelta(days=i), valid_from=today, valid_until=today + timedelta(days=900),
            verification_code=f"KEYS-{i:04d}-TEST", legal_basis="teste"))
    Authorization.objects.bulk_create(rows)
    forget_grants_fingerprint()
    return first


def _offset_pages(per_page: int) -> list[list[int]]:
    ids = list(selectors.current_grant_ids())
    return [ids[i:i + per_page] for i in range(0, len(ids), per_page)]


@pytest.mark.parametrize("per_page", [1, 5, 7, 10, 50])
def test_every_page_is_the_offset_page(many, per_page):
    expected = _offset_pages(per_page)
    listed = selectors.CountedIds()
    assert listed.count() == sum(map(len, expected)) == 51
    got = [list(listed[i * per_page:(i + 1) * per_page]) for i in range(len(expected))]
    assert got == expected
    assert list(listed[51:60]) == [] and list(listed[50:100]) == expected[-1][-1:]


def test_a_deep_page_costs_one_query_once_the_index_is_read(many):
    listed = selectors.CountedIds()
    listed.count()
    with CaptureQueriesContext(connection) as queries:
        again = selectors.CountedIds()
        assert again.count() == 51
        list(again[40:50])
    assert len(queries) == 1


def test_a_cancelled_grant_leaves_the_pages_and_a_search_uses_offset(many, admin_user):
    before = selectors.CountedIds().count()
    authorization_set_status(actor=admin_user, authorization=many, to="cancelled", reason="Cancelamento")
    listed = selectors.CountedIds()
    assert listed.count() == before - 1 and many.pk not in list(listed[0:51])
    assert [list(listed[i:i + 10]) for i in range(0, 50, 10)] == _offset_pages(10)
    found = selectors.CountedIds(q="Titular 1")
    assert found.count() == len(list(selectors.current_grant_ids("Titular 1")))
    assert list(found[0:3]) == list(selectors.current_grant_ids("Titular 1")[0:3])


def test_the_api_and_the_page_show_the_same_deep_page(many, client):
    api = client.get("/api/v1/authorizations/?page=3&page_size=10").json()
    assert api["count"] == 51
    numbers = [r["number"] for r in api["results"]]
    expected = list(Authorization.objects.filter(pk__in=_offset_pages(10)[2]).order_by("-id")
                    .values_list("number", flat=True))
    assert numbers == expected


def test_each_municipality_keeps_its_own_index(many, load_pack, monkeypatch):
    """More municipalities than the bound once cleared every index: now the least recent goes,
    and a municipality's index is replaced, not added to, when its data stamp moves."""
    from portal import tenancy
    from portal.models import Municipality

    monkeypatch.setattr(selectors.CountedIds, "MAX_INDEXES", 2)
    home = tenancy.current()
    load_pack("itagiba")
    load_pack("arapora")
    by_slug = {m.slug: m for m in Municipality.objects.all()}
    with tenancy.activate(home):
        assert selectors.CountedIds().count() == 51
    with tenancy.activate(by_slug["itagiba"]):
        assert selectors.CountedIds().count() == 0
    with tenancy.activate(home), CaptureQueriesContext(connection) as queries:
        assert selectors.CountedIds().count() == 51  # kept beside Itagibá's: no pass over the ids
    assert not [q for q in queries if "ORDER BY" in q["sql"]]
    with tenancy.activate(by_slug["arapora"]):
        assert selectors.CountedIds().count() == 0  # Itagibá's, the least recent, goes
    assert [slot[0] for slot in selectors.CountedIds._indexes] == [home.id, by_slug["arapora"].pk]
    with tenancy.activate(home):
        issue_authorization()
        forget_grants_fingerprint()
        assert selectors.CountedIds().count() == 52  # a new stamp replaces the entry
    assert len(selectors.CountedIds._indexes) == 2


def test_another_process_reads_the_index_from_the_shared_cache(many):
    """The pass over the ids is made once per data stamp for the installation: a process
    without the index (its dictionary empty) takes it from the cache, without reading the ids."""
    first = selectors.CountedIds()
    assert first.count() == 51
    expected = list(first[0:7])
    selectors.CountedIds._indexes.clear()  # another worker
    with CaptureQueriesContext(connection) as queries:
        other = selectors.CountedIds()
        assert other.count() == 51 and list(other[0:7]) == expected
    passes = [q for q in queries if "ORDER BY" in q["sql"] and "LIMIT" not in q["sql"]]
    assert passes == [] and len(queries) == 1  # the page's own slice


@pytest.fixture
def stride_of_a_page(alegre, monkeypatch):
    """Grants enough for three pages of OPEN_DATA_PAGE rows (the stride as in production)."""
    from portal import registry

    monkeypatch.setattr(registry, "OPEN_DATA_PAGE", 4)  # pages of four rows, strides of four ids
    monkeypatch.setattr(selectors.CountedIds, "STRIDE", 4)
    selectors.CountedIds._indexes.clear()
    import licensing.portal_providers as providers

    providers._open_data_page_lookup.cache_clear()
    listed_grants(alegre, 11, name="Titular {}", first_number=700, code="ROWS-{:04d}-TEST", cancelled=5,
                  modality=lambda i: "mototaxi" if i % 3 else "taxi", valid_days=900)
    forget_grants_fingerprint()
    yield
    providers._open_data_page_lookup.cache_clear()


@pytest.mark.parametrize("modality", ["", "mototaxi"])
def test_a_page_of_rows_by_keyset_is_the_rows_of_the_ids_page(stride_of_a_page, modality):
    ids = selectors.CountedIds(modality=modality)
    rows = selectors.CountedRows(modality=modality)
    total = ids.count()
    assert total == (10 if not modality else 6)
    for start in range(0, total, 4):
        with CaptureQueriesContext(connection) as queries:
            page = rows[start:min(start + 4, total)]
        assert page == selectors.open_data_rows(list(ids[start:min(start + 4, total)]))
        sent = [q["sql"] for q in queries if not q["sql"].startswith(("PREPARE", "SELECT set_config"))]
        assert len(sent) == 1  # the rows by keyset, once the index is read (PostgreSQL: prepared once)
    # a page between strides, or of another size: the ids, then their rows
    assert rows[1:3] == selectors.open_data_rows(list(ids[1:3]))
    assert rows[0:total] == selectors.open_data_rows(list(ids[0:total]))


@pytest.mark.parametrize("modality", ["", "mototaxi"])
def test_a_page_is_the_rows_between_its_bounds(stride_of_a_page, modality):
    """open_data_page reads (after_id, first_id]: the page's span of ids, never past it (a last
    page with fewer rows than a page walked on to the table's first row)."""
    import licensing.portal_providers as providers

    ids = list(selectors.CountedIds(modality=modality)[0:selectors.CountedIds(modality=modality).count()])
    first = ids[0]
    assert providers.open_data_page(first, modality, ids[-1] - 1) == selectors.open_data_rows(ids[:4])
    assert providers.open_data_page(first, modality, ids[2]) == selectors.open_data_rows(ids[:2])
    assert providers.open_data_page(ids[-1], modality, ids[-1] - 1) == selectors.open_data_rows(ids[-1:])
    assert providers.open_data_page(first, modality, first) == []


def test_the_rows_of_the_page_escape_what_they_show(alegre, client):
    from portal.templatetags.portal_tags import transparency_rows

    html = transparency_rows([{"number": "001/2026", "modality_label": "Táxi", "holder": "<b>Ana</b> & 'Cia'",
                               "plate_shown": "—", "valid_until_shown": "01/02/2027", "stand_shown": "—",
                               "status": "active", "status_label": "ativa"}])
    assert html == ("<tr><td>001/2026</td><td>Táxi</td><td>&lt;b&gt;Ana&lt;/b&gt; &amp; &#x27;Cia&#x27;</td><td>—</td>"
                    "<td>01/02/2027</td><td>—</td><td><span class=\"badge status-badge status-active\">ativa</span></td></tr>")
