"""Static Pix BR Code: CRC16-CCITT-FALSE checked against published example payloads."""

from decimal import Decimal

import pytest

from portal.pix import PixError, brcode_payload, crc16_ccitt_false, parse_tlv, payload_is_valid

# Example of a static BR Code in the Banco Central "Manual de Padrões para Iniciação do Pix"
# (random key, no amount, txid ***), with its published CRC 1D3D.
BCB_MANUAL_EXAMPLE = (
    "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR"
    "5913Fulano de Tal6008BRASILIA62070503***63041D3D"
)
# Static example with a phone key and an amount (R$ 66,66), field by field with CRC 170E, from
# github.com/matheusb-comp gist "Exemplos de formato PIX" (Manual de Padrões, seção 6.1).
PHONE_EXAMPLE = (
    "00020126360014BR.GOV.BCB.PIX0114+5511943214321520400005303986540566.665802BR5907EMPRESA"
    "6008BRASILIA62080503***6304170E"
)


@pytest.mark.parametrize("payload", [BCB_MANUAL_EXAMPLE, PHONE_EXAMPLE])
def test_crc_matches_published_examples(payload):
    assert crc16_ccitt_false(payload[:-4]) == payload[-4:]
    assert payload_is_valid(payload)


def test_crc16_check_value():
    # The CRC-16/CCITT-FALSE catalogue check value for "123456789" is 0x29B1.
    assert crc16_ccitt_false("123456789") == "29B1"


def test_builder_reproduces_the_manual_example():
    payload = brcode_payload(key="123e4567-e12b-12d1-a456-426655440000", name="Fulano de Tal", city="BRASILIA",
                             normalize=False)
    assert payload == BCB_MANUAL_EXAMPLE


def test_builder_with_amount_txid_and_accents():
    payload = brcode_payload(key="gabinete@itagiba.ba.gov.br", name="Prefeitura Municipal de Itagibá",
                             city="Itagibá", amount=Decimal("95"), txid="DAM001/2026")
    fields = parse_tlv(payload)
    assert fields["00"] == "01" and fields["53"] == "986" and fields["54"] == "95.00" and fields["58"] == "BR"
    assert fields["59"] == "PREFEITURA MUNICIPAL DE IT"[:25] and len(fields["59"]) <= 25
    assert fields["60"] == "ITAGIBA"
    assert parse_tlv(fields["26"]) == {"00": "br.gov.bcb.pix", "01": "gabinete@itagiba.ba.gov.br"}
    assert parse_tlv(fields["62"]) == {"05": "DAM0012026"}
    assert payload_is_valid(payload)
    tampered = payload.replace("95.00", "96.00")
    assert not payload_is_valid(tampered)


def test_builder_refuses_missing_key_and_bad_amount():
    with pytest.raises(PixError):
        brcode_payload(key="", name="X", city="Y")
    with pytest.raises(PixError):
        brcode_payload(key="k", name="X", city="Y", amount="0")
