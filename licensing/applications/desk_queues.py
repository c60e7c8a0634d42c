"""The clerk's desk: what waits in each queue, and since when. Each queue is a queryset used
both for the counts on the panel and for the filtered list it links to; the summary costs one
query per queue, whatever the number of applications."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from django.db.models import Count, Exists, Min, OuterRef, QuerySet
from django.urls import reverse
from django.utils import timezone

from licensing.applications.models import (
    Application,
    ApplicationDocument,
    ApplicationStatus,
    DocumentStatus,
    Inspection,
    Requirement,
)
from portal import regulation

UNDER_REVIEW = (ApplicationStatus.SUBMITTED, ApplicationStatus.IN_REVIEW, ApplicationStatus.REQUIREMENT,
                ApplicationStatus.INSPECTION_SCHEDULED)


def _current_docs():
    return ApplicationDocument.objects.filter(application=OuterRef("pk"), superseded_by__isnull=True)


def _today_bounds() -> tuple[datetime, datetime]:
    pack = regulation.current()
    start = timezone.make_aware(datetime.combine(pack.today(), time.min), pack.tz)
    return start, start + timedelta(days=1)


def to_review() -> QuerySet[Application]:
    """Protocolled applications with a current document nobody has analysed yet."""
    return Application.objects.filter(status__in=UNDER_REVIEW).filter(
        Exists(_current_docs().filter(status=DocumentStatus.PENDING)))


def requirement_answered() -> QuerySet[Application]:
    """Back from an exigência: answered with a file still to be analysed."""
    return Application.objects.filter(status__in=UNDER_REVIEW).filter(Exists(Requirement.objects.filter(
        application=OuterRef("pk"), answered_at__isnull=False, answer_document__status=DocumentStatus.PENDING)))


def inspections_today() -> QuerySet[Application]:
    start, end = _today_bounds()
    return Application.objects.filter(status=ApplicationStatus.INSPECTION_SCHEDULED).filter(Exists(
        Inspection.objects.filter(application=OuterRef("pk"), approved__isnull=True, scheduled_for__gte=start,
                                  scheduled_for__lt=end)))


def ready_to_decide() -> QuerySet[Application]:
    """Every current document accepted, no exigência open and the vistoria approved: the
    decision page still names any other blocker (TFF, quota) before granting."""
    return Application.objects.filter(status__in=UNDER_REVIEW).filter(
        Exists(Inspection.objects.filter(application=OuterRef("pk"), approved=True)),
        ~Exists(_current_docs().exclude(status=DocumentStatus.ACCEPTED)),
        ~Exists(Requirement.objects.filter(application=OuterRef("pk"), answered_at__isnull=True)),
    )


QUEUES = {
    "review": ("Documentos a conferir", to_review, "submitted_at"),
    "answered": ("Exigências respondidas", requirement_answered, "submitted_at"),
    "today": ("Vistorias de hoje", inspections_today, "submitted_at"),
    "ready": ("Prontos para decidir", ready_to_decide, "submitted_at"),
}
QUEUE_CHOICES = [(code, label) for code, (label, _, _) in QUEUES.items()]


def queue(code: str) -> QuerySet[Application] | None:
    entry = QUEUES.get(code)
    return entry[1]() if entry else None


def summary() -> list[dict]:
    """{code, label, count, oldest, url} per queue of applications (one query each)."""
    out = []
    for code, (label, build, since) in QUEUES.items():
        figures = build().aggregate(n=Count("id"), oldest=Min(since))
        out.append({"code": code, "label": label, "count": figures["n"], "oldest": figures["oldest"],
                    "url": reverse("licensing-queue") + f"?fila={code}"})
    return out
