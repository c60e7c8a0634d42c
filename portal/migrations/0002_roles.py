from django.db import migrations

ROLES = ["requerente", "atendente", "agente", "julgador", "admin"]

# Django model permissions granted to each role for the base models (the portal's own views
# check roles; these serve the admin and any integration relying on Django permissions).
PERMS = {
    "admin": [
        ("portal", "view_municipality"), ("portal", "change_municipality"),
        ("portal", "view_regulationparameter"), ("portal", "add_regulationparameter"),
        ("portal", "view_fiscalunitvalue"), ("portal", "add_fiscalunitvalue"),
        ("portal", "view_auditentry"), ("portal", "view_user"), ("portal", "add_user"),
        ("portal", "change_user"), ("portal", "view_jobrun"), ("portal", "view_notification"),
    ],
    "atendente": [("portal", "view_jobrun"), ("portal", "view_auditentry")],
    "julgador": [("portal", "view_auditentry")],
}


def create_roles(apps, schema_editor):
    from django.contrib.auth.management import create_permissions

    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for role in ROLES:
        group, _ = Group.objects.get_or_create(name=role)
        for app_label, codename in PERMS.get(role, []):
            perm = Permission.objects.filter(content_type__app_label=app_label, codename=codename).first()
            if perm:
                group.permissions.add(perm)


class Migration(migrations.Migration):
    dependencies = [
        ("portal", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_roles, migrations.RunPython.noop)]
