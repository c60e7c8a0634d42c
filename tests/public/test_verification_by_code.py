"""The one-query verification of a grant act (verify_by_code) says exactly what the full path
(document_by_code + verification_of) says, in every state the public answer depends on."""

from datetime import date, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from licensing.grants.models import Authorization
from portal import regulation
from portal.public import selectors
from tests.factories import UserFactory, issue_authorization


def _both(code: str):
    pack = regulation.current()
    doc = selectors.document_by_code(code)
    full = selectors.verification_of(doc, pack) if doc is not None else None
    return full, selectors.verify_by_code(code, pack)


@pytest.fixture
def grant(alegre):
    auth, alvaras = issue_authorization(holder=UserFactory(name="Inês Simões Brandão"))
    return auth, alvaras


def test_a_grant_act_is_answered_alike_and_in_one_query(grant):
    auth, _ = grant
    full, fast = _both(auth.verification_code)
    assert fast == full and fast.kind == "authorization" and fast.holder == "Inês Simões Brandão"
    with CaptureQueriesContext(connection) as queries:
        selectors.verify_by_code(auth.verification_code.lower(), regulation.current())
    assert len(queries) == 1


def test_the_stored_pdf_hash_and_signer_are_the_same(grant):
    from licensing.grants.documents import authorization_pdf
    from portal.models import IssuedDocument

    auth, _ = grant
    authorization_pdf(auth)
    stored = IssuedDocument.objects.get(object_id=str(auth.pk), kind="authorization")
    full, fast = _both(auth.verification_code)
    assert fast == full and fast.sha256 == stored.sha256
    assert fast.signer == (stored.signer if stored.signed else "")


def test_an_unsigned_stored_pdf_shows_its_hash_and_no_signer(grant):
    """The stored PDF's hash, signed flag and signer come in one subquery: a PDF stored without
    a signature (no certificate at the issue) shows its hash, and no signer whatever it names."""
    from portal.issued import sha256_hex
    from portal.models import IssuedDocument

    auth, _ = grant
    pdf = b"%PDF-1.7 sem assinatura"
    IssuedDocument.objects.create(object_type="licensing.authorization", object_id=str(auth.pk), kind="authorization",
                                  number=auth.number, verification_code=auth.verification_code, pdf=pdf,
                                  sha256=sha256_hex(pdf), size=len(pdf), signed=False, signer="Prefeitura (pendente)")
    full, fast = _both(auth.verification_code)
    assert fast == full and fast.sha256 == sha256_hex(pdf) and fast.signer == ""


def test_suspended_expired_no_vehicle_and_nameless_holder(grant):
    auth, _ = grant
    today = regulation.current().today()
    Authorization.objects.filter(pk=auth.pk).update(status="suspended", suspended_until=today + timedelta(days=9))
    full, fast = _both(auth.verification_code)
    assert fast == full and fast.suspended_until == today + timedelta(days=9) and not fast.valid
    Authorization.objects.filter(pk=auth.pk).update(status="active", valid_from=today - timedelta(days=30),
                                                  valid_until=today - timedelta(days=1))
    full, fast = _both(auth.verification_code)
    assert fast == full and fast.status == "expired"
    Authorization.objects.filter(pk=auth.pk).update(vehicle=None)
    type(auth.holder).objects.filter(pk=auth.holder_id).update(name="", first_name="", last_name="")
    full, fast = _both(auth.verification_code)
    assert fast == full and fast.plate == "" and fast.vehicle is None and fast.holder == "(nome não informado)"


def test_auxiliary_drivers_are_listed_in_order(grant):
    from licensing.requests.models import AuxiliaryDriver

    auth, _ = grant
    for name in ("Bia Auxiliar", "Caio Auxiliar"):
        AuxiliaryDriver.objects.create(authorization=auth, person=UserFactory(name=name), cnh_number="02650306461",
                                       cnh_category="B", cnh_first_issued=date(2005, 1, 1), cnh_ear=True,
                                       added_on=date(2026, 1, 5))
    full, fast = _both(auth.verification_code)
    assert fast == full and fast.drivers == ["Inês Simões Brandão", "Bia Auxiliar", "Caio Auxiliar"]


