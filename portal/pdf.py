"""PDF rendering with WeasyPrint, QR codes and a URL fetcher restricted to our static files."""

from __future__ import annotations

import atexit
import base64
import gc
import io
import mimetypes
import re
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import qrcode
import qrcode.image.svg
from django.conf import settings
from django.template.loader import render_to_string


class PdfUnavailable(RuntimeError):
    """WeasyPrint or the system libraries it needs (Pango) are missing."""


STATIC_PREFIX = "portal-static:"


def _static_root() -> Path:
    return Path(settings.BASE_DIR, "static").resolve()


def _fetch_static(url: str) -> tuple[bytes, str]:
    """Bytes and mime type of a ``portal-static:`` URL or a data: URI; anything else refused."""
    if url.startswith("data:"):
        header, _, payload = url.partition(",")
        mime = header[5:].split(";")[0] or "application/octet-stream"
        raw = base64.b64decode(payload) if ";base64" in header else payload.encode()
        return raw, mime
    if url.startswith(STATIC_PREFIX):
        root = _static_root()
        target = (root / url[len(STATIC_PREFIX):].lstrip("/")).resolve()
        if root in target.parents and target.is_file():
            return target.read_bytes(), mimetypes.guess_type(target.name)[0] or "application/octet-stream"
    raise ValueError(f"Recurso externo bloqueado no PDF: {url[:80]}")


def _make_fetcher():
    from weasyprint.urls import URLFetcher, URLFetcherResponse

    class StaticOnlyFetcher(URLFetcher):
        """No network, no file:// outside static/, no redirects."""

        def fetch(self, url, headers=None):
            body, mime = _fetch_static(url)
            return URLFetcherResponse(url, body=body, headers={"Content-Type": mime})

    return StaticOnlyFetcher(allowed_protocols=(), allow_redirects=False)


def render_pdf(template_name: str, context: dict) -> bytes:
    """Render a template to a PDF (A4, tagged for accessibility where supported)."""
    try:
        from weasyprint import HTML
    except (ImportError, OSError) as exc:  # pragma: no cover - depends on the machine
        raise PdfUnavailable(
            "Gerar PDF requer o WeasyPrint e as bibliotecas Pango do sistema "
            "(Debian/Ubuntu: apt-get install libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz0b)."
        ) from exc
    html = render_to_string(template_name, {"static_prefix": STATIC_PREFIX, **context})
    html, stylesheet = _split_styles(html)
    with _collector_paused():
        document = HTML(string=html, base_url=STATIC_PREFIX, url_fetcher=_make_fetcher())
        return document.write_pdf(pdf_variant="pdf/ua-1", stylesheets=[stylesheet] if stylesheet else None,
                                  font_config=_font_config())


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while WeasyPrint lays out and writes one document.

    A render allocates hundreds of thousands of objects (boxes, styles, glyph runs) that live
    until it ends: the young collections that run meanwhile find them in use and promote them,
    until the oldest generation needs a full collection of the whole process (~100 ms with
    Django and WeasyPrint loaded) every 15 to 20 documents — 5 to 15 % of rendering and signing
    a batch of alvarás. Paused, the render's objects are freed by reference counting when it
    ends, and the next young collection takes whatever cycles are left (peak memory measured
    the same). The pause lasts one document, and a collector disabled by someone else stays
    disabled."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


# Parsing a document's CSS and loading its @font-face fonts (four DejaVu files, 2,2 MB) took
# about 40 % of rendering an act or an alvará, and it is the same for every document of a
# template: the <style> blocks are parsed once into a stylesheet kept with the one
# FontConfiguration of the process (WeasyPrint ties the fonts of a stylesheet to it).
_STYLE_BLOCK = re.compile(r"<style[^>]*>(.*?)</style>", re.S | re.I)
_STYLESHEETS: OrderedDict[str, object] = OrderedDict()
_STYLESHEETS_KEPT = 32
_FONT_CONFIG: list = []


def _font_config():
    if not _FONT_CONFIG:
        from weasyprint.text.fonts import FontConfiguration

        _FONT_CONFIG.append(FontConfiguration())
        # released before the interpreter tears modules down (its __del__ needs them)
        atexit.register(_FONT_CONFIG.clear)
        atexit.register(_STYLESHEETS.clear)
    return _FONT_CONFIG[0]


