"""Permission rows of the tariff pages and of the public pages (portal.public)."""

from tests.matrix import LOGIN, Row, everyone, only

PUBLISHERS = ("admin", "julgador")

ROWS = [
    Row("tariffs-calculator", everyone(200)),
    Row(
        "tariffs-calculator",
        everyone(200),
        query="?modality=taxi&km=10",
        notes="server-rendered quote",
    ),
    Row("tariffs-table-pdf", everyone(200), query="?modality=taxi"),
    Row("tariffs-admin", only(PUBLISHERS)),
    Row(
        "tariffs-admin",
        {"anonymous": LOGIN, "admin": 400, "julgador": 400, "*": 403},
        method="post",
        data=lambda w: {},
        notes="empty form: 400 with messages for the publishers",
    ),
    Row("api-fares-tariffs", everyone(200), api=True, query="?modality=taxi"),
    Row("api-fares-quote", everyone(200), api=True, query="?modality=taxi&km=10"),
    Row("api-quotas", everyone(200), api=True),
    Row(
        "api-verify",
        everyone(200),
        api=True,
        kwargs=lambda w: {"code": w["public_auth"].verification_code},
    ),
    Row("api-open-authorizations", everyone(200), api=True),
    Row("public-verify", everyone(200)),
    Row(
        "public-verify-code",
        everyone(200),
        kwargs=lambda w: {"code": w["public_auth"].verification_code},
    ),
    Row("public-verify-pdf", everyone(200)),
    # a POST without a file is refused as bad input (the bad-input fuzz walks it too)
    Row("public-verify-pdf", everyone(400), method="post", data=lambda w: {}),
    Row("public-transparency", everyone(200)),
    Row("public-quotas", everyone(200)),
    Row("public-stands", everyone(302)),
    Row("public-statistics", everyone(200)),
]


def build(world, personas):
    from tests.factories import issue_authorization

    auth, _alvaras = issue_authorization(holder=personas["requerente"])
    world["public_auth"] = auth
