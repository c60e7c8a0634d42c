"""FEBRABAN collection barcode: check digits worked by hand and a real slip's numbers."""

from __future__ import annotations

import shutil
import subprocess
from datetime import date
from decimal import Decimal

import pytest

from portal.febraban import (
    BarcodeError,
    barcode_is_valid,
    barcode_svg,
    collection_barcode,
    dam_code,
    digitable_line,
    format_digitable_line,
    free_field,
    modulo10,
    modulo11,
)

# A real collection slip (GPS of INSS, segment 5, value id 8): its printed linha digitável
# is 85820000001-5 66980270116-2 30001280018-9 67222025113-0.
GPS_BARCODE = "85820000001669802701163000128001867222025113"
GPS_LINE = "858200000015669802701162300012800189672220251130"


def test_modulo10_worked_by_hand():
    # 8 1 6 from the right ×2,×1,×2: 6×2=12→1+2=3, 1×1=1, 8×2=16→1+6=7; 11 → 10−1 = 9
    assert modulo10("816") == 9
    assert modulo10("0") == 0 and modulo10("5") == 9  # 5×2=10 → 1; 10−1 = 9


def test_modulo11_worked_by_hand():
    # 5555555555: weights 2..9,2,3 from the right → 245; 245 % 11 = 3; 11 − 3 = 8
    assert modulo11("5555555555") == 8
    assert modulo11("0000") == 0          # rest 0 → 0
    assert modulo11("6") == 0             # 12 % 11 = 1 → 0


def test_a_real_slip_checks_out():
    assert barcode_is_valid(GPS_BARCODE)
    assert digitable_line(GPS_BARCODE) == GPS_LINE
    assert format_digitable_line(GPS_LINE) == "85820000001-5 66980270116-2 30001280018-9 67222025113-0"
    rebuilt = collection_barcode(amount=Decimal("166.98"), company_code="0270",
                                 free="1163000128001867222025113", value_id="8", segment="5")
    assert rebuilt == GPS_BARCODE


def test_city_dam_barcode_layout():
    code = dam_code(amount="95.00", company_code="1234", due_date=date(2027, 1, 29), reference="DAM 002/2026")
    bc = code.barcode
    assert len(bc) == 44 and bc[:3] == "818" and bc[4:15] == "00000009500" and bc[15:19] == "1234"
    assert bc[19:27] == "20270129" and bc[27:].endswith("0022026")
    assert barcode_is_valid(bc) and len(code.digitable_line) == 48
    for i in range(4):  # each block of the line carries its own modulo-11 digit
        block = code.digitable_line[i * 12:i * 12 + 11]
        assert block == bc[i * 11:(i + 1) * 11]
        assert int(code.digitable_line[i * 12 + 11]) == modulo11(block)


def test_modulo10_value_identifier():
    bc = collection_barcode(amount="10.00", company_code="0001", free="0" * 25, value_id="6")
    assert bc[2] == "6" and int(bc[3]) == modulo10(bc[:3] + bc[4:])
    assert int(digitable_line(bc)[11]) == modulo10(bc[:11])


@pytest.mark.parametrize("position", [3, 10, 43])
def test_one_changed_digit_is_caught(position):
    digit = GPS_BARCODE[position]
    changed = GPS_BARCODE[:position] + str((int(digit) + 1) % 10) + GPS_BARCODE[position + 1:]
    assert not barcode_is_valid(changed)


@pytest.mark.parametrize("kwargs", [
    {"amount": "0", "company_code": "1234", "free": "0" * 25},
    {"amount": "1000000000.00", "company_code": "1234", "free": "0" * 25},
    {"amount": "1.00", "company_code": "12", "free": "0" * 25},
    {"amount": "1.00", "company_code": "1234", "free": "1" * 24},
    {"amount": "1.00", "company_code": "1234", "free": "0" * 25, "value_id": "5"},
])
def test_bad_data_is_refused(kwargs):
    with pytest.raises(BarcodeError):
        collection_barcode(**kwargs)


def test_free_field_without_due_date_and_too_long_reference():
    assert free_field(due_date=None, reference="12") == "0" * 23 + "12"
    with pytest.raises(BarcodeError):
        free_field(due_date=date(2027, 1, 1), reference="9" * 18)


def test_bars_read_back_to_the_same_digits(tmp_path):
    if not shutil.which("zbarimg") or not shutil.which("rsvg-convert"):
        pytest.skip("zbarimg/rsvg-convert ausentes (Debian zbar-tools, librsvg2-bin)")
    svg = tmp_path / "dam.svg"
    svg.write_bytes(barcode_svg(GPS_BARCODE))
    png = tmp_path / "dam.png"
    subprocess.run(["rsvg-convert", "-d", "300", "-p", "300", "-b", "white", "-o", str(png), str(svg)], check=True)
    out = subprocess.run(["zbarimg", "--raw", "-q", "-Si25.enable", str(png)], capture_output=True, text=True)
    assert out.stdout.strip() == GPS_BARCODE
