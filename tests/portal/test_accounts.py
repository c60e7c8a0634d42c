import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from portal.models import AuditEntry
from tests.conftest import CPF_CAROL

SIGNUP = {
    "cpf": "390.533.447-05", "name": "Carol Motorista", "email": "carol@example.org",
    "password": "taxi-seguro-2026", "birth_date": "1990-05-01", "phone": "27999990000",
}


@pytest.mark.django_db
def test_api_signup_creates_applicant_with_audit(api, alegre):
    response = api().post("/api/v1/accounts/", SIGNUP, format="json")
    assert response.status_code == 201, response.json()
    user = get_user_model().objects.get(cpf=CPF_CAROL)
    assert user.groups.filter(name="requerente").exists()
    assert AuditEntry.objects.filter(action="account_created", object_id=str(user.pk)).exists()


@pytest.mark.django_db
def test_api_signup_rejects_cpf_with_wrong_check_digits(api, alegre):
    response = api().post("/api/v1/accounts/", {**SIGNUP, "cpf": "390.533.447-06"}, format="json")
    assert response.status_code == 400
    assert "cpf" in response.json()["errors"]
    assert not get_user_model().objects.filter(email="carol@example.org").exists()


@pytest.mark.django_db
def test_api_signup_rejects_duplicate_cpf(api, alegre, applicant):
    response = api().post("/api/v1/accounts/", {**SIGNUP, "cpf": applicant.cpf}, format="json")
    assert response.status_code == 400 and "cpf" in response.json()["errors"]


@pytest.mark.django_db
def test_html_signup_keeps_values_after_error(client, alegre):
    data = {"name": "Carol", "cpf": "11111111111", "birth_date": "01/05/1990", "email": "c@example.org",
            "password": "taxi-seguro-2026", "password2": "taxi-seguro-2026"}
    response = client.post(reverse("signup"), data)
    assert response.status_code == 400
    body = response.content.decode()
    assert "CPF inválido" in body and 'value="c@example.org"' in body
    assert "error-summary" in body


@pytest.mark.django_db
def test_html_signup_reports_a_wrong_cpf_together_with_the_missing_fields(client, alegre):
    response = client.post(reverse("signup"), {"cpf": "123.456.789-00", "email": "abc"})
    body = response.content.decode()
    assert response.status_code == 400
    for text in ("CPF inválido", "Informe o nome completo.", "Informe um e-mail válido",
                 "Informe a data de nascimento", "Repita a senha para confirmar."):
        assert text in body, text
    assert "Este campo é obrigatório" not in body


@pytest.mark.django_db
def test_html_signup_and_login_with_cpf(client, alegre):
    data = {"name": "Carol", "cpf": "390.533.447-05", "birth_date": "01/05/1990", "email": "c@example.org",
            "password": "taxi-seguro-2026", "password2": "taxi-seguro-2026"}
    assert client.post(reverse("signup"), data).status_code == 302
    fresh = Client()
    response = fresh.post(reverse("login"), {"username": "390.533.447-05", "password": "taxi-seguro-2026"})
    assert response.status_code == 302 and response["Location"] == reverse("dashboard")
    # a new applicant's panel says where to start
    body = fresh.get(reverse("dashboard")).content.decode()
    assert "Próximo passo: fazer o seu pedido" in body and reverse("licensing-application-new") in body


@pytest.mark.django_db
def test_token_login_and_wrong_password(api, alegre, clerk):
    ok = api().post("/api/v1/auth/token/", {"username": "atendente1", "password": "senha-forte-123"}, format="json")
    assert ok.status_code == 200 and ok.json()["token"]
    bad = api().post("/api/v1/auth/token/", {"username": "atendente1", "password": "errada"}, format="json")
    assert bad.status_code in (400, 401)
    me = api().get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token {ok.json()['token']}")
    assert me.status_code == 200 and me.json()["roles"] == ["atendente"]


