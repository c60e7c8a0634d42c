import pytest
from django.core.exceptions import ValidationError
from django.db import connection, transaction

from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.models import AuditEntry


@pytest.fixture
def entry(db, alegre, applicant):
    return audit_log(actor=applicant, obj=applicant, action=AuditAction.PROFILE_UPDATED, from_state="a", to_state="b",
                     reason="motivo", data={"cpf": "52998224725", "nested": {"cnh_number": "12345678900"}})


def test_personal_data_is_masked(entry):
    assert entry.data["cpf"] == "***.982.247-**"
    assert entry.data["nested"]["cnh_number"].startswith("***")


def test_audit_entry_cannot_be_changed_or_deleted_by_orm(entry):
    entry.reason = "alterado"
    with pytest.raises(ValidationError):
        entry.save()
    with pytest.raises(ValidationError):
        entry.delete()
    with pytest.raises(ValidationError):
        AuditEntry.objects.filter(pk=entry.pk).update(reason="x")
    with pytest.raises(ValidationError):
        AuditEntry.objects.filter(pk=entry.pk).delete()
    assert AuditEntry.objects.get(pk=entry.pk).reason == "motivo"


def test_admin_cannot_change_audit(web, alegre, personas, entry):  # an admin is admin of a municipality
    c = web(personas["admin"])
    assert c.get(f"/admin/portal/auditentry/{entry.pk}/change/").status_code == 200  # view only
    c.post(f"/admin/portal/auditentry/{entry.pk}/change/", {"reason": "x"})
    assert c.post(f"/admin/portal/auditentry/{entry.pk}/delete/", {"post": "yes"}).status_code == 403
    assert AuditEntry.objects.get(pk=entry.pk).reason == "motivo"


@pytest.mark.skipif(connection.vendor != "postgresql", reason="trigger only on PostgreSQL")
def test_database_refuses_raw_update_and_delete(entry):
    from django.db.utils import InternalError

    for sql in (f"UPDATE portal_auditentry SET reason='x' WHERE id={entry.pk}",
                f"DELETE FROM portal_auditentry WHERE id={entry.pk}"):
        with pytest.raises(InternalError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql)
    assert AuditEntry.objects.get(pk=entry.pk).reason == "motivo"