def test_alvaras_unknown_and_malformed_codes_answer_alike(itagiba):
    _, alvaras = issue_authorization(holder=UserFactory(name="Luís Mendonça"))
    full, fast = _both(alvaras[0].verification_code)
    assert fast == full and fast.kind == "alvara"
    assert _both("ZZZZ-ZZZZ-ZZZZ") == (None, None)
    assert _both("") == (None, None) and _both("x" * 40) == (None, None)


def test_an_alvara_is_answered_alike_and_in_one_query(itagiba):
    """The QR code inside the vehicle: its own row query (the act's misses first), the same
    answer as the full path in every state the public answer depends on."""
    from licensing.grants.documents import alvara_pdf
    from licensing.grants.models import Alvara
    from licensing.grants.services import alvara_issue
    from licensing.requests.models import AuxiliaryDriver

    auth, alvaras = issue_authorization(holder=UserFactory(name="Luís Mendonça"))
    alvara = alvaras[0]
    code = alvara.verification_code
    full, fast = _both(code)
    assert fast == full and fast.kind == "alvara" and fast.valid and fast.plate and fast.vehicle
    with CaptureQueriesContext(connection) as queries:
        selectors.verify_by_code(code.lower(), regulation.current())
    assert len(queries) == 2  # the act's lookup, then the alvará's
    alvara_pdf(alvara)  # its stored PDF: hash and signer
    full, fast = _both(code)
    assert fast == full and fast.sha256
    today = regulation.current().today()
    Authorization.objects.filter(pk=auth.pk).update(status="suspended", suspended_until=today + timedelta(days=9))
    full, fast = _both(code)
    assert fast == full and not fast.valid and fast.status == "active"  # the alvará's own, its grant's not
    Authorization.objects.filter(pk=auth.pk).update(status="active", suspended_until=None)
    Alvara.objects.filter(pk=alvara.pk).update(valid_until=today - timedelta(days=1))
    full, fast = _both(code)
    assert fast == full and fast.status == "expired" and not fast.valid
    for name in ("Bia Auxiliar", "Caio Auxiliar"):
        AuxiliaryDriver.objects.create(authorization=auth, person=UserFactory(name=name), cnh_number="02650306461",
                                       cnh_category="B", cnh_first_issued=date(2005, 1, 1), cnh_ear=True,
                                       added_on=date(2026, 1, 5))
    full, fast = _both(code)
    assert fast == full and fast.drivers == ["Luís Mendonça", "Bia Auxiliar", "Caio Auxiliar"]
    Authorization.objects.filter(pk=auth.pk).update(holder_type="PJ", company_name="Táxi Mendonça Ltda",
                                                    cnpj="11222333000181")
    full, fast = _both(code)
    assert fast == full and fast.holder == "Táxi Mendonça Ltda"
    Alvara.objects.filter(pk=alvara.pk).update(vehicle=None)  # the grant's vehicle, then none
    full, fast = _both(code)
    assert fast == full and fast.plate == auth.vehicle.display_plate
    Authorization.objects.filter(pk=auth.pk).update(vehicle=None)
    full, fast = _both(code)
    assert fast == full and fast.plate == "" and fast.vehicle is None
    type(alvara.person).objects.filter(pk=alvara.person_id).update(name="", first_name="", last_name="")
    full, fast = _both(code)
    assert fast == full and fast.driver == "(nome não informado)"
    # superseded: the full path, which follows the chain to the alvará in force
    auth.refresh_from_db()
    newer = alvara_issue(actor=None, authorization=auth, person=alvara.person, supersedes=alvara)
    full, fast = _both(code)
    assert fast == full and fast.superseded_by["number"] == newer.number
    full, fast = _both(newer.verification_code)
    assert fast == full and fast.superseded_by is None


