"""Admin: autos and their pieces are read-only (never edited or deleted in place)."""

from django.contrib import admin

from enforcement.models import (
    Appeal,
    DecisionNotice,
    Defense,
    DefenseWaiver,
    Fine,
    Infraction,
    Judgement,
    Notice,
    RecordedRegulation,
)
from portal.admin import ReadOnlyAdmin


class ImmutableAdmin(ReadOnlyAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_actions(self, request):
        return {}


@admin.register(Infraction)
class InfractionAdmin(ImmutableAdmin):
    list_display = ("number", "plate", "infraction_code", "status", "occurred_at", "holder")
    list_filter = ("status",)
    search_fields = ("number", "plate")
    list_select_related = ("holder",)


for model in (Notice, Defense, Judgement, Appeal, Fine, DefenseWaiver, DecisionNotice):
    admin.site.register(model, ImmutableAdmin)


@admin.register(RecordedRegulation)
class RecordedRegulationAdmin(ImmutableAdmin):
    """Recorded on the staff page (/fiscalizacao/regulamentos/) or the API, with its audit entry."""

    list_display = ("key", "act_number", "act_date", "effective_from", "value", "recorded_by", "recorded_at")
    list_filter = ("key",)
