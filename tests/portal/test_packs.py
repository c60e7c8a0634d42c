"""Each pack loads, reloads without changes, and its values match the law."""

import pytest

from portal import regulation
from portal.models import AuditEntry, Municipality, RegulationParameter


@pytest.mark.parametrize("slug", ["alegre", "itagiba", "arapora"])
def test_pack_loads_and_reloads_without_changes(db, slug):
    first = regulation.load_pack(slug)
    assert first.created and first.changed_params > 0
    count = RegulationParameter.objects.count()
    audits = AuditEntry.objects.count()
    second = regulation.load_pack(slug)
    assert not second.created and second.changed_params == 0 and not second.activated
    assert RegulationParameter.objects.count() == count
    assert AuditEntry.objects.count() == audits, "a reload without changes writes nothing"


def test_loading_packs_puts_each_in_service_side_by_side(db):
    """One installation, many municipalities (issue 17): a load never takes another out."""
    from portal import tenancy

    loaded = {}
    for slug in ["alegre", "itagiba", "arapora", "alegre"]:
        loaded[slug] = regulation.load_pack(slug).municipality_id
    assert sorted(Municipality.objects.filter(is_active=True).values_list("slug", flat=True)) == [
        "alegre", "arapora", "itagiba"]
    for slug, pk in loaded.items():
        with tenancy.activate((pk, slug)):
            assert regulation.current().slug == slug


def test_population_override_is_recorded(db):
    regulation.load_pack("alegre")
    result = regulation.load_pack("alegre", population=40000)
    assert result.population_changed
    assert regulation.current().population == 40000


EXPECTED = {
    # slug: (taxi inhabitants per slot, auxiliaries, validity years, vehicle max age, defense days)
    "alegre": (800, 2, 10, 7, 15),
    "itagiba": (1000, 1, 1, 8, 15),
    "arapora": (1000, 2, 4, 5, 15),  # the law is silent: example value (Constituição art. 5º, LV)
}


@pytest.mark.parametrize("slug", EXPECTED)
def test_values_match_the_law(db, slug):
    regulation.load_pack(slug)
    pack = regulation.current()
    per_slot, aux, validity, age, defense = EXPECTED[slug]
    assert pack.value("quota.inhabitants_per_slot", "taxi") == per_slot
    assert pack.value("auxiliary.max", "taxi") == aux
    assert pack.value("grant.validity_years", "taxi") == validity
    assert pack.value("vehicle.max_age_years", "taxi") == age
    assert pack.value("defense.days", "taxi") == defense
    assert pack.param("defense.days", "taxi").is_example is (slug == "arapora")
    for key in ["quota.inhabitants_per_slot", "auxiliary.max", "grant.validity_years", "vehicle.max_age_years"]:
        assert pack.param(key, "taxi").legal_basis, f"{key} sem base legal"


def test_alegre_mototaxi_quota_and_recidivism(db):
    regulation.load_pack("alegre")
    pack = regulation.current()
    assert pack.value("quota.inhabitants_per_slot", "mototaxi") == 3000
    assert pack.value("recidivism.window_days") == 30
    assert pack.value("recidivism.mode") == "double_once"
    assert pack.value("appeal.days") == 30


def test_itagiba_age_basis_and_bar(db):
    regulation.load_pack("itagiba")
    pack = regulation.current()
    assert pack.value("vehicle.age_basis", "taxi") == "first_registration"
    assert pack.value("vehicle.max_age_years", "mototaxi") == 8
    assert pack.value("cassation.bar_months") == 60
    assert pack.value("fees.tff_units", "taxi") == 19
    assert pack.value("fees.tff_units", "mototaxi") == 2
    assert pack.value("driver.min_age", "taxi") == 21


def test_arapora_penalty_codes(db):
    regulation.load_pack("arapora")
    codes = regulation.current().penalty_codes
    assert [codes[f"B-{i}"]["fine_units"] for i in range(1, 5)] == [2, 4, 6, 8]
    assert [codes[f"C-{i}"]["suspension_days"] for i in range(1, 5)] == [5, 10, 15, 30]
    assert codes["A"]["kind"] == "warning"
    assert codes["D"]["kind"] == "impediment" and codes["E"]["kind"] == "cancellation"
    pack = regulation.current()
    assert pack.value("recidivism.window_days") == 90 and pack.value("recidivism.mode") == "progressive"
    assert pack.value("appeal.days") == 10


def test_every_infraction_cites_an_article(any_pack):
    assert any_pack.infractions()
    for item in any_pack.infractions():
        assert "art." in item["legal_basis"], item["code"]


def test_a_decree_adds_a_version_without_losing_the_old(db):
    from datetime import date

    regulation.load_pack("alegre")
    pack = regulation.current()
    old = pack.param("auxiliary.max", "taxi")
    RegulationParameter.objects.create(
        municipality_id=pack.municipality_id, key=old.key, value=1, legal_basis="Decreto de teste, art. 1",
        effective_from=date(2030, 1, 1), source="admin",
    )
    regulation.invalidate()
    pack = regulation.current()
    assert pack.value("auxiliary.max", "taxi") == old.value
    assert pack.value("auxiliary.max", "taxi", at=date(2030, 1, 1)) == 1
    assert pack.value("auxiliary.max", "taxi", at=date(2029, 12, 31)) == old.value