def test_the_compiled_lookup_is_compiled_once_and_scoped_at_each_run(two_municipalities, monkeypatch):
    """The verification's SQL is compiled once and run with each new code and the municipality
    then in scope: a code of Alegre is not found with Itagibá in scope, nor Itagibá's with
    Alegre's, and with none in scope the lookup refuses to run."""
    from licensing import public_verification
    from portal import compiled_query, tenancy
    from portal.compiled_query import CompiledLookup

    town = two_municipalities
    with tenancy.activate(town.a):
        a_auth, _ = issue_authorization(holder=UserFactory(name="Ana de Alegre"))
    with tenancy.activate(town.b):
        b_auth, _ = issue_authorization(holder=UserFactory(name="Bento de Itagibá"))
    public_verification._verification_lookup.cache_clear()
    public_verification._alvara_verification_lookup.cache_clear()
    compiled_query._ids_lookup.cache_clear()
    compiles = []
    original = CompiledLookup._compile
    monkeypatch.setattr(CompiledLookup, "_compile", lambda self: compiles.append(id(self)) or original(self))
    for scope, pack, mine, other in ((town.a, town.pack_a, a_auth, b_auth), (town.b, town.pack_b, b_auth, a_auth)):
        with tenancy.activate(scope):
            found = selectors.verify_by_code(mine.verification_code, pack)
            assert found is not None and found.number == mine.number
            # not an act here: the ids of the other kinds are asked, each by its own compiled lookup
            assert selectors.verify_by_code(other.verification_code, pack) is None
            assert selectors.document_by_code(other.verification_code) is None
            again = selectors.verify_by_code(mine.verification_code.lower(), pack)
            assert again == found
    # the act's and the alvará's rows, and the ids of each kind (acts, alvarás, amendments, autos):
    # each compiled once
    assert len(compiles) == len(set(compiles)) == 6
    with tenancy.activate(None), pytest.raises(tenancy.TenantMissing):
        public_verification._verification_lookup().rows(a_auth.verification_code)


def test_an_alvara_is_not_found_in_another_municipality(two_municipalities):
    """The alvarás' id lookup is scoped like the act's (Alegre issues none: Itagibá's is asked
    for in both)."""
    from portal import tenancy

    town = two_municipalities
    with tenancy.activate(town.b):
        _, alvaras = issue_authorization(holder=UserFactory(name="Bento de Itagibá"))
        code = alvaras[0].verification_code
        assert selectors.verify_by_code(code, town.pack_b).number == alvaras[0].number
        assert selectors.document_by_code(code) == alvaras[0]
    with tenancy.activate(town.a):
        assert selectors.verify_by_code(code, town.pack_a) is None
        assert selectors.document_by_code(code) is None


def test_a_code_that_is_no_document_compiles_no_query(itagiba, monkeypatch):
    """A mistyped, made-up or enumerated code: each kind is asked for an id by a prepared
    lookup, and no queryset with its relations is compiled (that was ~8 ms of CPU a request,
    17 times a grant act that exists)."""
    from django.db.models.sql.compiler import SQLCompiler

    auth, alvaras = issue_authorization(holder=UserFactory(name="Luís Mendonça"))
    pack = regulation.current()
    assert selectors.verify_by_code("ZZZZ-ZZZZ-ZZZ2", pack) is None  # the lookups compiled, once
    compiles = []
    original = SQLCompiler.as_sql
    monkeypatch.setattr(SQLCompiler, "as_sql", lambda self, *a, **k: compiles.append(self.query.model) or original(self, *a, **k))
    with CaptureQueriesContext(connection) as queries:
        assert selectors.verify_by_code("ZZZZ-ZZZZ-ZZZ3", pack) is None
        assert selectors.document_by_code("ZZZZ-ZZZZ-ZZZ4") is None
    assert compiles == []
    # per code: the act's and the alvará's rows and the amendment's and auto's ids (verify_by_code),
    # the ids of each kind (document_by_code)
    assert len(queries) == 4 + 4
    assert selectors.verify_by_code(alvaras[0].verification_code, pack).number == alvaras[0].number
    assert selectors.document_by_code(auth.verification_code) == auth


