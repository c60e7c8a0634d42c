from tests.matrix import LOGIN, Row, everyone, only, signed_in

ROWS = [
    Row("home", everyone(200)),
    Row("dashboard", signed_in()),
    Row("login", {"anonymous": 200, "*": 302}),
    Row("logout", {"*": 302}, method="post"),
    Row("api-tokens", signed_in()),
    Row("account-claim-counter", only(("atendente", "admin"))),
    Row("second-factor-setup", signed_in(), notes="STAFF_2FA_REQUIRED is off in the tests: anyone may enrol"),
    Row("second-factor-verify", {"anonymous": LOGIN, "*": 302}, notes="no confirmed device: to the enrolment"),
    Row("api-token-revoke", {"anonymous": LOGIN, "requerente": 302, "*": 404}, method="post",
        kwargs=lambda w: {"pk": w["alice_token"].pk}, notes="only the token's owner may revoke it"),
    Row("signup", {"anonymous": 200, "*": 302}),
    Row("password_change", signed_in()),
    Row("password_change_done", signed_in()),
    Row("password_reset", everyone(200)),
    Row("password_reset_done", everyone(200)),
    Row("password_reset_confirm", everyone(200), kwargs=lambda w: {"uidb64": "MQ", "token": "x-y"}),
    Row("password_reset_complete", everyone(200)),
    Row("notifications", signed_in()),
    Row("notification-read", {"anonymous": LOGIN, "requerente": 302, "*": 404}, method="post", kwargs=lambda w: {"pk": w["alice_note"].pk},
        notes="only the recipient may mark it"),
    Row("legislation", everyone(200)),
    Row("law", everyone(200), kwargs=lambda w: {"key": w["pack"].laws[0]["key"]}),
    Row("accessibility", everyone(200)),
    Row("privacy", everyone(200)),
    Row("healthz", everyone(200)),
    Row("robots", everyone(200)),
    Row("favicon", everyone(302)),
    Row("api-token", everyone(400), method="post", api=True, data=lambda w: {}),
    Row("api-signup", everyone(400), method="post", api=True, data=lambda w: {"cpf": "123"}),
    Row("api-me", {"anonymous": 401, "*": 200}, api=True),
    Row("api-modality-decrees", {"anonymous": 401, "admin": 200, "*": 403}, api=True),
    Row("api-modality-decrees", {"anonymous": 401, "admin": 201, "*": 403}, method="post", api=True,
        data=lambda w: {"modality": "mototaxi", "number": "Decreto nº 77/2026", "date": w["today"]},
        notes="the matrix runs on Alegre, whose mototáxi waits for a decree (Lei 3.703/2022, art. 29, p. ú.)"),
    Row("api-notifications", {"anonymous": 401, "*": 200}, api=True),
    Row("api-notification-read", {"anonymous": 401, "requerente": 200, "*": 404}, method="post", api=True,
        kwargs=lambda w: {"pk": w["alice_note"].pk}, notes="only the recipient may mark it"),
    Row("api-schema", everyone(200), api=True),
    Row("api-docs", everyone(200), api=True),
]


def build(world, personas):
    from portal.models import Notification

    world["alice_note"] = Notification.objects.create(
        recipient=personas["requerente"], subject="Teste", body="Mensagem", email_status="skipped"
    )
    from portal.tokens import issue_token

    world["alice_token"] = issue_token(personas["requerente"])[0]
    # the requerente herself may mark it read: checked in tests/portal/test_notifications.py
    world["note_owner"] = personas["requerente"]
