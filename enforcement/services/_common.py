"""What every write of enforcement shares: the one transition, the lock, files, notices to the holder,
the dates of a notice or of a paper filing, the retained alvará given back."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta

from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from enforcement.models import (
    INFRACTION_TRANSITIONS,
    Attachment,
    FilingChannel,
    Infraction,
    InfractionStatus,
    ProofPhoto,
)
from licensing.grants import services as licensing_services
from licensing.models import AlvaraStatus
from portal.audit import audit_log
from portal.exceptions import InvalidTransition
from portal.notifications import notify
from portal.uploads import validate_upload

S = InfractionStatus
# The portal's default when the pack has no ``fees.due_days``: 30 days to pay a fine.
DEFAULT_FINE_DUE_DAYS = 30
# Clock skew tolerated between the agent's phone and the server.
FUTURE_TOLERANCE = timedelta(minutes=10)


def _lock(infraction: Infraction) -> Infraction:
    return Infraction.objects.select_for_update().get(pk=infraction.pk)


def _transition(infraction: Infraction, to: str, *, actor, reason: str = "", data: dict | None = None,
                fields: Iterable[str] = ()) -> Infraction:
    """The one place an auto changes status (row already locked by the caller)."""
    before = infraction.status
    if to not in INFRACTION_TRANSITIONS.get(before, set()):
        raise InvalidTransition(
            f"O auto nº {infraction.number} está {S(before).label} e não pode passar a {S(to).label}."
        )
    infraction.status = to
    infraction.status_changed_at = timezone.now()
    infraction.save(update_fields=["status", "status_changed_at", *fields])
    audit_log(actor=actor, obj=infraction, action=f"infraction_{to}", from_state=before, to_state=to,
              reason=reason, data=data or {})
    return infraction


def _detail_link(infraction: Infraction) -> str:
    return reverse("enforcement:detail", kwargs={"pk": infraction.pk})


def _tell_holder(infraction: Infraction, subject: str, body: str, key: str, pix_payload: str = "") -> None:
    if infraction.holder_id:
        notify(recipient=infraction.holder, subject=subject, body=body, link=_detail_link(infraction),
               dedup_key=f"infraction:{infraction.pk}:{key}", pix_payload=pix_payload)


# What a refused file is called in the message (the field, its position and the file's name).
_FILE_WORDS = {"photos": "foto", "attachments": "anexo"}


def _file_label(field: str, position: int, uploaded) -> str:
    name = (getattr(uploaded, "name", "") or "").rsplit("/", 1)[-1][-60:]
    word = _FILE_WORDS.get(field, "arquivo")
    return f"{word} {position}{f' ({name})' if name else ''}"


def _store_files(infraction: Infraction, files, *, kind: str | None, actor) -> None:
    field = "photos" if kind is None else "attachments"
    for i, f in enumerate(files or (), start=1):
        mime = validate_upload(f, label=_file_label(field, i, f))
        if kind is None:
            ProofPhoto.objects.create(infraction=infraction, file=f, mime=mime, uploaded_by=actor)
        else:
            Attachment.objects.create(infraction=infraction, kind=kind, file=f, mime=mime,
                                      original_name=(getattr(f, "name", "") or "")[:200], uploaded_by=actor)


def _validate_files(files, field: str) -> None:
    for i, f in enumerate(files or (), start=1):
        try:
            validate_upload(f, label=_file_label(field, i, f))
        except ValidationError as exc:
            raise ValidationError({field: exc.messages}) from exc


def _return_retained_alvara(infraction: Infraction, *, actor, reason: str) -> None:
    alvara = infraction.retained_alvara
    if alvara is None:
        return
    alvara.refresh_from_db()
    if alvara.status == AlvaraStatus.RETAINED:
        licensing_services.alvara_set_status(actor=actor, alvara=alvara, to=AlvaraStatus.ACTIVE, reason=reason)


def _notice_reason(refused: bool, published: bool) -> str:
    if refused:
        return "Recusa em receber a notificação (vale como notificação)"
    if published:
        return "Notificação por publicação (autuado não localizado)"
    return "Ciência registrada"


def _check_notice_date(inf: Infraction, on: date, today: date, *, not_before: date | None, what: str) -> None:
    if on > today:
        raise ValidationError({"acknowledged_on": ["A data da ciência não pode estar no futuro."]})
    if not_before and on < not_before:
        raise ValidationError({"acknowledged_on": [
            f"A data da ciência não pode ser anterior {what} ({not_before:%d/%m/%Y})."]})


def _paper_check(actor, channel: str, inf: Infraction, on: date | None, today: date) -> date:
    if channel not in FilingChannel.values:
        raise ValidationError({"channel": ["Meio de entrega inválido: use balcão ou correio."]})
    if channel != FilingChannel.ONLINE:
        if on is None:
            raise ValidationError({"received_on": ["Informe a data do recebimento."]})
        if on > today:
            raise ValidationError({"received_on": ["A data do recebimento não pode estar no futuro."]})
        if inf.occurred_on and on < inf.occurred_on:
            raise ValidationError({"received_on": ["A data do recebimento não pode ser anterior à infração."]})
    return on or today


def freeze_on_commit(inf: Infraction, doc: str) -> None:
    """Once the issuing transaction commits, a worker renders, signs and stores the document
    (auto, notificação, decisão): what was issued is what every later download serves."""
    from enforcement.tasks import freeze_infraction_document

    transaction.on_commit(lambda: freeze_infraction_document.delay(doc, inf.pk))
