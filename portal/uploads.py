"""Uploads of personal documents: judged by content and size, stored outside the web root
under server-generated names, served only through views that check who asks."""

from __future__ import annotations

import io
import uuid
from pathlib import PurePosixPath

import filetype
from django.conf import settings
from django.core.exceptions import ValidationError
from django.http import FileResponse

ALLOWED = {"application/pdf": "pdf", "image/jpeg": "jpg", "image/png": "png"}
_PNG_END = b"IEND\xaeB`\x82"
_ACTIVE_MARKERS = (b"<script", b"<html", b"<svg", b"<?php", b"<!doctype")


def _human_size(n: int) -> str:
    return f"{n / (1024 * 1024):.0f} MB" if n >= 1024 * 1024 else f"{n // 1024} KB"


def _named(label: str | None) -> str:
    return f"“{label}”" if label else "enviado"


def sniff_upload(data: bytes, *, label: str | None = None) -> str:
    """Return the mime type of a valid PDF, JPEG or PNG, or raise ValidationError.

    ``label`` (the field or the file's name) is named in the messages about active content."""
    limit = settings.UPLOAD_MAX_BYTES
    if not data:
        raise ValidationError("O arquivo está vazio. Envie um PDF, JPEG ou PNG.", code="empty")
    if len(data) > limit:
        raise ValidationError(
            f"O arquivo tem mais de {_human_size(limit)}. Reduza o tamanho (por exemplo, "
            "digitalize em 150 dpi) e envie de novo.",
            code="too_large",
        )
    kind = filetype.guess(data)
    mime = kind.mime if kind else None
    if mime not in ALLOWED:
        raise ValidationError(
            "Tipo de arquivo não aceito: envie um PDF, JPEG ou PNG (o conteúdo é verificado, "
            "não só o nome).",
            code="type",
        )
    head = data[:4096].lower()
    if mime == "application/pdf":
        if not data.startswith(b"%PDF-") or b"%%EOF" not in data[-2048:]:
            raise ValidationError(
                "O PDF está incompleto ou corrompido. Gere o arquivo de novo e envie.", code="pdf"
            )
        found = pdf_active_content(data)
        if found:
            raise ValidationError(
                f"O PDF {_named(label)} contém {found}, que não são aceitos em documentos enviados ao "
                "portal. Gere o PDF de novo sem esses recursos (por exemplo, “Imprimir como PDF” ou "
                "digitalizando o papel) e envie.",
                code="pdf_active",
            )
        return mime
    # Images: must decode, must end where the format ends, no markup inside.
    if any(marker in head for marker in _ACTIVE_MARKERS):
        raise ValidationError("A imagem contém conteúdo não permitido.", code="markup")
    if mime == "image/png" and not data.rstrip(b"\x00").endswith(_PNG_END):
        raise ValidationError("A imagem PNG está incompleta ou contém dados extras.", code="png")
    if mime == "image/jpeg" and not data.rstrip(b"\x00\r\n ").endswith(b"\xff\xd9"):
        raise ValidationError("A imagem JPEG está incompleta ou contém dados extras.", code="jpeg")
    from PIL import Image

    max_pixels = int(getattr(settings, "UPLOAD_MAX_PIXELS", 40_000_000))
    try:
        with Image.open(io.BytesIO(data)) as img:  # reads the header only: no pixel is decoded
            width, height = img.size
            if width * height > max_pixels:
                raise ValidationError(
                    f"A imagem {_named(label)} tem {width} × {height} pixels, acima do limite de "
                    f"{max_pixels // 1_000_000} milhões. Reduza a resolução e envie de novo.",
                    code="pixels",
                )
            img.verify()
    except ValidationError:
        raise
    except Image.DecompressionBombError as exc:
        raise ValidationError(
            f"A imagem {_named(label)} tem pixels demais. Reduza a resolução e envie de novo.", code="pixels"
        ) from exc
    except Exception as exc:
        raise ValidationError("A imagem está corrompida. Envie outra cópia.", code="image") from exc
    return mime


