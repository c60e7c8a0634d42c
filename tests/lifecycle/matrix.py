"""Permission matrix of a grant's life (built on the Alegre pack by the matrix test)."""

from tests.matrix import LOGIN, Row, everyone

ANON_API = 401


DESK_HTML = {"anonymous": LOGIN, "atendente": 200, "admin": 200, "*": 403}
DESK_POST = {"anonymous": LOGIN, "atendente": 302, "admin": 302, "*": 403}
HOLDER_OWN = {"anonymous": LOGIN, "requerente": 200, "outsider": 404, "atendente": 200, "admin": 200, "*": 403}
HOLDER_OWN_POST = {"anonymous": LOGIN, "requerente": 302, "outsider": 404, "atendente": 302, "admin": 302, "*": 403}


def _api(ok, anonymous=ANON_API, **others):
    """Clerk and admin get ``ok``; ``others`` name the rest; anybody else 403."""
    return {"anonymous": anonymous, "atendente": ok, "admin": ok, "*": 403, **others}


def _auth(w):
    return {"pk": w["lc_auth"].pk}


def _req(w):
    return {"pk": w["lc_request"].pk}


def _stand(w):
    return {"pk": w["lc_stand"].pk}


def _fee(w):
    return {"pk": w["lc_fee"].pk}


def _leave(w):
    return {"pk": w["lc_leave"].pk}


def _aux(w):
    return {"cpf": w["lc_aux_cpf"], "name": "Bruno Auxiliar", "birth_date": "1990-01-01", "cnh_number": "12345678900",
            "cnh_category": "B", "cnh_first_issued": "2010-01-01", "cnh_ear": "on"}


def _swap(w):
    return {"assignment_a": w["lc_assignment"].pk, "assignment_b": w["lc_other_assignment"].pk,
            "consent_a": "on", "consent_b": "on"}


ROWS = [
    Row("lifecycle-mine", {"anonymous": LOGIN, "requerente": 200, "outsider": 200, "*": 403}),
    Row("lifecycle-request-new", HOLDER_OWN, kwargs=lambda w: {**_auth(w), "kind": "renunciation"}),
    Row("lifecycle-request-new", HOLDER_OWN_POST, method="post", kwargs=lambda w: {**_auth(w), "kind": "auxiliary_add"},
        data=_aux),
    Row("lifecycle-request-detail", {"anonymous": LOGIN, "requerente": 200, "outsider": 404, "atendente": 200,
                                     "admin": 200, "agente": 404, "julgador": 403}, kwargs=_req,
        notes="agents see only substitution requests (vistoria)"),
    Row("lifecycle-leave-return", HOLDER_OWN_POST, method="post", kwargs=_leave,
        data=lambda w: {"returned_on": w["pack"].today().isoformat()}),
    Row("lifecycle-fee-dam", HOLDER_OWN, kwargs=_fee),
    Row("lifecycle-stands-public", everyone(200)),
    Row("lifecycle-queue", {**DESK_HTML, "agente": 200}, notes="agents see substitutions awaiting the vistoria"),
    Row("lifecycle-queue", {**DESK_HTML, "agente": 200}, query="?status=approved&kind=leave&q=001"),
    Row("lifecycle-request-decide", DESK_POST, method="post", kwargs=_req,
        data=lambda w: {"approved": "0", "reason": "Indeferido no teste"}),
    Row("lifecycle-request-inspection", {**DESK_POST, "agente": 404}, method="post", kwargs=_req,
        data=lambda w: {"approved": "on"}),
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
    Row("lifecycle-fees", DESK_HTML),
    Row("lifecycle-fees", DESK_HTML, query="?status=issued&kind=fine&q=Alice"),
    Row("lifecycle-tff-issue", DESK_POST, method="post", data=lambda w: {"authorization": w["lc_auth"].number}),
    Row("lifecycle-fee-bank-return", DESK_POST, method="post", data=lambda w: {}),
    Row("lifecycle-fee-pay", DESK_POST, method="post", kwargs=_fee,
        data=lambda w: {"paid_on": w["pack"].today().isoformat(), "reference": "AUT"}),
    # API
    Row("api-lifecycle-auth-requests", _api(200, requerente=200, outsider=404), api=True, kwargs=_auth),
    Row("api-lifecycle-auth-requests", _api(201, requerente=201, outsider=404), method="post", api=True, kwargs=_auth,
        data=lambda w: {"kind": "auxiliary_add", "data": {**_aux(w), "cnh_ear": True}}),
    Row("api-lifecycle-tff", _api(400), method="post", api=True, kwargs=_auth, data=lambda w: {},
        notes="the Alegre law has no TFF: refused with the rule"),
    Row("api-lifecycle-requests", _api(200, requerente=200, outsider=200, agente=200), api=True),
    Row("api-lifecycle-request", _api(200, requerente=200, outsider=404, agente=404), api=True, kwargs=_req),
    Row("api-lifecycle-request-decide", _api(200), method="post", api=True, kwargs=_req,
        data=lambda w: {"approved": False, "reason": "Indeferido no teste"}),
    Row("api-lifecycle-request-inspection", _api(409, agente=404), method="post", api=True, kwargs=_req,
        data=lambda w: {"approved": True}, notes="only a substitution has a vistoria"),
    Row("api-lifecycle-stands", everyone(200), api=True),
    Row("api-lifecycle-stands", _api(201), method="post", api=True,
        data=lambda w: {"name": "Ponto Novo", "location": "Praça", "capacity": 2}),
    Row("api-lifecycle-stand-swap", _api(200), method="post", api=True,
        data=lambda w: {**_swap(w), "consent_a": True, "consent_b": True}),
    Row("api-lifecycle-stand-capacity", _api(200), method="post", api=True, kwargs=_stand, data=lambda w: {"capacity": 3}),
    Row("api-lifecycle-stand-assign", _api(201), method="post", api=True, kwargs=_stand,
        data=lambda w: {"authorization": w["lc_free_auth"].pk}),
    Row("api-lifecycle-fees", _api(200, requerente=200, outsider=200), api=True),
    Row("api-lifecycle-fee", _api(200, requerente=200, outsider=404), api=True, kwargs=_fee),
    Row("api-lifecycle-fee-bank-return", _api(400), method="post", api=True, data=lambda w: {},
        notes="no file sent: 400 naming the field"),
    Row("api-lifecycle-fee-pay", _api(200), method="post", api=True, kwargs=_fee, data=lambda w: {}),
    Row("api-lifecycle-fee-dam", _api(200, requerente=200, outsider=404), api=True, kwargs=_fee),
    Row("api-lifecycle-leave-return", _api(200, requerente=200, outsider=404), method="post", api=True, kwargs=_leave,
        data=lambda w: {}),
]


