"""What the applicant has to do next, for the top of the panel and of the application page:
an open draft, a refused document, an open exigência, a vistoria to attend, a grant issued.
Reads only; a constant number of queries whatever the number of applications."""

from __future__ import annotations

from datetime import timedelta

from django.urls import reverse
from django.utils import timezone

from licensing.applications.models import (
    OPEN_APPLICATION_STATUSES,
    Application,
    ApplicationDocument,
    ApplicationStatus,
    DocumentStatus,
    Inspection,
    Requirement,
)
from portal import regulation

RECENT_GRANT_DAYS = 30  # a grant stays at the top of the panel this long after the decision


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def next_steps(user) -> list[dict]:
    """Cards {app, kind, title, text, url, action[, url2, action2]} most urgent first."""
    apps = list(Application.objects.filter(applicant=user).filter(
        status__in=[*OPEN_APPLICATION_STATUSES, ApplicationStatus.APPROVED]).select_related("authorization"))
    if not apps:
        return []
    by_pk = {a.pk: a for a in apps}
    open_ids = [a.pk for a in apps if a.status in OPEN_APPLICATION_STATUSES and a.status != ApplicationStatus.DRAFT]
    cards: list[dict] = []
    rejected: dict[int, list[ApplicationDocument]] = {}
    for doc in ApplicationDocument.objects.filter(application_id__in=open_ids, superseded_by__isnull=True,
                                                  status=DocumentStatus.REJECTED).order_by("id"):
        rejected.setdefault(doc.application_id, []).append(doc)
    for app_id, docs in rejected.items():
        app = by_pk[app_id]
        cards.append({"app": app_id, "kind": "rejected", "title": f"{_plural(len(docs), 'documento recusado', 'documentos recusados')}"
                      " — envie de novo",
                      "text": f"{app}: " + "; ".join(f"{d.reason or 'sem motivo informado'}" for d in docs),
                      "url": reverse("licensing-application", kwargs={"pk": app_id}) + f"#doc-{docs[0].type}",
                      "action": "Enviar de novo"})
    for req in Requirement.objects.filter(application_id__in=open_ids, answered_at__isnull=True).order_by("id"):
        due = f" Prazo: {req.due_date:%d/%m/%Y}." if req.due_date else ""
        cards.append({"app": req.application_id, "kind": "requirement", "title": "Exigência a atender", "text": f"{by_pk[req.application_id]}: "
                      f"{req.text}{due}", "url": reverse("licensing-application", kwargs={"pk": req.application_id}),
                      "action": "Atender a exigência"})
    scheduled = [a.pk for a in apps if a.status == ApplicationStatus.INSPECTION_SCHEDULED]
    tz = regulation.current().tz
    for insp in Inspection.objects.filter(application_id__in=scheduled, approved__isnull=True).order_by("scheduled_for"):
        when = timezone.localtime(insp.scheduled_for, tz)
        cards.append({"app": insp.application_id, "kind": "inspection", "title": f"Vistoria em {when:%d/%m/%Y} às {when:%H:%M}",
                      "text": (f"Local: {insp.location}. " if insp.location else "")
                      + "Leve o veículo e os documentos originais.",
                      "url": reverse("licensing-application", kwargs={"pk": insp.application_id}),
                      "action": "Ver o requerimento"})
    for app in apps:
        if app.status == ApplicationStatus.DRAFT:
            cards.append({"app": app.pk, "kind": "draft", "title": "Pedido em rascunho",
                          "text": "Você começou um pedido e ainda não o enviou. O que foi salvo continua guardado.",
                          "url": reverse("licensing-application-step", kwargs={"pk": app.pk, "step": app.resume_step}),
                          "action": "Continuar pedido"})
    recent = timezone.now() - timedelta(days=RECENT_GRANT_DAYS)
    for app in apps:
        auth = app.authorization
        if app.status == ApplicationStatus.APPROVED and auth is not None and app.decided_at and app.decided_at >= recent:
            cards.append({"app": app.pk, "kind": "approved", "title": f"Deferido: {auth.act_name} nº {auth.number}",
                          "text": f"Válida até {auth.valid_until:%d/%m/%Y}. Baixe o ato e os alvarás.",
                          "url": reverse("api-authorization-act-pdf", kwargs={"pk": auth.pk}),
                          "action": "Baixar o ato (PDF)",
                          "url2": reverse("licensing-application", kwargs={"pk": app.pk}),
                          "action2": "Ver o requerimento"})
    waiting = [a for a in apps if a.status in (ApplicationStatus.SUBMITTED, ApplicationStatus.IN_REVIEW)
               and a.pk not in rejected]
    for app in waiting:
        cards.append({"app": app.pk, "kind": "waiting", "title": f"{app}: {app.get_status_display()}",
                      "text": "Nada a fazer agora: a Prefeitura confere os documentos e avisa o próximo passo.",
                      "url": reverse("licensing-application", kwargs={"pk": app.pk}), "action": "Acompanhar"})
    return cards