@pytest.mark.django_db
def test_login_lockout_refuses_correct_password(alegre, clerk, settings):
    settings.AXES_FAILURE_LIMIT = 3
    client = Client()
    for _ in range(3):
        client.post(reverse("login"), {"username": "atendente1", "password": "errada"})
    response = client.post(reverse("login"), {"username": "atendente1", "password": "senha-forte-123"})
    assert response.status_code in (403, 429)
    assert "bloqueado" in response.content.decode()
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_api_token_lockout(api, alegre, clerk, settings):
    settings.AXES_FAILURE_LIMIT = 3
    for _ in range(3):
        api().post("/api/v1/auth/token/", {"username": "atendente1", "password": "errada"}, format="json")
    locked = api().post("/api/v1/auth/token/", {"username": "atendente1", "password": "senha-forte-123"}, format="json")
    assert locked.status_code == 429
    assert "token" not in locked.json()


@pytest.mark.django_db
def test_anonymous_staff_page_redirects_to_login(client, alegre):
    response = client.get(reverse("dashboard"))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


@pytest.mark.django_db
def test_admin_site_only_for_admin_role(web, personas, alegre):
    assert web(personas["admin"]).get("/admin/").status_code == 200
    for persona in ("requerente", "atendente", "agente", "julgador"):
        assert web(personas[persona]).get("/admin/").status_code == 302


@pytest.mark.django_db
def test_session_idle_timeout_logs_out(web, applicant, alegre, settings):
    settings.SESSION_IDLE_TIMEOUT = 60
    c = web(applicant)
    assert c.get(reverse("dashboard")).status_code == 200
    session = c.session
    session["last_activity"] = session["last_activity"] - 120
    session.save()
    assert c.get(reverse("dashboard")).status_code == 302


@pytest.mark.django_db
@pytest.mark.parametrize("login", ["52998224725", "529.982.247-25", "52998224725@example.org"])
def test_token_login_by_cpf_formatted_or_email(api, alegre, applicant, login):
    response = api().post("/api/v1/auth/token/", {"username": login, "password": "senha-forte-123"}, format="json")
    assert response.status_code == 200, response.content


@pytest.mark.django_db
def test_seed_demo_alone_changes_no_rule_outcome(alegre, settings):
    """Without --sample-data: users per role, no open call, no grant counted in the quota."""
    import io

    from django.core.management import call_command

    from licensing.models import Authorization, Call

    call_command("seed_demo", stdout=io.StringIO())
    call_command("seed_demo", stdout=io.StringIO())  # idempotent
    User = get_user_model()
    for username in ("requerente", "atendente", "agente", "julgador", "admin"):
        assert User.objects.get(username=username).check_password(settings.DEMO_PASSWORD)
    assert not Call.objects.exists() and not Authorization.objects.exists()
    call_command("seed_demo", "--sample-data", stdout=io.StringIO())
    assert Call.objects.exists() and Authorization.objects.count() == 1
    assert not Authorization.objects.filter(holder__username="requerente").exists()


@pytest.mark.django_db
@pytest.mark.parametrize("raw", [b"not json", b"\xff\xfe{", b'{"cpf": '])
def test_malformed_body_gets_a_portuguese_400(client, alegre, raw):
    response = client.generic("POST", "/api/v1/accounts/", raw, content_type="application/json")
    assert response.status_code == 400
    assert "JSON válido" in response.json()["errors"]["non_field_errors"][0]


@pytest.mark.django_db
def test_token_throttle_counts_failures_not_successful_logins(api, alegre, clerk, settings, monkeypatch):
    from rest_framework.throttling import ScopedRateThrottle

    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"login": "3/min"})
    settings.AXES_FAILURE_LIMIT = 100  # the per-address limit alone
    url, good = "/api/v1/auth/token/", {"username": "atendente1", "password": "senha-forte-123"}
    assert all(api().post(url, good, format="json").status_code == 200 for _ in range(6))
    failures = [api().post(url, {"username": f"ninguem{i}", "password": "x"}, format="json").status_code
                for i in range(4)]
    assert failures == [401, 401, 401, 429]  # other usernames each time: still the same address
    throttled = api().post(url, good, format="json")
    assert throttled.status_code == 429 and throttled.json()["errors"]