def _split_styles(html: str) -> tuple[str, object | None]:
    """The HTML without its <style> blocks, and those blocks as one parsed stylesheet (kept by
    their text). Passed as ``stylesheets`` they cascade as author styles after the document's,
    which are gone: the same cascade as the blocks in place."""
    blocks = _STYLE_BLOCK.findall(html)
    if not blocks:
        return html, None
    text = "\n".join(blocks)
    sheet = _STYLESHEETS.get(text)
    if sheet is None:
        from weasyprint import CSS

        sheet = CSS(string=text, base_url=STATIC_PREFIX, url_fetcher=_make_fetcher(), font_config=_font_config())
        _STYLESHEETS[text] = sheet
        while len(_STYLESHEETS) > _STYLESHEETS_KEPT:
            _STYLESHEETS.popitem(last=False)
    else:
        _STYLESHEETS.move_to_end(text)
    return _STYLE_BLOCK.sub("", html), sheet


def qr_svg_data_uri(data: str) -> str:
    """A QR code for ``data`` as an SVG data URI (for PDFs and pages)."""
    img = qrcode.make(data, image_factory=qrcode.image.svg.SvgPathImage, box_size=10, border=2)
    buf = io.BytesIO()
    img.save(buf)
    return "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode()


def qr_png_data_uri(data: str, *, module_px: int = 8) -> str:
    """A QR code for ``data`` as a black-and-white PNG data URI, for PDFs.

    WeasyPrint parses an SVG path of thousands of commands on every render (about 14 ms for the
    verification link); a PNG is decoded in a fraction of that. The mask is fixed (pattern 0,
    any of the 8 is valid for readers: ISO/IEC 18004 §7.8) so that qrcode does not score all
    eight, and 8 px per module prints at over 300 dpi in the 20 mm of the footer.
    ``module_px=4`` (the grant documents' footer, drawn with ``image-rendering: pixelated``)
    is a sixteenth of the pixels and still about 200 ppi in 20 mm. Not 1 px per module: viewers
    and rasterizers that smooth images anyway (poppler does, /Interpolate false or not) blur a
    37-pixel image drawn at 20 mm so much that at 150 dpi zbar no longer decodes it.

    The image is 8-bit grey (0 and 255 only) built from the module matrix in one go: qrcode's
    own image drew each module as a rectangle, and WeasyPrint turns a 1-bit PNG into RGB and
    encodes it as PNG twice more on every render, while a grey PNG goes into the PDF as
    /DeviceGray with one re-encoding (about 2 ms less per grant document, same pixels)."""
    from PIL import Image

    code = qrcode.QRCode(box_size=module_px, border=2, mask_pattern=0)
    code.add_data(data)
    code.make(fit=True)
    matrix = code.get_matrix()  # the modules with the 2-module quiet zone, True = dark
    side = len(matrix)
    image = Image.frombytes("L", (side, side), bytes(0 if dark else 255 for row in matrix for dark in row))
    image = image.resize((side * module_px, side * module_px), Image.NEAREST)
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def verification_url(code: str) -> str:
    from portal.site_url import site_url

    return f"{site_url()}/verificar/{code}/"


UF_NAMES = {  # "Estado d…" with the article each state takes
    "AC": "do Acre", "AL": "de Alagoas", "AP": "do Amapá", "AM": "do Amazonas", "BA": "da Bahia",
    "CE": "do Ceará", "DF": "do Distrito Federal", "ES": "do Espírito Santo", "GO": "de Goiás",
    "MA": "do Maranhão", "MT": "de Mato Grosso", "MS": "de Mato Grosso do Sul", "MG": "de Minas Gerais",
    "PA": "do Pará", "PB": "da Paraíba", "PR": "do Paraná", "PE": "de Pernambuco", "PI": "do Piauí",
    "RJ": "do Rio de Janeiro", "RN": "do Rio Grande do Norte", "RS": "do Rio Grande do Sul",
    "RO": "de Rondônia", "RR": "de Roraima", "SC": "de Santa Catarina", "SP": "de São Paulo",
    "SE": "de Sergipe", "TO": "do Tocantins",
}


def document_context(pack, *, title: str, number: str = "", legal_basis: str = "", code: str = "") -> dict:
    """The context every issued document's template shares: the municipality and state, the
    title and number, its legal basis, when it was generated and, with a verification code,
    the verification address and its QR code."""
    from django.utils import timezone

    ctx = {"pack": pack, "state_name": UF_NAMES.get(pack.uf, pack.uf), "title": title, "number": number,
           "legal_basis": legal_basis, "generated_at": timezone.localtime(timezone.now(), pack.tz)}
    if code:
        url = verification_url(code)
        ctx.update({"verification_code": code, "verify_url": url, "qr": qr_png_data_uri(url)})
    return ctx