_PDF_ACTIVE_LABELS = {
    "javascript": "JavaScript",
    "launch": "ações que abrem programas",
    "auto": "ações automáticas",
    "embedded": "arquivos embutidos",
}
_ACTIVE_ACTIONS = {"/JavaScript": "javascript", "/Launch": "launch", "/ImportData": "launch",
                   "/SubmitForm": "auto", "/Rendition": "auto"}


def _action_kind(action) -> str | None:
    """What an action dictionary (or a chain of /Next actions) does that is refused."""
    seen = 0
    while action is not None and seen < 20:
        seen += 1
        try:
            action = action.get_object()
        except AttributeError:
            pass
        if not hasattr(action, "get"):
            return None
        if "/JS" in action:
            return "javascript"
        kind = _ACTIVE_ACTIONS.get(str(action.get("/S", "")))
        if kind:
            return kind
        nxt = action.get("/Next")
        if isinstance(nxt, list):
            for item in nxt:
                found = _action_kind(item)
                if found:
                    return found
            return None
        action = nxt
    return None


def pdf_active_content(data: bytes) -> str | None:
    """What a PDF carries besides the page (scripts, launch or automatic actions, embedded
    files), in Portuguese, or None. Reads the document catalog (/Names /JavaScript and
    /EmbeddedFiles, /OpenAction, /AA, /AcroForm /XFA) and each page's /AA and annotations
    (/A and /AA actions, file attachments). A PDF pypdf cannot parse is judged by its bytes."""
    kinds: list[str] = []

    def add(kind: str | None) -> None:
        if kind and kind not in kinds:
            kinds.append(kind)

    if b"/JavaScript" in data:
        add("javascript")
    if b"/Launch" in data:
        add("launch")
    if b"/EmbeddedFile" in data:
        add("embedded")
    try:
        import logging

        from pypdf import PdfReader

        logging.getLogger("pypdf").setLevel(logging.ERROR)
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            reader.decrypt("")
        catalog = reader.trailer["/Root"].get_object()
        names = catalog.get("/Names")
        if names is not None:
            names = names.get_object()
            if "/JavaScript" in names:
                add("javascript")
            if "/EmbeddedFiles" in names:
                add("embedded")
        open_action = catalog.get("/OpenAction")
        if open_action is not None and hasattr(open_action.get_object(), "get"):
            add(_action_kind(open_action) or "auto")
        if "/AA" in catalog:
            add("auto")
        form = catalog.get("/AcroForm")
        if form is not None and "/XFA" in form.get_object():
            add("javascript")
        for page in reader.pages:
            if "/AA" in page:
                add("auto")
            for annot in page.get("/Annots") or []:
                annot = annot.get_object()
                if str(annot.get("/Subtype", "")) == "/FileAttachment":
                    add("embedded")
                if "/A" in annot:
                    add(_action_kind(annot["/A"]))
                if "/AA" in annot:
                    add("auto")
    except Exception:  # noqa: BLE001,S110 - not parseable by pypdf: the byte scan above stands
        pass
    if not kinds:
        return None
    labels = [_PDF_ACTIVE_LABELS[k] for k in kinds]
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " e " + labels[-1]


def validate_upload(uploaded, *, label: str | None = None) -> str:
    """Validate an UploadedFile; returns the detected mime type (also kept on the file as
    ``portal_mime``, which names the stored file's extension)."""
    size = getattr(uploaded, "size", None)
    if size is not None and size > settings.UPLOAD_MAX_BYTES:
        raise ValidationError(
            f"O arquivo tem mais de {_human_size(settings.UPLOAD_MAX_BYTES)}. Reduza o tamanho e envie de novo.",
            code="too_large",
        )
    uploaded.seek(0)
    data = uploaded.read(settings.UPLOAD_MAX_BYTES + 1)
    uploaded.seek(0)
    mime = sniff_upload(data, label=label or (getattr(uploaded, "name", "") or "")[-80:] or None)
    try:
        uploaded.portal_mime = mime
    except AttributeError:
        pass
    return mime


