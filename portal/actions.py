"""The one base of the pages that carry out one action: a form, one service, a redirect.

GET shows the form for the object; POST validates it and calls ``perform`` (one service).
A refusal of the service goes back to the form beside its field, answered 400 for invalid
input or 409 for a conflict with the state of things (portal.refusals); success flashes
``success_message`` and redirects to ``success_url``. Subclasses name the roles, the form,
the template and the service; apps add their own context and breadcrumbs.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from django.contrib import messages
from django.shortcuts import redirect, render
from django.views import View

from portal.refusals import SERVICE_ERRORS, apply_refusal
from portal.views import RoleRequiredMixin


class ActionView(RoleRequiredMixin, View, ABC):
    form_class: type | None = None
    template_name = ""
    success = "Registrado."

    def get_object(self):
        return None

    def form_kwargs(self, obj) -> dict:
        return {}

    def initial(self, obj) -> dict:
        return {}

    def make_form(self, obj, data=None, files=None):
        return self.form_class(data, files, initial=self.initial(obj), **self.form_kwargs(obj))

    def context(self, obj, form) -> dict:
        return {"form": form, "obj": obj}

    @abstractmethod
    def perform(self, obj, data: dict):
        """Carry out the action through its service (each subclass names one)."""

    @abstractmethod
    def success_url(self, obj, result) -> str: ...

    def success_message(self, obj, result) -> str:
        return self.success

    def get(self, request, *args, **kwargs):
        obj = self.get_object()
        return render(request, self.template_name, self.context(obj, self.make_form(obj)))

    def post(self, request, *args, **kwargs):
        obj = self.get_object()
        form = self.make_form(obj, request.POST, request.FILES or None)
        status = 400
        if form.is_valid():
            try:
                result = self.perform(obj, form.cleaned_data)
            except SERVICE_ERRORS as exc:
                status = apply_refusal(form, exc)
            else:
                messages.success(request, self.success_message(obj, result))
                return redirect(self.success_url(obj, result))
        return render(request, self.template_name, self.context(obj, form), status=status)
