"""The one publication desk of the staff: what the law requires in the Diário Oficial and is
pending (acts of the grants and, from enforcement, the decisions of appeals), the lists prepared
(PDF and plain text) and the record of the day each came out. The clerk prepares and records; the
julgador, whose decisions go there too, reads it (the old "Diário Oficial" page of enforcement,
/fiscalizacao/publicacao/, redirects here)."""

from __future__ import annotations

from django import forms
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.views import View

from licensing.applications import publication as svc
from licensing.applications.models import Publication
from portal import regulation
from portal.actions import ActionView
from portal.roles import Role, has_role
from portal.views import RoleRequiredMixin

DESK = (Role.CLERK, Role.ADMIN)
READERS = (*DESK, Role.JUDGE)


class ReadersMixin:
    """GET for the desk and the julgador; POST (prepare, record) for the desk only."""

    roles = READERS

    def post(self, request, *args, **kwargs):
        if not has_role(request.user, *DESK):
            raise PermissionDenied("Só o atendimento prepara e registra as publicações.")
        return super().post(request, *args, **kwargs)


class PrepareForm(forms.Form):
    """Nothing to fill: the list is what is pending; the form carries the CSRF token."""


class RecordForm(forms.Form):
    published_on = forms.DateField(label="Data da publicação no Diário Oficial",
                                   widget=forms.DateInput(attrs={"type": "date"}),
                                   error_messages={"required": "Informe a data da publicação.",
                                                   "invalid": "Data da publicação inválida."})
    edition = forms.CharField(label="Edição", max_length=40, required=False, help_text="Ex.: nº 1.234")
    page = forms.CharField(label="Página", max_length=20, required=False)


def _crumbs(label: str | None = None) -> list:
    base = ("Publicações no Diário Oficial", reverse("licensing-publications") if label else None)
    return [base] + ([(label, None)] if label else [])


class PublicationsView(ReadersMixin, ActionView):
    """GET the pending acts and the lists prepared; POST prepares a new list of what is pending."""
    form_class = PrepareForm
    template_name = "licensing/applications/publications.html"

    def make_form(self, obj, data=None, files=None):
        return PrepareForm(data)

    def context(self, obj, form) -> dict:
        pack = regulation.current()
        pending = svc.pending(pack)
        return {"form": form, "crumbs": _crumbs(), "sections": [(svc.SECTIONS[k], v) for k, v in pending.items()],
                "pending_count": sum(len(v) for v in pending.values()),
                "required": svc.required_sections(pack), "basis": pack.basis("publication.required_for"),
                "extends": pack.param("publication.extends_validity"),
                "publications": Publication.objects.order_by("-prepared_at", "-id")[:50],
                "can_prepare": has_role(self.request.user, *DESK)}

    def perform(self, obj, data: dict):
        return svc.publication_prepare(actor=self.request.user)

    def success_url(self, obj, result) -> str:
        return reverse("licensing-publication", args=[result.pk])

    def success_message(self, obj, result) -> str:
        return f"Publicação nº {result.number} preparada: envie o texto ao Diário Oficial e registre a data."


class PublicationView(ReadersMixin, ActionView):
    """GET one list (text, PDF, publication data); POST records the day it was published."""
    form_class = RecordForm
    template_name = "licensing/applications/publication.html"

    def get_object(self):
        return get_object_or_404(Publication, pk=self.kwargs["pk"])

    def context(self, obj, form) -> dict:
        return {"form": form, "obj": obj, "crumbs": _crumbs(f"Publicação nº {obj.number}"),
                "can_prepare": has_role(self.request.user, *DESK)}

    def perform(self, obj, data: dict):
        return svc.publication_record(actor=self.request.user, publication=obj, published_on=data["published_on"],
                                      edition=data.get("edition", ""), page=data.get("page", ""))

    def success_url(self, obj, result) -> str:
        return reverse("licensing-publication", args=[obj.pk])

    def success_message(self, obj, result) -> str:
        return f"Publicação nº {obj.number} registrada: publicada em {result.published_on:%d/%m/%Y}."


class PublicationFileView(RoleRequiredMixin, View):
    """The list as prepared: the frozen PDF, or the plain text for the Diário Oficial."""

    roles = READERS
    fmt = "pdf"

    def get(self, request, pk: int):
        pub = get_object_or_404(Publication, pk=pk)
        name = f"publicacao-{pub.number.replace('/', '-')}"
        if self.fmt == "txt":
            response = HttpResponse(pub.text, content_type="text/plain; charset=utf-8")
            response["Content-Disposition"] = f'attachment; filename="{name}.txt"'
        else:
            response = HttpResponse(svc.publication_pdf(pub), content_type="application/pdf")
            response["Content-Disposition"] = f'inline; filename="{name}.pdf"'
        response["Cache-Control"] = "private, no-store"
        return response


