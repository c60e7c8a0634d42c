"""LGPD retention: files of refused or abandoned applications are deleted after the pack's period."""

from datetime import date, datetime, timedelta

import pytest
from django.urls import reverse

from licensing import tasks
from licensing.applications.rules import retention_expired
from licensing.models import Application, ApplicationDocument
from portal.models import AuditEntry
from tests.licensing.applications.helpers import create_and_submit, open_call


def test_retention_boundary():
    assert not retention_expired(date(2025, 1, 1), date(2026, 1, 1), 365)  # day 365 keeps
    assert retention_expired(date(2025, 1, 1), date(2026, 1, 2), 365)  # day 366 deletes


def _refuse(app_id: int, clerk, api, decided_days_ago: int, pack):
    r = api(clerk).post(f"/api/v1/applications/{app_id}/reject/", {"reason": "Documentos falsos."}, format="json")
    assert r.status_code == 200, r.content
    noon = datetime.combine(pack.today() - timedelta(days=decided_days_ago), datetime.min.time(), tzinfo=pack.tz)
    Application.objects.filter(pk=app_id).update(decided_at=noon + timedelta(hours=12))


@pytest.mark.django_db
@pytest.mark.parametrize("days_ago,purged", [(365, False), (366, True)])
def test_refused_application_files_deleted_after_retention(itagiba, api, web, applicant, clerk, days_ago, purged):
    open_call("taxi")
    app = create_and_submit(api, applicant)
    _refuse(app["id"], clerk, api, days_ago, itagiba)
    docs = list(ApplicationDocument.objects.filter(application_id=app["id"]))
    names = [d.file.name for d in docs]
    storage = docs[0].file.storage
    assert all(storage.exists(n) for n in names)

    changed = tasks.purge_expired_documents()
    assert changed == (len(docs) if purged else 0)
    assert tasks.purge_expired_documents() == 0  # a second run changes nothing
    assert all(storage.exists(n) is not purged for n in names)
    assert ApplicationDocument.objects.filter(application_id=app["id"], purged_at__isnull=False).count() == (
        len(docs) if purged else 0)
    assert AuditEntry.objects.filter(action="document_purged").count() == (len(docs) if purged else 0)
    url = reverse("licensing-document-file", kwargs={"pk": app["id"], "doc_id": docs[0].pk})
    assert web(clerk).get(url).status_code == (404 if purged else 200)


@pytest.mark.django_db
def test_applications_under_analysis_keep_their_files(itagiba, api, applicant):
    open_call("taxi")
    app = create_and_submit(api, applicant)
    Application.objects.filter(pk=app["id"]).update(updated_at=datetime(2020, 1, 1, tzinfo=itagiba.tz))
    assert tasks.purge_expired_documents() == 0
    assert not ApplicationDocument.objects.filter(purged_at__isnull=False).exists()
