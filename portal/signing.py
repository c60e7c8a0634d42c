"""Digital signature of issued PDFs: PAdES (PDF Advanced Electronic Signature) with pyHanko.

The administrator configures the PKCS#12 certificate of the signing authority or of the
Prefeitura (an ICP-Brasil A1): ``SIGNING_CERT_FILE`` and ``SIGNING_CERT_PASSWORD``, and a
timestamp authority in ``SIGNING_TSA_URL`` where one is contracted. In an installation of several
municipalities each Prefeitura signs its own acts: ``{municipio}`` in ``SIGNING_CERT_FILE`` (and
in ``SIGNING_CERT_PASSWORD_FILE``, a file holding the password) is the slug of the municipality
whose document is signed; a municipality whose file is not there issues unsigned documents,
which say so, as an installation without a certificate does. Without a certificate, a
first run (DEBUG or tests) creates self-signed demonstration certificates under ``VAR_DIR``, one
per municipality and named after its Prefeitura (each municipality signs its own acts: an
alvará of one must never read "signed by" another), all on one demonstration key; their
documents say, on the page and in the signature, that the certificate has no legal value.
In production without a certificate, documents are issued unsigned and say so.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import io
import os
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.validators import slug_re

DEMO_MARK = "CERTIFICADO DE DEMONSTRAÇÃO — SEM VALIDADE JURÍDICA"
_lock = threading.Lock()
_cache: dict[tuple, object] = {}
SIGNERS_KEPT = 64  # loaded certificates kept per process (one per municipality in demonstration)


@dataclass(frozen=True)
class SigningIdentity:
    """Who signs, as shown on the document and on the verification page."""

    subject: str
    demo: bool


@dataclass(frozen=True)
class SignatureCheck:
    """What a validation of a signed PDF found."""

    signed: bool
    intact: bool
    trusted: bool
    signer: str
    covers_whole_file: bool
    message: str


def _demo_dir() -> Path:
    return Path(settings.VAR_DIR) / "signing"


def demo_certificate_path(holder: str) -> Path:
    """The demonstration certificate of ``holder`` (a Prefeitura's name): its file name carries a
    hash of the name, so a renamed municipality gets a certificate with its new name."""
    digest = hashlib.sha256(holder.encode()).hexdigest()[:16]
    return _demo_dir() / f"certificado-demonstracao-{digest}.p12"


def _demo_password() -> bytes:
    return b"demonstracao"


def _demo_key():
    """The one RSA key of every demonstration certificate, created on first use (generating a
    key takes ~0,1 s; a certificate for it, a millisecond)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    path = _demo_dir() / "chave-demonstracao.pem"
    if path.exists():
        return serialization.load_pem_private_key(path.read_bytes(), password=_demo_password())
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    _write_atomically(path, key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                              serialization.BestAvailableEncryption(_demo_password())))
    return key


