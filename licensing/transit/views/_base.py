"""Shared pieces of the transit pages: roles, mixins, breadcrumbs and the action base."""


from __future__ import annotations

from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import reverse

from licensing.transit import selectors as sel
from licensing.transit import services as svc
from licensing.transit.citations import articles, cite
from licensing.transit.models import (
    Concession,
)
from portal import regulation
from portal.actions import ActionView as BaseActionView
from portal.roles import Role
from portal.views import RoleRequiredMixin

STAFF = (Role.CLERK, Role.JUDGE, Role.ADMIN)
CLERKS = (Role.CLERK, Role.ADMIN)
JUDGES = (Role.JUDGE, Role.ADMIN)
PER_PAGE = 25


class TransitEnabledMixin:
    """404 for every page of the module when the pack has no collective transport."""

    def dispatch(self, request, *args, **kwargs):
        if not sel.transit_enabled():
            raise Http404("Transporte coletivo não disponível neste município.")
        return super().dispatch(request, *args, **kwargs)


class StaffMixin(TransitEnabledMixin, RoleRequiredMixin):
    roles = STAFF


def _crumbs(*items):
    return list(items)


def _concessions_crumb():
    return ("Concessões de transporte coletivo", reverse("transit-concessions"))


def _law_url(pack) -> str:
    key = (pack.collective_transport or {}).get("law", "")
    try:
        return reverse("law", kwargs={"key": key}) if key else ""
    except Exception:  # noqa: BLE001 - the law page is optional
        return ""


def _has(user, roles) -> bool:
    from portal.roles import has_role

    return has_role(user, *roles)


# --- actions -----------------------------------------------------------------------------------
class ActionView(TransitEnabledMixin, BaseActionView):
    """GET shows the form; POST validates it and calls one service (portal.actions)."""

    roles = CLERKS
    model = Concession
    form_class: type = None
    template_name = "licensing/transit/form.html"
    title = ""
    intro = ""
    submit = "Salvar"
    success = "Registrado."
    basis_keys: tuple[str, ...] = ()
    # field -> (hint with {n} = the parameter's value and {basis}, parameter key)
    hints: dict[str, tuple[str, str]] = {}

    def make_form(self, obj, data=None, files=None):
        form = super().make_form(obj, data, files)
        pack = regulation.current()
        for field, (text, key) in self.hints.items():
            found = pack.collective_param(key)
            if found is not None and field in form.fields:
                form.fields[field].help_text = text.format(n=found.value, basis=found.legal_basis)
        return form

    def get_object(self):
        if self.model is None:
            return None
        return get_object_or_404(self.model, pk=self.kwargs["pk"])

    def success_url(self, obj, result) -> str:
        concession = obj if isinstance(obj, Concession) else getattr(obj, "concession", None)
        if concession is None and hasattr(obj, "line"):
            concession = obj.line.concession
        return reverse("transit-concession", kwargs={"pk": concession.pk})

    def parent_crumbs(self, obj) -> list:
        out = [_concessions_crumb()]
        concession = obj if isinstance(obj, Concession) else getattr(obj, "concession", None)
        if concession is None and hasattr(obj, "line"):
            concession = obj.line.concession
        if concession is not None:
            out.append((str(concession), reverse("transit-concession", kwargs={"pk": concession.pk})))
        return out

    def context(self, obj, form) -> dict:
        pack = regulation.current()
        bases = [pack.collective_param(k) for k in self.basis_keys]
        return {"form": form, "obj": obj, "title": self.title, "intro": cite(self.intro, pack), "submit": self.submit,
                "art": articles(pack),
                "bases": [b for b in bases if b], "law_url": _law_url(pack),
                "crumbs": [*self.parent_crumbs(obj), (self.title, "")]}

    def success_message(self, obj, result) -> str:
        return cite(self.success, regulation.current())


def _pack():
    return regulation.current()


def _pct(value) -> str:
    from decimal import Decimal

    return f"{(Decimal(str(value)) * 100).normalize():f}".replace(".", ",")


def _schedule(data: dict) -> dict:
    return {k: data[k] for k in svc.SCHEDULE_DAYS if data.get(k)}
