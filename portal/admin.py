"""Django admin, open only to the admin role. Audit entries are read-only."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin

from portal import regulation, tenancy
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.models import (
    AuditEntry,
    FiscalUnitValue,
    JobRun,
    Municipality,
    MunicipalityHost,
    Notification,
    RegulationParameter,
    StaffAssignment,
    User,
)
from portal.roles import INSTALLATION_ROLES, Role, has_role, scope_municipality_id


def _admin_has_permission(request) -> bool:
    user = request.user
    return bool(user.is_active and user.is_authenticated and user.is_staff and has_role(user, Role.ADMIN))


admin.site.has_permission = _admin_has_permission
admin.site.site_header = "Administração do portal de táxi e mototáxi"
admin.site.site_title = "Administração"


class RoleAdmin(admin.ModelAdmin):
    """Model admin whose rights follow the admin role, not Django's per-model permissions."""

    def has_module_permission(self, request):
        return _admin_has_permission(request)

    def has_view_permission(self, request, obj=None):
        return _admin_has_permission(request)

    def has_add_permission(self, request):
        return _admin_has_permission(request)

    def has_change_permission(self, request, obj=None):
        return _admin_has_permission(request)

    def has_delete_permission(self, request, obj=None):
        return False


class ReadOnlyAdmin(RoleAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(User)
class UserAdmin(RoleAdmin, BaseUserAdmin):
    list_display = ("username", "name", "email", "is_active", "is_staff")
    search_fields = ("username", "name", "email", "cpf")
    fieldsets = BaseUserAdmin.fieldsets + (
        ("Dados da pessoa", {"fields": ("name", "cpf", "phone", "birth_date", "registration_number")}),
    )

    def get_readonly_fields(self, request, obj=None):
        # an admin is admin of one municipality: what reaches across the installation (the
        # superuser flag, the consortium role, Django permissions) is the superuser's to give
        fields = tuple(super().get_readonly_fields(request, obj))
        if request.user.is_superuser:
            return fields
        return fields + ("is_superuser", "groups", "user_permissions")

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        # groups carry only the installation-wide roles; staff roles are granted per
        # municipality in "Perfis de servidores nos municípios"
        if db_field.name == "groups":
            from django.contrib.auth.models import Group

            kwargs["queryset"] = Group.objects.filter(name__in=[r.value for r in INSTALLATION_ROLES])
        return super().formfield_for_manytomany(db_field, request, **kwargs)


@admin.register(StaffAssignment)
class StaffAssignmentAdmin(RoleAdmin):
    """Staff roles per municipality. Adding grants (``portal.staff.grant_role``); a grant is
    never edited: filling the reason of revocation ends it (``revoke_role``). Both audited.
    An admin of a municipality manages that municipality's staff; the superuser, all."""

    list_display = ("user", "role", "municipality", "granted_at", "granted_by", "revoked_at")
    list_filter = ("role", "municipality", ("revoked_at", admin.EmptyFieldListFilter))
    search_fields = ("user__username", "user__name")
    autocomplete_fields = ("user",)

    def get_queryset(self, request):
        qs = super().get_queryset(request).select_related("user", "municipality", "granted_by")
        return qs if request.user.is_superuser else qs.filter(municipality_id=scope_municipality_id())

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("user", "municipality", "role", "reason")
        return ("user", "municipality", "role", "reason", "granted_at", "granted_by", "revoked_at", "revoked_by",
                "revoked_reason")

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return ()
        return ("user", "municipality", "role", "reason", "granted_at", "granted_by", "revoked_at", "revoked_by") + (
            ("revoked_reason",) if obj.revoked_at else ())

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "municipality" and not request.user.is_superuser:
            kwargs["queryset"] = Municipality.objects.filter(pk=scope_municipality_id())
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def save_model(self, request, obj, form, change):
        from portal.staff import grant_role, revoke_role

        if change:
            if obj.revoked_reason and obj.revoked_at is None:
                saved = revoke_role(actor=request.user, assignment=obj, reason=obj.revoked_reason)
                obj.revoked_at, obj.revoked_by = saved.revoked_at, saved.revoked_by
            return
        saved = grant_role(actor=request.user, user=obj.user, municipality=obj.municipality, role=obj.role,
                           reason=obj.reason)
        obj.pk, obj.granted_at, obj.granted_by = saved.pk, saved.granted_at, saved.granted_by


class MunicipalityHostInline(admin.TabularInline):
    model = MunicipalityHost
    extra = 0
    fields = ("hostname",)


@admin.register(Municipality)
class MunicipalityAdmin(RoleAdmin):
    """The municipality of the host only: another municipality of the installation is not this
    admin's (each one's admin sees and changes its own)."""

    inlines = (MunicipalityHostInline,)
    list_display = ("name", "uf", "slug", "population", "population_year", "is_active", "version")
    readonly_fields = ("slug", "pack", "pack_digest", "is_active", "version", "loaded_at")
    fields = (
        "slug", "name", "uf", "ibge_code", "time_zone", "office", "authority", "contact_email",
        "contact_phone", "complaints_phone", "population", "population_source", "population_year",
        "is_active", "version", "loaded_at",
    )

    def has_add_permission(self, request):
        return False  # packs are loaded with `manage.py load_regulation`

    def get_queryset(self, request):
        return super().get_queryset(request).filter(pk=tenancy.current_id())

    def save_formset(self, request, form, formset, change):
        super().save_formset(request, form, formset, change)
        if formset.has_changed():
            hosts = list(form.instance.hosts.values_list("hostname", flat=True))
            audit_log(actor=request.user, obj=form.instance, action=AuditAction.MUNICIPALITY_CHANGED,
                      reason="Endereços alterados no admin", data={"hosts": hosts})
            regulation.invalidate(form.instance.pk)

    def save_model(self, request, obj, form, change):
        obj.version += 1
        super().save_model(request, obj, form, change)
        audit_log(actor=request.user, obj=obj, action=AuditAction.MUNICIPALITY_CHANGED, reason="Alterado no admin",
                  data={"changed": form.changed_data})
        regulation.invalidate()


@admin.register(RegulationParameter)
class RegulationParameterAdmin(RoleAdmin):
    """A decree changes a value by adding a version with its effective date; old ones stay.
    Values of the municipality of the host only."""

    list_display = ("key", "value", "effective_from", "is_example", "legal_basis", "source")
    list_filter = ("is_example", "source")
    search_fields = ("key", "legal_basis")
    fields = ("municipality", "key", "value", "effective_from", "legal_basis", "is_example")

    def has_change_permission(self, request, obj=None):
        return obj is None and _admin_has_permission(request)

    def get_queryset(self, request):
        return super().get_queryset(request).filter(municipality_id=tenancy.current_id())

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "municipality":
            kwargs["queryset"] = Municipality.objects.filter(pk=tenancy.current_id())
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def save_model(self, request, obj, form, change):
        obj.source = "admin"
        obj.created_by = request.user
        super().save_model(request, obj, form, change)
        audit_log(actor=request.user, obj=obj, action=AuditAction.PARAMETER_VERSION_ADDED, reason=obj.legal_basis,
                  data={"key": obj.key, "value": obj.value, "effective_from": obj.effective_from.isoformat()})
        regulation.invalidate()


@admin.register(FiscalUnitValue)
class FiscalUnitValueAdmin(RegulationParameterAdmin):
    list_display = ("name", "value", "effective_from", "is_example", "legal_basis")
    list_filter = ("is_example",)
    search_fields = ("name",)
    fields = ("municipality", "name", "long_name", "value", "effective_from", "legal_basis", "is_example")

    def save_model(self, request, obj, form, change):
        admin.ModelAdmin.save_model(self, request, obj, form, change)
        audit_log(actor=request.user, obj=obj, action=AuditAction.FISCAL_UNIT_VALUE_ADDED, reason=obj.legal_basis,
                  data={"value": str(obj.value), "effective_from": obj.effective_from.isoformat()})
        regulation.invalidate()


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
    list_display = ("at", "actor_label", "action", "object_type", "object_repr", "from_state", "to_state")
    list_filter = ("action", "object_type")
    search_fields = ("object_repr", "actor_label", "reason")

    def get_actions(self, request):
        return {}


@admin.register(Notification)
class NotificationAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "recipient", "subject", "email_status", "read_at")
    list_filter = ("email_status",)


@admin.register(JobRun)
class JobRunAdmin(ReadOnlyAdmin):
    list_display = ("name", "started_at", "finished_at", "changed", "failures")
