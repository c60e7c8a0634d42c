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
    badges: dict[tuple, str] = {}  # a page has two or three statuses: each badge is formatted once
    for row in rows:
        cells = "".join([f"<td>{escape(str(row[name]))}</td>" for name in _TRANSPARENCY_CELLS])
        status = (row["status"], row["status_label"])
        badge = badges.get(status)
        if badge is None:
            badge = badges[status] = status_badge(*status)
        out.append(f"<tr>{cells}<td>{badge}</td></tr>")
    return mark_safe("\n  ".join(out))  # noqa: S308 - every value escaped above


_verify_hrefs: dict[tuple, tuple[str, str]] = {}


def _verify_href(code: str) -> str:
    """{% url 'public-verify-code' code %}: the path is reversed once per URLconf and script
    prefix, and each code is quoted into it as reverse() quotes its arguments."""
    from urllib.parse import quote

    from django.conf import settings
    from django.urls import get_script_prefix, get_urlconf, reverse
    from django.utils.http import RFC3986_SUBDELIMS

    key = (get_urlconf() or settings.ROOT_URLCONF, get_script_prefix())
    around = _verify_hrefs.get(key)
    if around is None:
        marker = "__verification_code__"
        head, _, tail = reverse("public-verify-code", args=[marker]).partition(marker)
        around = _verify_hrefs[key] = (head, tail)
    return f"{around[0]}{quote(code, safe=RFC3986_SUBDELIMS + '/~:@')}{around[1]}"


def _verdict(r) -> str:
    if r.kind == "infraction":
        return "✔ Auto de infração autêntico" if r.valid else "✖ Auto de infração cancelado"
    if r.kind == "amendment":
        return "✔ Ato de alteração autêntico"
    return "✔ Documento válido" if r.valid else "✖ Documento não válido"


@register.simple_tag
def verification_card(r):
    """The card of one verification result (templates/public/_verify_results.html): what the
    document is, its situation and what it certifies. Every distinct QR code builds one (the
    page cache cannot help: each code is asked once), and as a template it was ~40 variables,
    filters and {% url %} tags looked up one by one, the larger part of building the page.
    Here each value is escaped once (``html.escape``, as Django's autoescape); the markup is the
    template's, row by row, and a row the document does not have is an empty line, as there."""
    from html import escape

    def e(value) -> str:  # what {{ value }} writes for these fields (text, or None)
        return escape(str(value))

    def link(ref: dict) -> str:
        return f'<a href="{e(_verify_href(ref["code"]))}">{e(ref["document"])} nº {e(ref["number"])}</a>'

    dt, dd = '<dt class="col-sm-4">', '</dt><dd class="col-sm-8">'
    suspended = f" até {r.suspended_until:%d/%m/%Y}" if r.suspended_until else ""
    vehicle = r.vehicle
    rows = [
        f"{dt}Documento{dd}{e(r.document)} nº {e(r.number)}</dd>",
        f"{dt}Situação{dd}{status_badge(r.status, r.status_label)}{suspended}</dd>",
        f"{dt}Modalidade{dd}{e(r.modality_label)}</dd>" if r.modality_label else "",
        f"{dt}{'Placa no ato emitido' if r.amended_by else 'Placa'}{dd}{e(r.plate) if r.plate else '—'}</dd>",
        f"{dt}Validade{dd}até {r.valid_until:%d/%m/%Y}</dd>" if r.valid_until else "",
        f"{dt}Titular{dd}{e(r.holder)}</dd>" if r.holder else "",
        f"{dt}Condutor{dd}{e(r.driver)}</dd>" if r.driver else "",
        (f"{dt}Veículo{dd}{e(vehicle.get('make', ''))} {e(vehicle.get('model', ''))}, {e(vehicle.get('color', ''))}</dd>"
         if vehicle else ""),
        f"{dt}Condutores autorizados{dd}{', '.join(e(name) for name in r.drivers)}</dd>" if r.drivers else "",
        f"{dt}Ato alterado{dd}{link(r.amends)}</dd>" if r.amends else "",
        (f'{dt}O que alterou{dd}<ul class="mb-0">'
         + "".join(f"<li>{e(c['label'])}: {e(c['before']) if c.get('before') else '—'} → "
                   f"{e(c['after']) if c.get('after') else '—'}</li>" for c in r.changes)
         + "</ul></dd>") if r.changes else "",
        (f'{dt}Alterado por{dd}<ul class="mb-0">'
         + "".join(f"<li>{link(a)}: {e(a['what'])}</li>" for a in r.amended_by) + "</ul></dd>") if r.amended_by else "",
        f"{dt}Substituído por{dd}{link(r.superseded_by)} (o documento em vigor)</dd>" if r.superseded_by else "",
        (f'{dt}Resumo SHA-256 do PDF emitido</dt><dd class="col-sm-8 text-break"><code>{e(r.sha256)}</code></dd>'
         if r.sha256 else ""),
        f"{dt}Assinado digitalmente por{dd}{e(r.signer)}</dd>" if r.signer else "",
        f'{dt}Código de verificação{dd}<a href="{e(_verify_href(r.code))}">{e(r.code)}</a></dd>',
    ]
    body = "\n        ".join(rows)
    return mark_safe(  # noqa: S308 - every value escaped above
        '<article class="card mb-3">\n    <div class="card-body">\n'
        f'      <p class="verdict {"verdict-ok" if r.valid else "verdict-bad"}">\n'
        f"        {_verdict(r)} — situação: {e(r.status_label)}\n      </p>\n"
        f'      <dl class="row mb-0">\n        {body}\n      </dl>\n    </div>\n  </article>')


_RESULTS_OPEN = '<section aria-live="polite" aria-label="Resultado da verificação">\n'


@register.simple_tag
def verification_results(results, searched=False, error="", direct=False, q="", pack=None):
    """The results of a verification (templates/public/_verify_results.html): a card for each
    document found, or, for a search that found none, the warning that a document not found
    is not valid. The page by code (portal.public.views) calls it without a template."""
    from html import escape

    if results:
        return mark_safe(  # noqa: S308 - the cards escape their values
            _RESULTS_OPEN + "".join(f"\n  {verification_card(r)}\n" for r in results) + "\n</section>")
    warning = ""
    if searched and not error:
        what = "o código" if direct else "o código, número ou placa"
        phone = (getattr(pack, "municipality", None) or {}).get("complaints_phone", "")  # the pack's data
        warning = (
            '\n  <div class="alert alert-warning" role="alert">\n    <h2 class="h5">Nenhum documento encontrado</h2>\n'
            f'    <p class="mb-0">Não há autorização ou alvará com {what} “{escape(str(q))}”. Confira o que foi digitado. '
            "Um documento que não aparece aqui não é válido: em caso de dúvida, ligue para a Prefeitura"
            f"{f' ({escape(str(phone))})' if phone else ''}.</p>\n  </div>\n  ")
    return mark_safe(f"{_RESULTS_OPEN}\n  {warning}\n\n</section>")  # noqa: S308 - q and phone escaped


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