@pytest.mark.django_db
@pytest.mark.parametrize("cpf", ["52998224725a", "CPF 529.982.247-25", "529,982,247-25x"])
def test_api_signup_refuses_a_cpf_with_letters(api, alegre, cpf):
    response = api().post("/api/v1/accounts/", {**SIGNUP, "cpf": cpf}, format="json")
    assert response.status_code == 400 and response.json()["errors"]["cpf"]


@pytest.mark.django_db
@pytest.mark.parametrize("cpf", ["529.982.247-25", "52998224725", " 529 982 247 25 "])
def test_api_signup_after_seed_demo_with_the_usual_example_cpf(api, alegre, cpf):
    import io

    from django.core.management import call_command

    call_command("seed_demo", stdout=io.StringIO())
    response = api().post("/api/v1/accounts/", {**SIGNUP, "cpf": cpf}, format="json")
    assert response.status_code == 201, response.content
    again = api().post("/api/v1/accounts/", {**SIGNUP, "cpf": "52998224725", "email": "x@example.org"},
                       format="json")
    assert again.status_code == 400 and again.json()["errors"]["cpf"]


@pytest.mark.django_db
def test_seed_demo_when_its_cpf_is_taken_and_the_groups_were_flushed(api, alegre, settings):
    import io

    from django.contrib.auth.models import Group
    from django.core.management import call_command

    from portal.management.commands.seed_demo import DEMO_USERS

    demo_cpf = next(cpf for username, _, _, cpf, _ in DEMO_USERS if username == "requerente")
    Group.objects.all().delete()  # what a transactional test leaves behind
    response = api().post("/api/v1/accounts/", {**SIGNUP, "cpf": demo_cpf}, format="json")
    assert response.status_code == 201, response.content
    call_command("seed_demo", stdout=io.StringIO())
    call_command("seed_demo", stdout=io.StringIO())
    User = get_user_model()
    demo = User.objects.get(username="requerente")
    assert demo.cpf is None and demo.check_password(settings.DEMO_PASSWORD)
    assert demo.groups.filter(name="requerente").exists()
    assert User.objects.get(cpf=demo_cpf).groups.filter(name="requerente").exists()


