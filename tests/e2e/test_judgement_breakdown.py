"""The julgador on a phone: the judgement screen breaks the penalty down (article, unit, base value),
names and links the earlier auto that doubles the fine, and flags an example value."""

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.conftest import CPF_ALICE, make_user
from tests.e2e.conftest import CHROMIUM_ARGS
from tests.e2e.helpers import PHONE, login, no_sideways_scroll, shot

pytestmark = [pytest.mark.e2e]


@pytest.mark.django_db(transaction=True)
def test_julgador_reads_the_penalty_breakdown_on_a_phone(live_server, chromium_path, load_pack):
    """The autos are issued and judged before the browser starts: signing their PDFs runs its own
    event loop, which Playwright's would refuse."""
    if not chromium_path:
        pytest.skip("Chromium não encontrado (defina CHROMIUM_PATH)")
    from playwright.sync_api import sync_playwright

    from enforcement import services
    from portal import regulation
    from portal.roles import Role
    from tests.factories import VehicleFactory, issue_authorization

    load_pack("alegre")
    pack = regulation.current()
    holder = make_user(CPF_ALICE, Role.APPLICANT, cpf=CPF_ALICE, name="Alice Requerente")
    grant, _ = issue_authorization(holder=holder, vehicle=VehicleFactory(owner=holder), modality="taxi",
                                   valid_from=pack.today() - timedelta(days=200))
    agent, clerk = make_user("agente-j", Role.AGENT), make_user("servidor-j", Role.CLERK)
    judge = make_user("julgador-j", Role.JUDGE)
    day = timezone.now() - timedelta(days=20)
    first, _ = services.infraction_issue(actor=agent, plate=grant.vehicle.plate, infraction_code="19-I",
                                         occurred_at=day, location="x", description="y")
    services.infraction_notify(actor=clerk, infraction=first, acknowledged_on=pack.today() - timedelta(days=19))
    services.infraction_judge(actor=judge, infraction=first, upheld=True, grounds="g")
    second, _ = services.infraction_issue(actor=agent, plate=grant.vehicle.plate, infraction_code="19-II",
                                          occurred_at=day + timedelta(days=10), location="x", description="y")
    services.infraction_notify(actor=clerk, infraction=second, acknowledged_on=pack.today())

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        tab = browser.new_context(locale="pt-BR", viewport=PHONE, is_mobile=True, has_touch=True).new_page()
        site = live_server.url
        path = f"/fiscalizacao/autos/{second.pk}/julgar/"
        login(tab, site, "julgador-j", next_path=path)
        table = tab.locator("#penalty-breakdown")
        assert "art. 19, II" in table.inner_text() and "valor de exemplo" in table.inner_text()
        recidivism = tab.locator("#penalty-recidivism")
        assert "multa × 2" in recidivism.inner_text()
        recidivism.get_by_role("link", name=f"auto nº {first.number}").wait_for()
        assert no_sideways_scroll(tab) <= 0
        shot(tab, "julgador-penalty-breakdown-phone")
        browser.close()
