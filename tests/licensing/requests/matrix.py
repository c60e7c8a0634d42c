"""Permission matrix of a grant's requests (built on the Alegre pack by the matrix test).

The personas' expectations and URL helpers here serve the stands' and fees' matrices too."""

from tests.matrix import LOGIN, Row

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
    from portal import regulation

    documents = [d["code"] for d in regulation.current().documents("taxi", "new", applies_to="auxiliary")]
    return {"cpf": w["lc_aux_cpf"], "name": "Bruno Auxiliar", "birth_date": "1990-01-01", "cnh_number": "12345678900",
            "cnh_category": "B", "cnh_first_issued": "2010-01-01", "cnh_ear": "on", "documents": documents}


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
    Row("lifecycle-queue", {**DESK_HTML, "agente": 200}, notes="agents see substitutions awaiting the vistoria"),
    Row("lifecycle-queue", {**DESK_HTML, "agente": 200}, query="?status=approved&kind=leave&q=001"),
    Row("lifecycle-request-decide", DESK_POST, method="post", kwargs=_req,
        data=lambda w: {"approved": "0", "reason": "Indeferido no teste"}),
    Row("lifecycle-request-inspection", {**DESK_POST, "agente": 404}, method="post", kwargs=_req,
        data=lambda w: {"approved": "on"}),
    Row("api-lifecycle-auth-requests", _api(200, requerente=200, outsider=404), api=True, kwargs=_auth),
    Row("api-lifecycle-auth-requests", _api(201, requerente=201, outsider=404), method="post", api=True, kwargs=_auth,
        data=lambda w: {"kind": "auxiliary_add", "data": {**_aux(w), "cnh_ear": True}}),
    Row("api-lifecycle-requests", _api(200, requerente=200, outsider=200, agente=200), api=True),
    Row("api-lifecycle-request", _api(200, requerente=200, outsider=404, agente=404), api=True, kwargs=_req),
    Row("api-lifecycle-request-decide", _api(200), method="post", api=True, kwargs=_req,
        data=lambda w: {"approved": False, "reason": "Indeferido no teste"}),
    Row("api-lifecycle-request-inspection", _api(409, agente=404), method="post", api=True, kwargs=_req,
        data=lambda w: {"approved": True}, notes="only a substitution has a vistoria"),
    Row("api-lifecycle-leave-return", _api(200, requerente=200, outsider=404), method="post", api=True, kwargs=_leave,
        data=lambda w: {}),
]


def build(world, personas):
    from licensing.requests.models import (
        LeaveOfAbsence,
        LifecycleRequest,
        RequestKind,
        RequestStatus,
    )
    from licensing.requests.services import request_file
    from tests.factories import VehicleFactory, issue_authorization
    from tests.licensing.requests.helpers import new_cpf

    alice = personas["requerente"]
    pack = world["pack"]
    auth, _ = issue_authorization(holder=alice, vehicle=VehicleFactory(owner=alice))
    world["lc_auth"] = auth
    world["lc_request"] = request_file(actor=alice, authorization=auth, kind=RequestKind.RENUNCIATION, data={})
    world["lc_aux_cpf"] = new_cpf()
    leave_req = LifecycleRequest.objects.create(
        protocol="2026/999999", authorization=auth, kind=RequestKind.LEAVE, status=RequestStatus.APPROVED,
        filed_on=pack.today(), filed_by=alice, data={"reason": "theft", "days": 10},
    )
    world["lc_leave"] = LeaveOfAbsence.objects.create(
        authorization=auth, request=leave_req, reason="theft", starts_on=pack.today(), ends_on=pack.today(),
        legal_basis="teste",
    )
