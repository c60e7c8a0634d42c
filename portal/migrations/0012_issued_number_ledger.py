"""The counter rows become a ledger of numbers (portal.models.IssuedNumber): each series keeps
going from its counter's last number, carried over as the ledger's first row."""

import django.db.models.deletion
import pgtrigger.compiler
import pgtrigger.migrations
import portal.tenancy
from django.db import migrations, models


def carry_counters_over(apps, schema_editor):
    counter = apps.get_model("portal", "NumberSequence")
    ledger = apps.get_model("portal", "IssuedNumber")
    ledger.objects.bulk_create(
        ledger(municipality_id=row.municipality_id, kind=row.kind, year=row.year, number=row.last_number)
        for row in counter.objects.filter(last_number__gt=0)
    )


def counters_from_ledger(apps, schema_editor):
    from django.db.models import Max

    counter = apps.get_model("portal", "NumberSequence")
    ledger = apps.get_model("portal", "IssuedNumber")
    counter.objects.bulk_create(
        counter(municipality_id=row["municipality_id"], kind=row["kind"], year=row["year"], last_number=row["last"])
        for row in ledger.objects.values("municipality_id", "kind", "year").annotate(last=Max("number"))
    )


def drop_counter_trigger_functions(apps, schema_editor):
    """pgtrigger drops a removed trigger, not its function."""
    if schema_editor.connection.vendor == "postgresql":
        for name in ("number_sequence_never_deleted_21634", "number_sequence_forward_only_c74b5",
                     "number_sequence_no_truncate_ec08d"):
            schema_editor.execute(f"DROP FUNCTION IF EXISTS pgtrigger_{name}()")


class Migration(migrations.Migration):

    dependencies = [
        ('portal', '0011_merge_revision_appeal_authority'),
    ]

    operations = [
        migrations.CreateModel(
            name='IssuedNumber',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(max_length=40, verbose_name='tipo')),
                ('year', models.PositiveSmallIntegerField(verbose_name='ano')),
                ('number', models.PositiveIntegerField(verbose_name='número')),
                ('municipality', models.ForeignKey(default=portal.tenancy.default_municipality_id, editable=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='portal.municipality', verbose_name='município')),
            ],
            options={
                'verbose_name': 'número emitido',
                'verbose_name_plural': 'números emitidos',
            },
        ),
        migrations.RunPython(carry_counters_over, counters_from_ledger),
        pgtrigger.migrations.RemoveTrigger(model_name='numbersequence', name='number_sequence_never_deleted'),
        pgtrigger.migrations.RemoveTrigger(model_name='numbersequence', name='number_sequence_forward_only'),
        pgtrigger.migrations.RemoveTrigger(model_name='numbersequence', name='number_sequence_no_truncate'),
        migrations.DeleteModel(
            name='NumberSequence',
        ),
        migrations.RunPython(drop_counter_trigger_functions, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='issuednumber',
            constraint=models.UniqueConstraint(fields=('municipality', 'kind', 'year', 'number'), name='one_issue_per_number'),
        ),
        pgtrigger.migrations.AddTrigger(
            model_name='issuednumber',
            trigger=pgtrigger.compiler.Trigger(name='issued_number_immutable', sql=pgtrigger.compiler.UpsertTriggerSql(func="RAISE EXCEPTION 'pgtrigger: Cannot update or delete rows from % table', TG_TABLE_NAME;", hash='71e0ea6de0d9ed00f96ce9c4aae0f7d09074490f', operation='UPDATE OR DELETE', pgid='pgtrigger_issued_number_immutable_0b436', table='portal_issuednumber', when='BEFORE')),
        ),
        pgtrigger.migrations.AddTrigger(
            model_name='issuednumber',
            trigger=pgtrigger.compiler.Trigger(name='issued_number_no_truncate', sql=pgtrigger.compiler.UpsertTriggerSql(func="IF coalesce(current_setting('portal.allow_truncate', true), '') <> 'on' THEN RAISE EXCEPTION 'TRUNCATE recusado: % é um registro permanente.', TG_TABLE_NAME; END IF; RETURN NULL;", hash='4ccb3d0d80bb45014696968b81f00b3670c87081', level='STATEMENT', operation='TRUNCATE', pgid='pgtrigger_issued_number_no_truncate_aed29', table='portal_issuednumber', when='BEFORE')),
        ),
    ]