def build(world, personas):
    from licensing.fees.services import fee_issue
    from licensing.requests.models import (
        LeaveOfAbsence,
        LifecycleRequest,
        RequestKind,
        RequestStatus,
    )
    from licensing.requests.services import request_file
    from licensing.stands.services import stand_assign, stand_create
    from tests.factories import UserFactory, VehicleFactory, issue_authorization
    from tests.lifecycle.helpers import new_cpf

    alice = personas["requerente"]
    clerk = personas["atendente"]
    pack = world["pack"]
    auth, _ = issue_authorization(holder=alice, vehicle=VehicleFactory(owner=alice))
    world["lc_auth"] = auth
    world["lc_request"] = request_file(actor=alice, authorization=auth, kind=RequestKind.RENUNCIATION, data={})
    world["lc_aux_cpf"] = new_cpf()
    stand = stand_create(actor=clerk, name="Ponto Matriz", location="Centro", capacity=2)
    other_stand = stand_create(actor=clerk, name="Ponto Matriz B", location="Bairro", capacity=2)
    world["lc_stand"] = stand
    world["lc_assignment"] = stand_assign(actor=clerk, stand=stand, authorization=auth)
    other, _ = issue_authorization(holder=UserFactory(), vehicle=None)
    world["lc_other_assignment"] = stand_assign(actor=clerk, stand=other_stand, authorization=other)
    world["lc_free_auth"], _ = issue_authorization(holder=UserFactory(), vehicle=None)
    world["lc_fee"] = fee_issue(actor=clerk, kind="fine", holder=alice, authorization=auth, description="Multa de teste",
                                legal_basis="Lei 3.703/2022 (Alegre/ES), art. 19", amount="150.00")
    leave_req = LifecycleRequest.objects.create(
        protocol="2026/999999", authorization=auth, kind=RequestKind.LEAVE, status=RequestStatus.APPROVED,
        filed_on=pack.today(), filed_by=alice, data={"reason": "theft", "days": 10},
    )
    world["lc_leave"] = LeaveOfAbsence.objects.create(
        authorization=auth, request=leave_req, reason="theft", starts_on=pack.today(), ends_on=pack.today(),
        legal_basis="teste",
    )