def _write_atomically(path: Path, blob: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(blob)
    tmp.replace(path)  # atomic: two workers starting together never read half a file


def create_demo_certificate(path: Path, common_name: str) -> Path:
    """A self-signed certificate for ``common_name`` on the demonstration key, with the key in a
    PKCS#12 file, marked as a demonstration."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.serialization import pkcs12
    from cryptography.x509.oid import NameOID

    key = _demo_key()
    name = x509.Name([
        x509.NameAttribute(NameOID.COUNTRY_NAME, "BR"),
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, common_name[:64]),
        x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, DEMO_MARK[:64]),
        x509.NameAttribute(NameOID.COMMON_NAME, f"{common_name} (demonstração)"[:64]),
    ])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1)).not_valid_after(now + dt.timedelta(days=3650))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=True, key_encipherment=False,
                                     data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                     crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
        .sign(key, hashes.SHA256())
    )
    blob = pkcs12.serialize_key_and_certificates(
        b"portal-demo", key, cert, None, serialization.BestAvailableEncryption(_demo_password()),
    )
    _write_atomically(path, blob)
    return path


def _demo_holder() -> str:
    """Whose documents are being signed: the Prefeitura of the municipality in scope."""
    from portal import regulation

    pack = regulation.current(required=False)
    return f"Prefeitura Municipal de {pack.name}" if pack is not None and pack.name else "Portal municipal de táxi"


MUNICIPALITY_PLACEHOLDER = "{municipio}"


def _for_municipality(template: str) -> str | None:
    """``template`` with ``{municipio}`` replaced by the slug of the municipality in scope; None
    when it names one and none is in scope."""
    if MUNICIPALITY_PLACEHOLDER not in template:
        return template
    from portal import tenancy

    scope = tenancy.current()
    # the check Municipality.slug's SlugField makes: letters, digits, "-" and "_" never leave the directory
    if scope is None or not slug_re.match(scope.slug):
        return None
    return template.replace(MUNICIPALITY_PLACEHOLDER, scope.slug)


def _configured_password() -> bytes:
    """SIGNING_CERT_PASSWORD_FILE's content (its last line break dropped), else
    SIGNING_CERT_PASSWORD. Called once the certificate file was found: a missing password
    file is a mistake of the installation, said as such, not a reason to sign nothing."""
    password_file = getattr(settings, "SIGNING_CERT_PASSWORD_FILE", "")
    if not password_file:
        return (getattr(settings, "SIGNING_CERT_PASSWORD", "") or "").encode()
    path = _for_municipality(password_file)
    if path is None or not Path(path).is_file():
        raise RuntimeError(f"O arquivo da senha do certificado de assinatura ({path or password_file}) não existe.")
    return Path(path).read_bytes().rstrip(b"\r\n")


def _certificate_source() -> tuple[Path, bytes, bool] | None:
    configured = getattr(settings, "SIGNING_CERT_FILE", "")
    if configured:
        path = _for_municipality(configured)
        if path is None or (MUNICIPALITY_PLACEHOLDER in configured and not Path(path).is_file()):
            return None  # no municipality, or this one has no certificate (yet): unsigned, and the PDF says so
        return Path(path), _configured_password(), False
    if getattr(settings, "SIGNING_DEMO_CERTIFICATE", False):
        holder = _demo_holder()
        path = demo_certificate_path(holder)
        if not path.exists():
            with _lock:
                if not path.exists():
                    create_demo_certificate(path, holder)
        return path, _demo_password(), True
    return None


def _signer():
    """The pyHanko signer for the configured certificate (loaded once per file and mtime)."""
    source = _certificate_source()
    if source is None:
        return None, None
    path, password, demo = source
    key = (str(path), path.stat().st_mtime, demo)
    cached = _cache.get(key)
    if cached is None:
        from pyhanko.sign import signers

        loaded = signers.SimpleSigner.load_pkcs12(str(path), passphrase=password or None)
        if loaded is None:
            raise RuntimeError(f"Não foi possível abrir o certificado de assinatura {path} (senha errada?).")
        signer = _kept_key_signer(loaded)
        subject = _common_name(signer.signing_cert)
        cached = (signer, SigningIdentity(subject=subject, demo=demo))
        with _lock:
            if len(_cache) >= SIGNERS_KEPT:  # replaced certificate files (new mtime), many municipalities
                _cache.pop(next(iter(_cache)))
            _cache[key] = cached
    return cached


def _kept_key_signer(loaded):
    """pyHanko's SimpleSigner parses the private key from DER on every raw signature, twice per
    document (the size estimate and the signature), and OpenSSL validates an RSA key as it
    parses it: about 40 ms each time, more than rendering an alvará. This signer parses the key
    once; RSA PKCS#1 v1.5 (ICP-Brasil A1 certificates) is signed with it, any other mechanism
    goes through pyHanko's own path."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.padding import PKCS1v15
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey
    from pyhanko.sign import signers
    from pyhanko_certvalidator.util import get_pyca_cryptography_hash

    class KeptKeySigner(signers.SimpleSigner):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self._key = serialization.load_der_private_key(self.signing_key.dump(), password=None)

        def sign_raw(self, data: bytes, digest_algorithm: str) -> bytes:
            try:
                algo = self.get_signature_mechanism_for_digest(digest_algorithm).signature_algo
            except ValueError:
                algo = None
            if algo == "rsassa_pkcs1v15" and isinstance(self._key, RSAPrivateKey):
                return self._key.sign(data, PKCS1v15(), get_pyca_cryptography_hash(digest_algorithm))
            return super().sign_raw(data, digest_algorithm)

    return KeptKeySigner(signing_cert=loaded.signing_cert, signing_key=loaded.signing_key,
                         cert_registry=loaded.cert_registry)


def _common_name(cert) -> str:
    """The certificate's common name (ICP-Brasil: "NOME:CPF/CNPJ"), else its whole subject."""
    native = cert.subject.native
    return native.get("common_name") or cert.subject.human_friendly


def signing_identity() -> SigningIdentity | None:
    """Who will sign documents now (for the PDF's visible note), or None when unsigned."""
    return _signer()[1]


def sign_pdf(pdf: bytes, *, reason: str, location: str) -> tuple[bytes, SigningIdentity | None]:
    """``pdf`` with a PAdES baseline signature appended (incremental update), and the signer.

    Returns the bytes unchanged and ``None`` when no certificate is configured.
    """
    signer, identity = _signer()
    if signer is None:
        return pdf, None
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.sign import fields, signers

    timestamper = None
    tsa = getattr(settings, "SIGNING_TSA_URL", "")
    if tsa:
        from pyhanko.sign.timestamps import HTTPTimeStamper

        timestamper = HTTPTimeStamper(tsa)
    meta = signers.PdfSignatureMetadata(
        field_name="AssinaturaDigital", md_algorithm="sha256", subfilter=fields.SigSeedSubFilter.PADES,
        reason=(f"{reason} — {DEMO_MARK}" if identity.demo else reason)[:200], location=location[:100],
    )

    def sign(reserved: int | None) -> bytes:
        writer = IncrementalPdfFileWriter(io.BytesIO(pdf), strict=False)
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # the usual case: a worker or a request thread without an event loop
            out = signers.sign_pdf(writer, meta, signer=signer, timestamper=timestamper, bytes_reserved=reserved)
        else:
            # pyHanko runs its own loop (asyncio.run), which refuses to start inside a running one
            # (an async server, a browser-driven test): sign in a thread of its own
            with ThreadPoolExecutor(max_workers=1) as pool:
                out = pool.submit(signers.sign_pdf, writer, meta, signer=signer, timestamper=timestamper,
                                  bytes_reserved=reserved).result()
        return out.getvalue()

    key = (signer.signing_cert.sha256, tsa)
    reserved = _reserved.get(key)
    if reserved is not None:
        from pyhanko.sign.general import SigningError

        try:
            return sign(reserved), identity
        except SigningError:  # a signature that outgrew the room (a new timestamp authority's chain)
            _reserved.pop(key, None)
    signed = sign(None)
    measured = _room_reserved(signed)
    if measured is not None:
        with _lock:
            if len(_reserved) >= SIGNERS_KEPT:
                _reserved.pop(next(iter(_reserved)))
            _reserved[key] = measured
    return signed, identity


# The room a signature takes in the PDF (its CMS, in hex) is estimated by pyHanko by signing a
# dummy digest first: a third of each signature's time. The estimate depends only on the
# certificate and the timestamp authority, and already carries pyHanko's 50 % margin, so the
# room of the first signature by a certificate (with its authority) is reused for the next ones
# in this process; a signature that does not fit is signed again with a new estimate.
_reserved: dict[tuple, int] = {}
_BYTE_RANGE = re.compile(rb"/ByteRange\s*\[\s*\d+\s+(\d+)\s+(\d+)\s+\d+\s*\]")


def _room_reserved(signed: bytes) -> int | None:
    """The hex digits reserved for the newest signature of ``signed``: the gap its /ByteRange
    leaves, less the two angle brackets around /Contents."""
    ranges = _BYTE_RANGE.findall(signed)
    if not ranges:
        return None
    first_end, second_start = ranges[-1]
    return int(second_start) - int(first_end) - 2


def validate_pdf(pdf: bytes) -> SignatureCheck:
    """Check the signature of ``pdf``: present, intact (no byte changed), by a trusted certificate
    (the configured one) and covering the whole file."""
    from pyhanko.pdf_utils.reader import PdfFileReader
    from pyhanko.sign.validation import validate_pdf_signature
    from pyhanko_certvalidator import ValidationContext

    try:
        reader = PdfFileReader(io.BytesIO(pdf), strict=False)
        signatures = reader.embedded_signatures
    except Exception:  # not a PDF pyHanko can read: certainly not the one issued
        return SignatureCheck(False, False, False, "", False, "O arquivo não é um PDF legível.")
    if not signatures:
        return SignatureCheck(False, False, False, "", False, "O PDF não tem assinatura digital.")
    signer, _ = _signer()
    roots = [signer.signing_cert] if signer is not None else []
    context = ValidationContext(trust_roots=roots, allow_fetching=False)
    embedded = signatures[-1]
    try:
        status = validate_pdf_signature(embedded, context)
    except Exception as exc:  # a mangled signature is a failed check, not a crash
        return SignatureCheck(True, False, False, "", False, f"Assinatura inválida: {exc.__class__.__name__}.")
    whole = status.coverage is not None and status.coverage.name == "ENTIRE_FILE"
    signer_name = _common_name(status.signing_cert) if status.signing_cert else ""
    if not status.intact:
        msg = "O conteúdo foi alterado depois da assinatura."
    elif not status.trusted:
        msg = "Assinatura íntegra, mas de um certificado que não é o do emissor."
    elif not whole:
        msg = "Assinatura íntegra, mas o arquivo recebeu conteúdo depois dela."
    else:
        msg = "Assinatura válida."
    return SignatureCheck(True, bool(status.intact), bool(status.trusted), signer_name, whole, msg)