@pytest.mark.django_db
def test_an_auxiliary_registered_by_a_holder_claims_the_account_through_the_counter_link(
    api, web, itagiba, clerk, mailoutbox
):
    """The portal creates an account (no password) for an auxiliary named in an application. A
    sign-up that only knows the CPF cannot take it (#16: anyone knowing the CPF could); at the
    counter the clerk records the person's e-mail and the person completes the account through
    the link sent there; a barred one stays barred."""
    import re
    from datetime import date

    from licensing.grants.services import grant_bar_create

    User = get_user_model()
    person = User(username=CPF_CAROL, cpf=CPF_CAROL, name="Carol Auxiliar")
    person.set_unusable_password()
    person.save()
    grant_bar_create(actor=None, person=person, until=date(2031, 11, 30), reason="Cassação", legal_basis="art. 19, §4")
    refused = api().post("/api/v1/accounts/", SIGNUP, format="json")
    assert refused.status_code == 400 and "cpf" in refused.json()["errors"]
    person.refresh_from_db()
    assert not person.has_usable_password() and person.email == ""
    counter = web(clerk).post(reverse("account-claim-counter"), {
        "cpf": "390.533.447-05", "email": SIGNUP["email"], "document_checked": "on"})
    assert counter.status_code == 302
    assert AuditEntry.objects.filter(action="account_claim_link_sent", object_id=str(person.pk)).exists()
    link = re.search(r"(/conta/recuperar/[^/\s]+/[^/\s]+/)", mailoutbox[-1].body).group(1)
    c = Client()
    form = c.get(link)
    assert form.status_code == 302
    done = c.post(form["Location"], {"new_password1": SIGNUP["password"], "new_password2": SIGNUP["password"]})
    assert done.status_code == 302
    person.refresh_from_db()
    assert person.check_password(SIGNUP["password"]) and person.email == SIGNUP["email"]
    assert person.groups.filter(name="requerente").exists()
    assert User.objects.filter(cpf=CPF_CAROL).count() == 1
    assert AuditEntry.objects.filter(action="account_claimed", object_id=str(person.pk)).exists()
    token = api().post("/api/v1/auth/token/", {"username": CPF_CAROL, "password": SIGNUP["password"]}, format="json")
    assert token.status_code == 200
    from tests.licensing.applications.helpers import open_call, payload

    open_call("taxi")
    person = User.objects.get(pk=person.pk)
    person.birth_date = date(1990, 5, 1)  # completed on the profile page (licensing)
    person.save(update_fields=["birth_date"])
    r = api(person).post("/api/v1/applications/", payload("taxi"), format="json")
    assert r.status_code == 400 and r.json()["rule"]["code"] == "cassation.bar"
    # once used, the account cannot be taken again by a sign-up nor at the counter
    again = api().post("/api/v1/accounts/", {**SIGNUP, "email": "outra@example.org"}, format="json")
    assert again.status_code == 400 and "cpf" in again.json()["errors"]
    assert web(clerk).post(reverse("account-claim-counter"), {
        "cpf": CPF_CAROL, "email": "outra@example.org", "document_checked": "on"}).status_code == 400


@pytest.mark.django_db
def test_an_unclaimed_account_with_an_email_on_record_gets_the_link_on_sign_up_or_reset(api, alegre, mailoutbox):
    User = get_user_model()
    person = User(username=CPF_CAROL, cpf=CPF_CAROL, name="Carol Auxiliar", email="carol@example.org")
    person.set_unusable_password()
    person.save()
    assert api().post("/api/v1/accounts/", {**SIGNUP, "email": "atacante@example.org"}, format="json").status_code == 400
    assert len(mailoutbox) == 1 and mailoutbox[0].to == ["carol@example.org"]
    assert "/conta/recuperar/" in mailoutbox[0].body
    Client().post(reverse("password_reset"), {"email": "carol@example.org"})
    assert len(mailoutbox) == 2


@pytest.mark.django_db
@pytest.mark.parametrize("slug", ["alegre", "itagiba", "arapora"])
def test_signup_refuses_a_driver_under_18_or_born_in_the_future(api, client, load_pack, slug):
    """An 11-year-old's account does not pass, whatever the pack's own age rule (CTB, art. 140, I)."""
    from datetime import timedelta

    from django.utils import timezone

    from licensing.grants.rules import add_years

    load_pack(slug)
    today = timezone.localdate()
    for born in (add_years(today, -11), add_years(today, -18) + timedelta(days=1), today + timedelta(days=1)):
        r = api().post("/api/v1/accounts/", {**SIGNUP, "birth_date": born.isoformat()}, format="json")
        assert r.status_code == 400 and "birth_date" in r.json()["errors"], born
    page = client.post(reverse("signup"), {"name": "Carol", "cpf": SIGNUP["cpf"], "email": SIGNUP["email"],
                                           "birth_date": add_years(today, -11).strftime("%d/%m/%Y"),
                                           "password": SIGNUP["password"], "password2": SIGNUP["password"]})
    assert "menos de 18 anos" in page.content.decode()
    assert not get_user_model().objects.filter(cpf=CPF_CAROL).exists()
    ok = api().post("/api/v1/accounts/", {**SIGNUP, "birth_date": add_years(today, -18).isoformat()}, format="json")
    assert ok.status_code == 201, ok.json()
