"""Permission matrix of fees (the world is built after the requests' one)."""

from tests.licensing.requests.matrix import DESK_HTML, DESK_POST, HOLDER_OWN, _api, _auth, _fee
from tests.matrix import Row

ROWS = [
    Row("lifecycle-fee-dam", HOLDER_OWN, kwargs=_fee),
    Row("lifecycle-fee-detail", HOLDER_OWN, kwargs=_fee),
    Row("lifecycle-fees", DESK_HTML),
    Row("lifecycle-fees", DESK_HTML, query="?status=issued&kind=fine&q=Alice"),
    Row("lifecycle-tff-issue", DESK_POST, method="post", data=lambda w: {"authorization": w["lc_auth"].number}),
    Row("lifecycle-fee-bank-return", DESK_POST, method="post", data=lambda w: {}),
    Row("lifecycle-fee-imports", DESK_HTML),
    Row("lifecycle-fee-import", DESK_HTML, kwargs=lambda w: {"pk": w["lc_import"].pk}),
    Row("lifecycle-fee-overdue", DESK_HTML),
    Row("lifecycle-fee-overdue-csv", DESK_HTML),
    Row("lifecycle-fee-pay", DESK_POST, method="post", kwargs=_fee,
        data=lambda w: {"paid_on": w["pack"].today().isoformat(), "reference": "AUT"}),
    Row("api-lifecycle-tff", _api(400), method="post", api=True, kwargs=_auth, data=lambda w: {},
        notes="the Alegre law has no TFF: refused with the rule"),
    Row("api-lifecycle-fees", _api(200, requerente=200, outsider=200), api=True),
    Row("api-lifecycle-fee", _api(200, requerente=200, outsider=404), api=True, kwargs=_fee),
    Row("api-lifecycle-fee-bank-return", _api(400), method="post", api=True, data=lambda w: {},
        notes="no file sent: 400 naming the field"),
    Row("api-lifecycle-fee-import", _api(200), api=True, kwargs=lambda w: {"pk": w["lc_import"].pk}),
    Row("api-lifecycle-fee-pay", _api(200), method="post", api=True, kwargs=_fee, data=lambda w: {}),
    Row("api-lifecycle-fee-dam", _api(200, requerente=200, outsider=404), api=True, kwargs=_fee),
]


def build(world, personas):
    from licensing.fees.reconciliation import payments_import
    from licensing.fees.services import fee_issue

    world["lc_fee"] = fee_issue(actor=personas["atendente"], kind="fine", holder=personas["requerente"],
                                authorization=world["lc_auth"], description="Multa de teste",
                                legal_basis="Lei 3.703/2022 (Alegre/ES), art. 19", amount="150.00")
    statement = f"txid;valor;data\nDAM9992099;10,00;{world['pack'].today().isoformat()}\n".encode()
    world["lc_import"] = payments_import(actor=personas["atendente"], content=statement, file_name="pix.csv")[0]
