"""Migration operations of the tenant column (``TenantModel.municipality``).

A table that already has rows gets the column nullable, filled with the municipality that was
in service (the only one a database held before tenancy), then NOT NULL. The fill runs with
the user triggers of the table off for its own UPDATE (the append-only tables refuse any
UPDATE, and this one writes the owner of every row, changing nothing else)."""

from __future__ import annotations

import django.db.models.deletion
from django.db import migrations, models

import portal.tenancy


def tenant_field(null: bool = False) -> models.ForeignKey:
    return models.ForeignKey(
        blank=null,
        db_index=True,
        default=portal.tenancy.default_municipality_id,
        editable=False,
        null=null,
        on_delete=django.db.models.deletion.PROTECT,
        related_name="+",
        to="portal.municipality",
        verbose_name="município",
    )


def _owner_id(apps) -> int | None:
    Municipality = apps.get_model("portal", "Municipality")
    active = list(Municipality.objects.filter(is_active=True).values_list("pk", flat=True)[:2])
    if len(active) == 1:
        return active[0]
    every = list(Municipality.objects.values_list("pk", flat=True)[:2])
    return every[0] if len(every) == 1 else None


def _fill(app_label: str, model_name: str):
    def fill(apps, schema_editor):
        model = apps.get_model(app_label, model_name)
        if not model._base_manager.exists():
            return
        owner = _owner_id(apps)
        if owner is None:
            raise RuntimeError(
                f"{app_label}.{model_name}: há registros, mas não um único município ativo a quem "
                "atribuí-los. Ative um (load_regulation) antes de migrar."
            )
        table = schema_editor.quote_name(model._meta.db_table)
        postgres = schema_editor.connection.vendor == "postgresql"
        with schema_editor.connection.cursor() as cursor:
            if postgres:
                cursor.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")
            cursor.execute(f"UPDATE {table} SET municipality_id = %s WHERE municipality_id IS NULL", [owner])  # noqa: S608
            if postgres:
                cursor.execute(f"ALTER TABLE {table} ENABLE TRIGGER USER")

    return fill


def tenant_column(app_label: str, model_name: str, *, null: bool = False) -> list:
    """AddField (nullable) + fill + AlterField (NOT NULL unless ``null``) of ``municipality``."""
    ops = [
        migrations.AddField(model_name=model_name, name="municipality", field=tenant_field(null=True)),
        migrations.RunPython(_fill(app_label, model_name), migrations.RunPython.noop),
    ]
    if null:
        return ops
    return [*ops, migrations.AlterField(model_name=model_name, name="municipality", field=tenant_field())]