def test_no_municipality_named_in_code():
    import re
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    files = subprocess.run(["git", "ls-files", "*.py"], cwd=root, capture_output=True, text=True).stdout.split()
    if not files:  # not a git checkout: scan the packages
        files = [str(p.relative_to(root)) for app in ("portal", "licensing", "fleet", "enforcement", "tariffs")
                 for p in (root / app).rglob("*.py")]
    offenders = []
    for name in files:
        if name.startswith("tests/") or "/migrations/" in name or "/packs/" in name:
            continue
        text = (root / name).read_text(encoding="utf-8")
        if re.search(r"alegre|itagib|arapor", text, re.IGNORECASE):
            offenders.append(name)
    assert not offenders


def test_load_regulation_says_what_it_did(db):
    from io import StringIO

    from django.core.management import call_command

    def run(*args):
        out = StringIO()
        call_command("load_regulation", *args, stdout=out)
        return out.getvalue()

    assert "criado" in run("alegre")
    assert "sem mudanças;" in run("alegre")
    assert "criado" in run("itagiba")
    again = run("alegre")  # a second municipality took nothing from the first
    assert "sem mudanças;" in again and "em funcionamento" in again and "população 29.177" in again
    assert "atualizado" in run("alegre", "--population", "30000")
    assert "população 30.000" in run("alegre") and regulation.current().population == 30000


def _pack_with(params: dict, collective: dict | None = None) -> dict:
    import copy

    data = copy.deepcopy(regulation.read_pack_file("alegre"))
    data["params"].update(params)
    if collective:
        data["collective_transport"]["params"].update(collective)
    return data


def test_a_misspelt_key_is_refused_naming_it():
    with pytest.raises(regulation.PackError, match="vehicle.max_age_yeras"):
        regulation.validate_pack_data(_pack_with({"vehicle.max_age_yeras": {"value": 7, "legal_basis": "art. 9"}}))
    with pytest.raises(regulation.PackError, match="taxi.defence.days"):
        regulation.validate_pack_data(_pack_with({"taxi.defence.days": {"value": 15, "legal_basis": "art. 1"}}))
    with pytest.raises(regulation.PackError, match="contract.sing_days"):
        regulation.validate_pack_data(
            _pack_with({}, {"contract.sing_days": {"value": 10, "legal_basis": "art. 8"}})
        )


def test_a_value_of_the_wrong_type_is_refused_naming_the_key():
    with pytest.raises(regulation.PackError, match="taxi.vehicle.max_age_years"):
        regulation.validate_pack_data(_pack_with({"taxi.vehicle.max_age_years": {"value": "7", "legal_basis": "x"}}))
    with pytest.raises(regulation.PackError, match="transfer.allowed"):
        regulation.validate_pack_data(_pack_with({"transfer.allowed": {"value": 1, "legal_basis": "x"}}))
    with pytest.raises(regulation.PackError, match="recidivism.mode"):
        regulation.validate_pack_data(_pack_with({"recidivism.mode": {"value": "triple", "legal_basis": "x"}}))
    with pytest.raises(regulation.PackError, match="fare.student_discount"):
        regulation.validate_pack_data(_pack_with({}, {"fare.student_discount": {"value": "meia", "legal_basis": "x"}}))


def test_every_key_of_the_packs_is_declared_and_read_as_declared():
    """Keys marked read=False are informative (law no rule applies); the others are read."""
    import subprocess
    from pathlib import Path

    from portal import pack_keys

    root = Path(__file__).resolve().parents[2]
    files = subprocess.run(["git", "ls-files", "*.py"], cwd=root, capture_output=True, text=True).stdout.split()
    if not files:  # not a git checkout: scan the packages
        files = [str(p.relative_to(root)) for app in ("portal", "licensing", "fleet", "enforcement", "tariffs")
                 for p in (root / app).rglob("*.py")]
    code = "\n".join((root / f).read_text(encoding="utf-8") for f in files
                     if not f.startswith("tests/") and "/migrations/" not in f and f != "portal/pack_keys.py")
    for table in (pack_keys.PARAMS, pack_keys.COLLECTIVE_PARAMS):
        for key, spec in table.items():
            literal = f'"{key}"' in code
            if key in pack_keys.PARAMS and key in pack_keys.COLLECTIVE_PARAMS:
                # same name in both tables (grant.holder_types: read for taxi, informative for the
                # bus concessions): the literal is there when either declares it read
                read = pack_keys.PARAMS[key].read or pack_keys.COLLECTIVE_PARAMS[key].read
                assert literal == read, f"{key}: declared read={read} in one of the tables"
                continue
            assert literal == spec.read, f"{key}: declared read={spec.read}"
    for slug in regulation.available_packs():
        regulation.validate_pack_data(regulation.read_pack_file(slug))  # every key declared, of its type


def test_schema_md_documents_every_declared_key():
    from pathlib import Path

    from portal import pack_keys

    text = (Path(regulation.__file__).parent / "packs" / "SCHEMA.md").read_text(encoding="utf-8")
    missing = [k for t in (pack_keys.PARAMS, pack_keys.COLLECTIVE_PARAMS) for k in t
               if f"`{k}`" not in text and f'"{k}"' not in text]
    assert not missing