def test_the_compiled_lookup_refuses_a_value_it_cannot_place(alegre):
    from portal.compiled_query import CompiledLookup

    twice = CompiledLookup(lambda code: Authorization.objects.filter(number=code, verification_code=code).values("id"))
    with pytest.raises(ValueError, match="único parâmetro"):
        twice.rows("X")
    assert CompiledLookup(lambda code: Authorization.objects.filter(number=code).values("id")).rows("nada") == []


def test_on_postgresql_the_lookup_is_planned_once_a_session(grant):
    """PREPAREd on its first use in the session, then only EXECUTEd; a percent sign in the
    SQL (a LIKE) survives the numbering of the placeholders."""
    from portal.compiled_query import CompiledLookup

    if connection.vendor != "postgresql":
        pytest.skip("prepared statements are PostgreSQL's")
    auth, _ = grant
    lookup = CompiledLookup(lambda code: Authorization.objects.filter(verification_code=code, number__contains="/")
                            .values("number"))
    with CaptureQueriesContext(connection) as queries:
        assert lookup.rows(auth.verification_code) == [{"number": auth.number}]
        assert lookup.rows("NADA-NADA-NADA") == []
    sent = [q["sql"].split()[0] for q in queries if "set_config" not in q["sql"]]
    assert sent == ["PREPARE", "EXECUTE", "EXECUTE"]
    assert any(name.startswith("cl") for name in connection._prepared)  # new with each connection


def test_on_postgresql_only_the_value_and_the_municipality_travel_with_each_run(grant):
    """The constants of the statement (here a text with a quote and a percent sign) are quoted
    into it once, when it is prepared; each EXECUTE sends the looked-up value and the municipality."""
    import re

    from portal.compiled_query import CompiledLookup

    if connection.vendor != "postgresql":
        pytest.skip("prepared statements are PostgreSQL's")
    auth, _ = grant
    name = "Autorização 50% d'água"
    Authorization.objects.filter(pk=auth.pk).update(act_name=name)
    lookup = CompiledLookup(lambda code: Authorization.objects.filter(verification_code=code, act_name=name)
                            .values("number", "act_name"))
    with CaptureQueriesContext(connection) as queries:
        assert lookup.rows(auth.verification_code) == [{"number": auth.number, "act_name": name}]
        assert lookup.rows("NADA-NADA-NADA") == []
    executes = [q["sql"] for q in queries if q["sql"].startswith("EXECUTE")]
    assert len(executes) == 2 and all("água" not in sql for sql in executes)
    sent = re.fullmatch(r"EXECUTE \w+ \((.*)\)", executes[0]).group(1).split(", ")
    assert sorted(sent) == sorted([f"'{auth.verification_code}'", str(auth.municipality_id)])


def test_the_compiled_lookup_names_columns_as_values_does(grant):
    """Fields and annotations in any order, with a date (a string on SQLite until converted)."""
    from django.db.models import F, Value
    from django.db.models.functions import Concat

    from portal.compiled_query import CompiledLookup

    auth, _ = grant

    def build(code):
        return (Authorization.objects.filter(verification_code=code)
                .annotate(label=Concat(F("number"), Value("!")))
                .values("label", "valid_until", "id"))

    assert CompiledLookup(build).rows(auth.verification_code) == list(build(auth.verification_code))
    row = CompiledLookup(build).rows(auth.verification_code)[0]
    assert list(row) == ["label", "valid_until", "id"] and isinstance(row["valid_until"], date)
