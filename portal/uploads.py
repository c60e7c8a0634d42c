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


def sniff_upload(data: bytes) -> str:
    """Return the mime type of a valid PDF, JPEG or PNG, or raise ValidationError."""
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
        return mime
    # Images: must decode, must end where the format ends, no markup inside.
    if any(marker in head for marker in _ACTIVE_MARKERS):
        raise ValidationError("A imagem contém conteúdo não permitido.", code="markup")
    if mime == "image/png" and not data.rstrip(b"\x00").endswith(_PNG_END):
        raise ValidationError("A imagem PNG está incompleta ou contém dados extras.", code="png")
    if mime == "image/jpeg" and not data.rstrip(b"\x00\r\n ").endswith(b"\xff\xd9"):
        raise ValidationError("A imagem JPEG está incompleta ou contém dados extras.", code="jpeg")
    try:
        from PIL import Image

        with Image.open(io.BytesIO(data)) as img:
            img.verify()
    except Exception as exc:
        raise ValidationError("A imagem está corrompida. Envie outra cópia.", code="image") from exc
    return mime


def validate_upload(uploaded) -> str:
    """Validate an UploadedFile; returns the detected mime type."""
    size = getattr(uploaded, "size", None)
    if size is not None and size > settings.UPLOAD_MAX_BYTES:
        raise ValidationError(
            f"O arquivo tem mais de {_human_size(settings.UPLOAD_MAX_BYTES)}. Reduza o tamanho e envie de novo.",
            code="too_large",
        )
    uploaded.seek(0)
    data = uploaded.read(settings.UPLOAD_MAX_BYTES + 1)
    uploaded.seek(0)
    return sniff_upload(data)


def private_upload_path(prefix: str):
    """upload_to callable: server-generated name under a private folder."""

    def _path(instance, filename: str) -> str:
        ext = PurePosixPath(filename or "").suffix.lower().lstrip(".")
        ext = ext if ext in {"pdf", "jpg", "jpeg", "png"} else "bin"
        return f"{prefix}/{uuid.uuid4().hex}.{ext}"

    _path.__name__ = f"upload_to_{prefix}"
    return _path


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
