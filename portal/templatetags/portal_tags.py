from __future__ import annotations

from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from django import forms, template
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from portal.numbers import brl, thousands

register = template.Library()

# One badge vocabulary across the portal (text, never colour alone).
STATUS_LABELS = {
    "draft": "rascunho",
    "submitted": "protocolado",
    "in_review": "em análise",
    "requirement": "exigência",
    "inspection_scheduled": "vistoria agendada",
    "granted": "deferido",
    "approved": "deferido",
    "refused": "indeferido",
    "rejected": "indeferido",
    "active": "ativa",
    "suspended": "suspensa",
    "cassada": "cassada",
    "revoked": "cassada",
    "expired": "expirada",
    "cancelled": "cancelado",
    "pending": "pendente",
    "accepted": "aceito",
    "issued": "lavrado",
    "notified": "notificado",
    "defense_filed": "defesa apresentada",
    "awaiting_judgement": "aguardando julgamento",
    "upheld": "procedente",
    "dismissed": "improcedente",
    "appealed": "em recurso",
    "final": "decisão definitiva",
    "paid": "pago",
    "open": "aberto",
    "closed": "encerrado",
    "withdrawn": "desistência",
    "renounced": "renunciada",
    "superseded": "substituído",
    "retained": "retido",
}


@register.simple_tag
def status_badge(status: str, label: str | None = None):
    label = label or STATUS_LABELS.get(str(status), str(status))
    return format_html('<span class="badge status-badge status-{}">{}</span>', status, label)


# The cells of one transparency row, in the order of its table's header.
_TRANSPARENCY_CELLS = ("number", "modality_label", "holder", "plate_shown", "valid_until_shown", "stand_shown")


@register.simple_tag
def transparency_rows(rows: list[dict]):
    """The <tr> of each row of the transparency list (portal.public.views.TransparencyView).
    Fifty rows of seven cells were ~350 template variables, each looked up, localized and
    escaped one by one: most of the time of a deep page, and every deep page is built (each is
    asked once or twice). Here each cell is escaped once; the markup is the template's."""
    from html import escape

    out = []
    for row in rows:
        cells = "".join(f"<td>{escape(str(row[name]))}</td>" for name in _TRANSPARENCY_CELLS)
        out.append(f"<tr>{cells}<td>{status_badge(row['status'], row['status_label'])}</td></tr>")
    return mark_safe("\n  ".join(out))  # noqa: S308 - every value escaped above


@register.filter
def split(value: str) -> list[str]:
    """"a b c"|split -> ["a", "b", "c"] (a list of names in a template)."""
    return str(value).split()


@register.filter
def field(form, name: str):
    """form|field:"name" -> the bound field (to place fields one by one)."""
    return form[name]


@register.simple_tag
def service(lower: bool = False) -> str:
    """The service the municipality's law regulates ("Táxi" or "Táxi e Mototáxi"), for texts
    rendered with or without a request (e-mails)."""
    from portal.context_processors import service_name

    name = service_name()
    return name.lower() if lower else name


@register.filter
def status_label(status: str) -> str:
    return STATUS_LABELS.get(str(status), str(status))


@register.filter
def money(value) -> str:
    """R$ 1.234,56"""
    if value in (None, ""):
        return ""
    amount = Decimal(str(value)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    return f"{'-' if amount < 0 else ''}{brl(abs(amount))}"


@register.filter
def number(value) -> str:
    """A whole number with the Brazilian thousands separator: 15.310 (not 15310, not 15,310)."""
    return thousands(value)


@register.filter
def cpf(value) -> str:
    """000.000.000-00 (for staff pages; public pages never show a CPF)."""
    from portal.validators import format_cpf

    return format_cpf(value) if value else ""


@register.filter
def days_left(value) -> str:
    """'faltam N dias' for a deadline date."""
    if not value:
        return ""
    if hasattr(value, "date") and not isinstance(value, date.__class__):
        value = value.date() if hasattr(value, "hour") else value
    today = timezone.localdate()
    delta = (value - today).days
    if delta > 1:
        return f"faltam {delta} dias"
    if delta == 1:
        return "falta 1 dia"
    if delta == 0:
        return "vence hoje"
    return f"venceu há {-delta} dia{'s' if delta < -1 else ''}"


@register.simple_tag
def render_widget(bound_field):
    widget = bound_field.field.widget
    attrs = {}
    css = "form-select" if isinstance(widget, forms.Select) else "form-control"
    if isinstance(widget, (forms.RadioSelect, forms.CheckboxSelectMultiple)):
        css = ""
    if isinstance(widget, forms.ClearableFileInput | forms.FileInput):
        css = "form-control"
    if bound_field.errors:
        css += " is-invalid"
        attrs["aria-invalid"] = "true"
    if css:
        attrs["class"] = (widget.attrs.get("class", "") + " " + css).strip()
    described = []
    if isinstance(widget, (forms.RadioSelect, forms.CheckboxSelectMultiple)):
        pass  # the fieldset around the options carries the hint and the error (includes/field.html)
    elif bound_field.help_text:
        described.append(f"{bound_field.id_for_label}-hint")
    if bound_field.errors and bound_field.id_for_label:
        described.append(f"{bound_field.id_for_label}-error")
    if described:
        attrs["aria-describedby"] = " ".join(described)
    if bound_field.field.required:
        attrs["required"] = True
    return bound_field.as_widget(attrs=attrs)


@register.filter
def audit_label(action) -> str:
    """An audit action in words (portal.audit_actions.AuditAction)."""
    from portal.audit_actions import AuditAction

    return AuditAction.label_of(str(action))
