"""Existing data under the one-row-per-(plate, owner) vehicle model (fleet 0002).

Before, a vehicle was one row per plate and the last applicant to declare the plate became its
owner and rewrote its data, so an open application could point to a row that another person
took over. Each such application gets a row of its own (owner = its applicant), copied from the
row as it stands — what its applicant declared may have been overwritten, which only the CRLV
can tell: the clerk's page lists these applications as a plate conflict. Grants keep their
rows (a grant's vehicle is the one its act names). Audited as "vehicle_registered".
"""

from django.db import migrations
from django.db.models import F

# licensing.applications.models.OPEN_APPLICATION_STATUSES when this migration was written
OPEN_STATUSES = ("draft", "submitted", "in_review", "requirement", "inspection_scheduled")
COPIED = ("plate", "renavam", "kind", "make", "model", "color", "manufacture_year", "first_registration_date", "doors",
          "seats", "engine_cc", "registration_category")


def forwards(apps, schema_editor):
    Application = apps.get_model("licensing", "Application")
    Vehicle = apps.get_model("fleet", "Vehicle")
    AuditEntry = apps.get_model("portal", "AuditEntry")
    taken = (Application.objects.filter(status__in=OPEN_STATUSES, vehicle__isnull=False)
             .exclude(vehicle__owner=F("applicant")).select_related("vehicle"))
    for application in taken:
        source = application.vehicle
        own = Vehicle.objects.filter(plate=source.plate, owner_id=application.applicant_id).first()
        if own is None:
            own = Vehicle.objects.create(owner_id=application.applicant_id,
                                         **{name: getattr(source, name) for name in COPIED})
        application.vehicle = own
        application.save(update_fields=["vehicle"])
        AuditEntry.objects.create(
            actor_label="sistema", object_type="fleet.vehicle", object_id=str(own.pk), object_repr=own.plate,
            action="vehicle_registered",
            reason="Registro próprio do veículo declarado no requerimento (um registro por placa e proprietário); "
                   "conferir os dados com o CRLV",
            data={"application": application.pk, "copied_from": source.pk},
        )


class Migration(migrations.Migration):

    dependencies = [
        ("licensing", "0008_appeal_effects"),
        ("fleet", "0002_vehicle_row_per_plate_and_owner"),
        ("portal", "0001_initial"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
