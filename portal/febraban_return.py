"""The collecting bank's return file of barcode collections ("arrecadação"), FEBRABAN layout.

Layout from FEBRABAN's "Layout Padrão de Arrecadação/Recebimento com Utilização do Código de
Barras", chapter "Retorno das informações" (file layout version 05 in field A.09, in use since
01.08.2016; version 04 has the same A, G and Z records). Fixed-width records of 150
positions; numeric fields right-aligned with zeros, alphanumeric left-aligned with blanks;
values in cents without a decimal mark.

Registro A — header (once, first)::

  1       A.01 record code "A"
  2       A.02 remittance code: 1 remessa (company → bank), 2 retorno (bank → company)
  3–22    A.03 convênio code (set by the bank)
  23–42   A.04 company/agency name
  43–45   A.05 bank code at the clearing house
  46–65   A.06 bank name
  66–73   A.07 file date AAAAMMDD
  74–79   A.08 NSA, file sequence number
  80–81   A.09 layout version (04, 05)
  82–98   A.10 service "CODIGO DE BARRAS"
  99–150  A.11 reserved

Registro G — one collection identified by its barcode::

  1       G.01 record code "G"
  2–21    G.02 account credited (bank, agency, account, digit)
  22–29   G.03 payment date AAAAMMDD
  30–37   G.04 credit date AAAAMMDD
  38–81   G.05 the barcode, 44 digits
  82–93   G.06 amount received, 12 digits in cents
  94–100  G.07 bank fee per payment, 7 digits in cents
  101–108 G.08 NSR, record sequence number
  109–116 G.09 collecting agency code
  117     G.10 channel (1 teller, 2 ATM/home banking, 3 internet, …)
  118–140 G.11 authentication number or transaction code
  141     G.12 payment form (1 cash, 2 cheque, 3 other)
  142–150 G.13 reserved

Registro Z — trailer (once, last)::

  1       Z.01 record code "Z"
  2–7     Z.02 records in the file, header and trailer included
  8–24    Z.03 total amount of the file's records, 17 digits in cents
  25–150  Z.04 reserved

This module only reads the file (pure, no database): the portal decides what each record means.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

RECORD_LENGTH = 150
LAYOUT_VERSIONS = {"04", "05"}
RETURN_CODE = "2"


class ReturnFileError(ValueError):
    """The file is not a readable FEBRABAN collection return file (refused as a whole)."""


@dataclass(frozen=True)
class Header:
    convenio: str
    company: str
    bank_code: str
    bank_name: str
    file_date: date
    sequence: str
    version: str


@dataclass(frozen=True)
class Detail:
    """One registro G, or the reason it could not be read (``error``)."""

    line_no: int
    raw: str
    account: str = ""
    paid_on: date | None = None
    credited_on: date | None = None
    barcode: str = ""
    amount: Decimal | None = None
    bank_fee: Decimal | None = None
    nsr: str = ""
    agency: str = ""
    channel: str = ""
    authentication: str = ""
    payment_form: str = ""
    error: str = ""

    @property
    def identity_fields(self) -> tuple:
        """What makes the payment itself (not the record): the same payment reported again in
        another file has another NSR and credit date but the same barcode, date, amount,
        agency, channel and authentication."""
        return ("febraban", self.barcode, self.paid_on.isoformat() if self.paid_on else "",
                str(self.amount), self.agency.strip(), self.channel.strip(), self.authentication.strip())


@dataclass(frozen=True)
class ReturnFile:
    header: Header
    details: list[Detail] = field(default_factory=list)
    total_records: int = 0
    total_amount: Decimal = Decimal("0.00")


def _date(raw: str) -> date:
    if not raw.isdigit() or len(raw) != 8:
        raise ValueError(raw)
    return date(int(raw[:4]), int(raw[4:6]), int(raw[6:]))


def _cents(raw: str) -> Decimal:
    if not raw.isdigit():
        raise ValueError(raw)
    return (Decimal(int(raw)) / 100).quantize(Decimal("0.01"))


def _record(line: str, line_no: int) -> str:
    """The 150 positions of a line. Tools that strip trailing blanks leave a shorter line whose
    missing part is the reserved filler, so it is padded back; a longer line is not a record."""
    text = line.rstrip("\r\n")
    if len(text) > RECORD_LENGTH:
        raise ReturnFileError(f"Linha {line_no}: registro com {len(text)} posições (o layout tem {RECORD_LENGTH}).")
    return text.ljust(RECORD_LENGTH)


def parse_header(rec: str) -> Header:
    if rec[1] != RETURN_CODE:
        raise ReturnFileError("Registro A: o código de remessa não é 2 (retorno do banco para a Prefeitura).")
    version = rec[79:81]
    if version not in LAYOUT_VERSIONS:
        raise ReturnFileError(f"Registro A: versão do layout {version!r} não reconhecida (use 04 ou 05).")
    if rec[81:98].strip().upper().replace("Ó", "O") != "CODIGO DE BARRAS":
        raise ReturnFileError("Registro A: o serviço não é “CODIGO DE BARRAS” (arrecadação por código de barras).")
    try:
        file_date = _date(rec[65:73])
    except ValueError:
        raise ReturnFileError("Registro A: data de geração inválida (AAAAMMDD).") from None
    return Header(convenio=rec[2:22].strip(), company=rec[22:42].strip(), bank_code=rec[42:45],
                  bank_name=rec[45:65].strip(), file_date=file_date, sequence=rec[73:79], version=version)


def parse_detail(rec: str, line_no: int) -> Detail:
    base = {"line_no": line_no, "raw": rec}
    try:
        paid_on, credited_on = _date(rec[21:29]), _date(rec[29:37])
    except ValueError:
        return Detail(**base, error="Data de pagamento ou de crédito inválida (AAAAMMDD).")
    barcode = rec[37:81]
    if not barcode.isdigit():
        return Detail(**base, error="Código de barras sem 44 dígitos.")
    try:
        amount, bank_fee = _cents(rec[81:93]), _cents(rec[93:100])
    except ValueError:
        return Detail(**base, error="Valor recebido ou tarifa não numérico.")
    return Detail(**base, account=rec[1:21].strip(), paid_on=paid_on, credited_on=credited_on, barcode=barcode,
                  amount=amount, bank_fee=bank_fee, nsr=rec[100:108], agency=rec[108:116].strip(),
                  channel=rec[116], authentication=rec[117:140].strip(), payment_form=rec[140])


def parse_return_file(text: str) -> ReturnFile:
    """Read the whole file: one A first, G records, one Z last whose counts match. A missing or
    inconsistent header or trailer refuses the file (it may be truncated or another layout);
    an unreadable G is kept with its ``error`` so that it is reported, never dropped."""
    lines = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if len(lines) < 2:
        raise ReturnFileError("Arquivo sem o registro A (header) e o registro Z (trailer).")
    first_no, first = lines[0]
    last_no, last = lines[-1]
    if not first.startswith("A"):
        raise ReturnFileError("O primeiro registro não é o A (header) do layout FEBRABAN de arrecadação.")
    if not last.startswith("Z"):
        raise ReturnFileError("O último registro não é o Z (trailer): o arquivo pode estar incompleto.")
    header = parse_header(_record(first, first_no))
    details: list[Detail] = []
    for line_no, line in lines[1:-1]:
        rec = _record(line, line_no)
        if rec[0] != "G":
            details.append(Detail(line_no=line_no, raw=rec,
                                  error=f"Registro {rec[0]!r} não é de arrecadação por código de barras (G)."))
            continue
        details.append(parse_detail(rec, line_no))
    trailer = _record(last, last_no)
    try:
        total_records, total_amount = int(trailer[1:7]), _cents(trailer[7:24])
    except ValueError:
        raise ReturnFileError("Registro Z: total de registros ou valor total não numérico.") from None
    if total_records != len(lines):
        raise ReturnFileError(f"Registro Z: informa {total_records} registros, o arquivo tem {len(lines)}: "
                              "o arquivo pode estar incompleto.")
    read_total = sum((d.amount for d in details if d.amount is not None), Decimal("0.00"))
    if not any(d.error for d in details) and read_total != total_amount:
        raise ReturnFileError(f"Registro Z: valor total {total_amount} difere da soma dos registros G ({read_total}).")
    return ReturnFile(header=header, details=details, total_records=total_records, total_amount=total_amount)


# --- writing (the tests' and a bank simulator's side of the same layout) -------------------
def header_record(*, convenio: str, company: str, bank_code: str, bank_name: str, file_date: date,
                  sequence: int, version: str = "05") -> str:
    rec = ("A" + RETURN_CODE + convenio[:20].ljust(20) + company[:20].ljust(20) + bank_code.zfill(3)[:3]
           + bank_name[:20].ljust(20) + file_date.strftime("%Y%m%d") + f"{sequence:06d}" + version
           + "CODIGO DE BARRAS".ljust(17))
    return rec.ljust(RECORD_LENGTH)


def detail_record(*, account: str, paid_on: date, credited_on: date, barcode: str, amount: Decimal, nsr: int,
                  bank_fee: Decimal = Decimal("0"), agency: str = "", channel: str = "1",
                  authentication: str = "", payment_form: str = "1") -> str:
    rec = ("G" + account[:20].ljust(20) + paid_on.strftime("%Y%m%d") + credited_on.strftime("%Y%m%d")
           + barcode + f"{int(amount * 100):012d}" + f"{int(bank_fee * 100):07d}" + f"{nsr:08d}"
           + agency[:8].ljust(8) + channel[:1].ljust(1) + authentication[:23].ljust(23) + payment_form[:1])
    return rec.ljust(RECORD_LENGTH)


def trailer_record(*, total_records: int, total_amount: Decimal) -> str:
    return ("Z" + f"{total_records:06d}" + f"{int(total_amount * 100):017d}").ljust(RECORD_LENGTH)