def _sniffed_mime(instance) -> str | None:
    """The type the content of the instance's new file was judged to be: the instance's
    ``mime`` field, the mark validate_upload left on the file, or a sniff of its first bytes."""
    mime = getattr(instance, "mime", None)
    if mime in ALLOWED:
        return mime
    from django.db.models import FileField

    for field in instance._meta.get_fields():
        if not isinstance(field, FileField):
            continue
        fieldfile = getattr(instance, field.name, None)
        if not fieldfile or getattr(fieldfile, "_committed", True):
            continue
        raw = getattr(fieldfile, "file", None)
        mime = getattr(raw, "portal_mime", None)
        if mime in ALLOWED:
            return mime
        try:
            position = raw.tell()
            raw.seek(0)
            head = raw.read(8192)
            raw.seek(position)
        except Exception:  # noqa: BLE001,S112 - unreadable: no sniffed type
            continue
        kind = filetype.guess(head)
        if kind and kind.mime in ALLOWED:
            return kind.mime
    return None


def municipality_folder(instance) -> str:
    """The folder of the municipality a stored file belongs to (its slug): each municipality's
    files stay apart on disk or in the bucket, as its records do in the database."""
    from portal import tenancy

    municipality_id = getattr(instance, "municipality_id", None) or tenancy.current_id()
    scope = tenancy.current()
    if scope is not None and scope.id == municipality_id:
        return scope.slug
    from portal.models import Municipality

    return Municipality.objects.filter(pk=municipality_id).values_list("slug", flat=True).first() or str(municipality_id)


def private_upload_path(prefix: str):
    """upload_to callable: server-generated name under the municipality's private folder."""

    def _path(instance, filename: str) -> str:
        # The stored name's extension follows the sniffed content, never the client's name:
        # a PDF sent as "foto.png" is stored (and later served) as a PDF.
        mime = _sniffed_mime(instance)
        ext = ALLOWED.get(mime) if mime else "bin"
        return f"{municipality_folder(instance)}/{prefix}/{uuid.uuid4().hex}.{ext}"

    _path.__name__ = f"upload_to_{prefix}"
    return _path


def sandboxed_file_response(fieldfile, download_name: str, *, mime: str | None = None,
                            frame_ancestors: str = "'self'") -> FileResponse:
    """Inline preview of an uploaded document inside the portal's own pages.

    Images are served under ``Content-Security-Policy: sandbox`` (no script, no form, no
    same-origin access even if the bytes were crafted). A PDF is not sandboxed: Chromium
    refuses to open its built-in viewer in a sandboxed document, so PDFs are judged at upload
    instead (no JavaScript, launch actions or embedded files: ``pdf_active_content``)."""
    response = serve_private_file(fieldfile, download_name, inline=True)
    is_pdf = (mime or response["Content-Type"]) == "application/pdf"
    response["X-Frame-Options"] = "SAMEORIGIN" if frame_ancestors == "'self'" else "DENY"
    response["Content-Security-Policy"] = (
        f"default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; frame-ancestors {frame_ancestors}"
        + ("" if is_pdf else "; sandbox")
    )
    return response


def serve_private_file(fieldfile, download_name: str, *, inline: bool = False) -> FileResponse:
    """Send a stored private file; attachment by default, never sniffed by the browser."""
    ext = PurePosixPath(fieldfile.name).suffix.lower().lstrip(".")
    content_type = {"pdf": "application/pdf", "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png"}.get(
        ext, "application/octet-stream"
    )
    response = FileResponse(
        fieldfile.open("rb"), as_attachment=not inline, filename=download_name, content_type=content_type
    )
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "private, no-store"
    response["Content-Security-Policy"] = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox"
    return response
