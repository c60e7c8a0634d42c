"""Permission matrix of taxi stands (the world is built after the requests' one)."""

from tests.licensing.requests.matrix import DESK_HTML, DESK_POST, _api, _stand, _swap
from tests.matrix import Row, everyone

ROWS = [
    Row("lifecycle-stands-public", everyone(200)),
    Row("lifecycle-stands-manage", DESK_HTML),
    Row("lifecycle-stands-manage", DESK_POST, method="post",
        data=lambda w: {"name": "Ponto Novo", "location": "Praça", "capacity": "2"}),
    Row("lifecycle-stand-swap", DESK_POST, method="post", data=_swap),
    Row("lifecycle-stand-detail", DESK_HTML, kwargs=_stand),
    Row("lifecycle-stand-capacity", DESK_POST, method="post", kwargs=_stand, data=lambda w: {"capacity": "3"}),
    Row("lifecycle-stand-assign", DESK_POST, method="post", kwargs=_stand,
        data=lambda w: {"authorization": w["lc_free_auth"].number}),
    Row("lifecycle-assignment-end", DESK_POST, method="post", kwargs=lambda w: {"pk": w["lc_assignment"].pk},
        data=lambda w: {"reason": "Encerrada no teste"}),
    Row("api-lifecycle-stands", everyone(200), api=True),
    Row("api-lifecycle-stands", _api(201), method="post", api=True,
        data=lambda w: {"name": "Ponto Novo", "location": "Praça", "capacity": 2}),
    Row("api-lifecycle-stand-swap", _api(200), method="post", api=True,
        data=lambda w: {**_swap(w), "consent_a": True, "consent_b": True}),
    Row("api-lifecycle-stand-capacity", _api(200), method="post", api=True, kwargs=_stand, data=lambda w: {"capacity": 3}),
    Row("api-lifecycle-stand-assign", _api(201), method="post", api=True, kwargs=_stand,
        data=lambda w: {"authorization": w["lc_free_auth"].pk}),
]


def build(world, personas):
    from licensing.stands.services import stand_assign, stand_create
    from tests.factories import UserFactory, issue_authorization

    clerk = personas["atendente"]
    stand = stand_create(actor=clerk, name="Ponto Matriz", location="Centro", capacity=2)
    other_stand = stand_create(actor=clerk, name="Ponto Matriz B", location="Bairro", capacity=2)
    world["lc_stand"] = stand
    world["lc_assignment"] = stand_assign(actor=clerk, stand=stand, authorization=world["lc_auth"])
    other, _ = issue_authorization(holder=UserFactory(), vehicle=None)
    world["lc_other_assignment"] = stand_assign(actor=clerk, stand=other_stand, authorization=other)
    world["lc_free_auth"], _ = issue_authorization(holder=UserFactory(), vehicle=None)
