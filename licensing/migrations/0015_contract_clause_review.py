"""The check of the essential clauses (art. 9) leaves the concession: a record of its own, so the
contract PDF, frozen at signing, never carries it. Existing checks are carried over as the first
review of each concession."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


def carry_over(apps, schema_editor):
    Concession = apps.get_model("licensing", "Concession")
    Review = apps.get_model("licensing", "ContractClauseReview")
    for c in Concession.objects.exclude(clauses={}).only("id", "clauses", "contract_signed_on"):
        present = sorted(code for code, ok in (c.clauses or {}).items() if ok)
        Review.objects.create(concession_id=c.pk, present=present)


class Migration(migrations.Migration):

    dependencies = [
        ('licensing', '0014_amendments_never_changed'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='ContractClauseReview',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('present', models.JSONField(default=list, help_text='Códigos (incisos) das cláusulas essenciais conferidas.', verbose_name='cláusulas que constam do contrato')),
                ('recorded_at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='conferida em')),
                ('concession', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='clause_reviews', to='licensing.concession', verbose_name='concessão')),
                ('recorded_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='conferida por')),
            ],
            options={
                'verbose_name': 'conferência das cláusulas essenciais',
                'verbose_name_plural': 'conferências das cláusulas essenciais',
                'ordering': ['-recorded_at', '-id'],
            },
        ),
        migrations.RunPython(carry_over, migrations.RunPython.noop),
        migrations.RemoveField(
            model_name='concession',
            name='clauses',
        ),
    ]
