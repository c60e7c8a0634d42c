"""The administrator's page of the decrees that open a modality (portal.modality_decrees)."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect, render
from django.views import View

from portal import regulation
from portal.forms import ModalityDecreeForm
from portal.modality_decrees import decree_modalities, decree_rows, modality_decree_record
from portal.refusals import SERVICE_ERRORS, apply_refusal
from portal.roles import Role
from portal.views import RoleRequiredMixin


def pack_waits_for_a_decree() -> bool:
    """Menu: the page is offered only where the pack has a modality left to a decree."""
    pack = regulation.current(required=False)
    return pack is not None and bool(decree_modalities(pack))


class ModalityDecreeView(RoleRequiredMixin, View):
    roles = (Role.ADMIN,)
    template_name = "portal/modality_decrees.html"

    def _form(self, data=None):
        pack = regulation.current()
        return ModalityDecreeForm(data, choices=[(m, label) for m, label, _b in decree_modalities(pack)])

    def _render(self, request, form, status=200):
        pack = regulation.current()
        states = [{"modality": m, "label": label, "basis": basis, "open": pack.modality_in_force(m),
                   "refusal": pack.modality_refusal(m)} for m, label, basis in decree_modalities(pack)]
        return render(request, self.template_name,
                      {"form": form, "rows": list(decree_rows(pack)), "states": states,
                       "crumbs": [("Decretos das modalidades", None)]}, status=status)

    def get(self, request):
        return self._render(request, self._form())

    def post(self, request):
        form = self._form(request.POST)
        status = 400
        if form.is_valid():
            d = form.cleaned_data
            try:
                row = modality_decree_record(actor=request.user, modality=d["modality"], number=d["number"],
                                             act_date=d["act_date"], effective_from=d["effective_from"],
                                             link=d["link"])
            except SERVICE_ERRORS as exc:
                status = apply_refusal(form, exc)
            else:
                messages.success(request, f"{row.number} registrado: {regulation.current().modality_label(row.modality)} "
                                          f"em vigor a partir de {row.effective_from:%d/%m/%Y}.")
                return redirect("ops-modality-decrees")
        return self._render(request, form, status=status)
