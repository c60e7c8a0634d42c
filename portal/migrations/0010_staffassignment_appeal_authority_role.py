# The designated appeal authority becomes a role granted per municipality
# ("autoridade_recursal"), replacing the installation-wide Django group named by the old
# `appeal.authority_group` key (a member put in the group by one municipality decided appeals in
# every municipality that designated one).

from django.db import migrations, models

OLD_KEY = "appeal.authority_group"
NEW_KEY = "appeal.designated_authority"
ROLE = "autoridade_recursal"


def group_key_to_profile(apps, schema_editor):
    """Each recorded `appeal.authority_group` becomes `appeal.designated_authority = true` with
    the same act (legal basis, date, origin). The people who could decide appeals there — members
    of that group holding the julgador role in that municipality — receive the profile in that
    municipality only (audited); members elsewhere receive nothing. The group itself is left alone:
    it gives nothing any more."""
    RegulationParameter = apps.get_model("portal", "RegulationParameter")
    StaffAssignment = apps.get_model("portal", "StaffAssignment")
    AuditEntry = apps.get_model("portal", "AuditEntry")
    User = apps.get_model("portal", "User")
    for row in RegulationParameter.objects.filter(key=OLD_KEY).select_related("municipality"):
        municipality, group = row.municipality, str(row.value or "").strip()
        RegulationParameter.objects.update_or_create(
            municipality=municipality, key=NEW_KEY, effective_from=row.effective_from,
            defaults={"value": bool(group), "legal_basis": row.legal_basis, "is_example": row.is_example,
                      "source": row.source, "created_by": row.created_by},
        )
        row.delete()
        if not group:
            continue
        judges = StaffAssignment.objects.filter(municipality=municipality, role="julgador", revoked_at=None)
        for user in User.objects.filter(groups__name=group, pk__in=judges.values("user_id")).distinct():
            assignment, created = StaffAssignment.objects.get_or_create(
                user=user, municipality=municipality, role=ROLE, revoked_at=None,
                defaults={"reason": f"Autoridade recursal migrada do grupo global {group}"[:300]},
            )
            if created:
                AuditEntry.objects.create(
                    municipality=municipality, actor=None, actor_label="migração", object_type="portal.user",
                    object_id=str(user.pk), object_repr=(user.name or user.username)[:300], action="role_granted",
                    to_state=ROLE,
                    reason=f"Membro do grupo {group} e julgador em {municipality.slug}: autoridade recursal "
                           f"designada neste município ({row.legal_basis})"[:1000],
                    data={"role": ROLE, "municipality": municipality.slug, "assignment": assignment.pk,
                          "migrated_from_group": group},
                )


class Migration(migrations.Migration):

    dependencies = [
        ('portal', '0009_staff_assignments'),
    ]

    operations = [
        migrations.AlterField(
            model_name='staffassignment',
            name='role',
            field=models.CharField(choices=[('atendente', 'Atendente'), ('agente', 'Agente de fiscalização'), ('julgador', 'Julgador'), ('admin', 'Administrador'), ('autoridade_recursal', 'Autoridade recursal')], max_length=20, verbose_name='perfil'),
        ),
        migrations.RunPython(group_key_to_profile, migrations.RunPython.noop),
    ]
