"""Fixtures of the page cache's direct lane (verification, transparency list, open data)."""


import pytest

from portal import page_cache
from portal.public.http import forget_grants_fingerprint
from tests.factories import UserFactory, issue_authorization, listed_grants


@pytest.fixture
def cached(settings):
    """The public page cache on, with none of this process's copies, learned headers or layouts
    (an earlier test's could sit under the same key: SQLite gives a rolled-back id again, and the
    data stamp with it); the shared cache is emptied for every test (tests/conftest.py)."""
    from portal.public import views

    settings.PUBLIC_PAGE_CACHE = True
    views._layouts.clear()
    page_cache.clear_local()
    forget_grants_fingerprint()
    yield
    page_cache.clear_local()


@pytest.fixture
def listed(alegre):
    """Three pages of the list: 110 current grants (and a cancelled one, not listed)."""
    issue_authorization(holder=UserFactory(name="Primeira Titular"))
    listed_grants(alegre, 110, name="Titular <{}> & Cia", first_number=500, code="TRAN-{:04d}-LIST", cancelled=7,
                  modality=lambda i: "taxi" if i % 3 else "mototaxi")
    forget_grants_fingerprint()
