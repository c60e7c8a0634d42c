"""Permission matrix of collective transport: every URL × every persona."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from tests.matrix import Row, everyone, only

STAFF = ("atendente", "julgador", "admin")
CLERKS = ("atendente", "admin")
JUDGES = ("julgador", "admin")
CNPJ_A = "11222333000181"
CNPJ_B = "45723174000110"


def _pk(key):
    return lambda w: {"pk": w[key].pk}


def build(world, personas):
    from licensing.transit import services as svc
    from licensing.transit.rules import Segment

    pack = world["pack"]
    today = pack.today()
    a = svc.concessionaire_create(actor=None, legal_name="Viação Matriz Ltda", cnpj=CNPJ_A, registry_number="32200001",
                                  address="Rua A, 1", representative_name="Rita Representante",
                                  representative_cpf="52998224725")
    b = svc.concessionaire_create(actor=None, legal_name="Transportes Segunda Ltda", cnpj=CNPJ_B,
                                  registry_number="32200002", address="Rua B, 2", representative_name="Rui Rep",
                                  representative_cpf="11144477735")
    c = svc.concession_create(actor=None, object="Linhas urbanas", category="onibus", bidding_reference="CP 1/2026",
                              bidding_closed_on=today - timedelta(days=5), classified=[a, b])
    svc.concession_contract_sign(actor=None, concession=c, signed_on=today - timedelta(days=3), contract_number="C-1")
    svc.concession_service_start(actor=None, concession=c, started_on=today - timedelta(days=1))
    line = svc.busline_create(actor=None, concession=c, code="L01", name="Centro — Bairro",
                              segments=[Segment("Rodoviária", "Centro", Decimal("4"), "urban"),
                                        Segment("Centro", "Distrito", Decimal("6"), "rural")],
                              schedule={"weekday": ["06:00", "07:00"]})
    svc.fare_set(actor=None, line=line, zone="urban", amount=Decimal("4.50"), decree="Decreto 1/2026",
                 announced_on=today - timedelta(days=20), effective_from=today - timedelta(days=10))
    itinerary = svc.itinerary_change_propose(actor=None, line=line, reason="Atender novo bairro",
                                             segments=[Segment("Rodoviária", "Centro", Decimal("4"), "urban"),
                                                       Segment("Centro", "Distrito", Decimal("6"), "rural"),
                                                       Segment("Distrito", "Vila", Decimal("1"), "rural")])
    bus = svc.bus_register(actor=None, concession=c, plate="TRN1A23", category="onibus", seated=40, standing=10)
    default = svc.default_notify(actor=None, concession=c, grounds=["I"], details="Atrasos reiterados",
                                 notified_on=today - timedelta(days=2), cure_days=15)
    intervention = svc.intervention_declare(actor=None, concession=c, decree="Decreto 9/2026", declared_on=today,
                                            interventor="Ivo Interventor", term_days=90, objectives="Regularizar horários")
    complaint = svc.complaint_file(line=line, text="Ônibus não passou no horário das 7h.")
    world.update(t_company=a, t_concession=c, t_line=line, t_itinerary=itinerary, t_bus=bus, t_default=default,
                 t_intervention=intervention, t_complaint=complaint)


def _post(roles, ok=400):
    return only(roles, ok=ok)


def _api(roles, ok=200):
    return {"anonymous": 401, "*": 403, **{r: ok for r in roles}}


ROWS = [
    # public
    Row("transit-lines", everyone(200)),
    Row("transit-line", everyone(200), kwargs=_pk("t_line")),
    Row("transit-line", everyone(200), kwargs=_pk("t_line"), query="?zone=urban&student=on", notes="calculadora"),
    Row("transit-complaint", everyone(200), kwargs=_pk("t_line")),
    Row("transit-complaint", everyone(400), method="post", kwargs=_pk("t_line"), notes="formulário vazio"),
    Row("transit-complaint-lookup", everyone(200)),
    Row("transit-complaint-lookup", everyone(404), query="?protocolo=2026/000001&codigo=AAAA-BBBB-CCCC",
        notes="código errado: nada revelado"),
    # staff pages
    Row("transit-concessionaires", only(STAFF)),
    Row("transit-concessionaire", only(STAFF), kwargs=_pk("t_company")),
    Row("transit-concessions", only(STAFF)),
    Row("transit-concession", only(STAFF), kwargs=_pk("t_concession")),
    Row("transit-contract-pdf", only(STAFF), kwargs=_pk("t_concession"), notes="contrato assinado (PDF)"),
    Row("transit-line-manage", only(STAFF), kwargs=_pk("t_line")),
    Row("transit-complaints", only(STAFF)),
]

_CLERK_ACTIONS = [
    ("transit-concessionaire-new", None),
    ("transit-concession-new", None),
    ("transit-contract", "t_concession"),
    ("transit-call-next", "t_concession"),
    ("transit-start", "t_concession"),
    ("transit-renew", "t_concession"),
    ("transit-clauses", "t_concession"),
    ("transit-line-new", "t_concession"),
    ("transit-bus-new", "t_concession"),
    ("transit-intervention-new", "t_concession"),
    ("transit-default-new", "t_concession"),
    ("transit-fare-new", "t_line"),
    ("transit-itinerary-change", "t_line"),
    ("transit-itinerary-approve", "t_itinerary"),
    ("transit-itinerary-discard", "t_itinerary"),
    ("transit-bus-withdraw", "t_bus"),
    ("transit-procedure", "t_intervention"),
    ("transit-default-cure", "t_default"),
    ("transit-default-open", "t_default"),
    ("transit-complaint-answer", "t_complaint"),
]
_JUDGE_ACTIONS = [
    ("transit-extinguish", "t_concession"),
    ("transit-intervention-conclude", "t_intervention"),
    ("transit-default-conclude", "t_default"),
]
# clauses: an empty form is valid (no clause present) and is recorded → redirect
_POST_OK = {"transit-clauses": 302}

for _name, _key in _CLERK_ACTIONS:
    _kw = _pk(_key) if _key else None
    ROWS.append(Row(_name, only(CLERKS), kwargs=_kw))
    ROWS.append(Row(_name, _post(CLERKS, _POST_OK.get(_name, 400)), method="post", kwargs=_kw))
for _name, _key in _JUDGE_ACTIONS:
    ROWS.append(Row(_name, only(JUDGES), kwargs=_pk(_key)))
    ROWS.append(Row(_name, _post(JUDGES), method="post", kwargs=_pk(_key)))

# API
ROWS += [
    Row("api-transit-lines", everyone(200), api=True),
    Row("api-transit-line", everyone(200), api=True, kwargs=_pk("t_line")),
    Row("api-transit-line-fare", everyone(200), api=True, kwargs=_pk("t_line"), query="?zone=urban&student=true"),
    Row("api-transit-line-complaint", everyone(400), api=True, method="post", kwargs=_pk("t_line"),
        data=lambda w: {}),
    Row("api-transit-concessionaires", _api(STAFF), api=True),
    Row("api-transit-concessionaires", _api(CLERKS, 400), api=True, method="post", data=lambda w: {}),
    Row("api-transit-concessionaire", _api(STAFF), api=True, kwargs=_pk("t_company")),
    Row("api-transit-concessions", _api(STAFF), api=True),
    Row("api-transit-concessions", _api(CLERKS, 400), api=True, method="post", data=lambda w: {}),
    Row("api-transit-concession", _api(STAFF), api=True, kwargs=_pk("t_concession")),
    Row("api-transit-complaints", _api(STAFF), api=True),
]
_API_CLERK = [
    ("api-transit-line-fares", "t_line", 400),
    ("api-transit-itinerary-change", "t_line", 400),
    ("api-transit-itinerary-approve", "t_itinerary", 400),
    ("api-transit-itinerary-discard", "t_itinerary", 400),
    ("api-transit-bus-withdraw", "t_bus", 400),
    ("api-transit-contract", "t_concession", 400),
    ("api-transit-call-next", "t_concession", 409),
    ("api-transit-start", "t_concession", 400),
    ("api-transit-renew", "t_concession", 200),
    ("api-transit-clauses", "t_concession", 400),
    ("api-transit-line-create", "t_concession", 400),
    ("api-transit-bus-create", "t_concession", 400),
    ("api-transit-intervention-create", "t_concession", 400),
    ("api-transit-default-create", "t_concession", 400),
    ("api-transit-intervention-procedure", "t_intervention", 400),
    ("api-transit-default-cure", "t_default", 400),
    ("api-transit-default-open", "t_default", 400),
    ("api-transit-complaint-answer", "t_complaint", 400),
]
_API_JUDGE = [
    ("api-transit-extinguish", "t_concession", 400),
    ("api-transit-intervention-conclude", "t_intervention", 400),
    ("api-transit-default-conclude", "t_default", 400),
]
for _name, _key, _ok in _API_CLERK:
    ROWS.append(Row(_name, _api(CLERKS, _ok), api=True, method="post", kwargs=_pk(_key), data=lambda w: {}))
for _name, _key, _ok in _API_JUDGE:
    ROWS.append(Row(_name, _api(JUDGES, _ok), api=True, method="post", kwargs=_pk(_key), data=lambda w: {}))

