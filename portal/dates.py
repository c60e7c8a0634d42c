"""Dates typed by people or programs stay within a sane range (1900–2200).

Python accepts 9999-12-31 and 0001-01-01, but every deadline computed from them (a
notification's defence period, a fee's due date) overflows ``date`` and the request ends in
a 500. Every DateField and DateTimeField, of Django forms and of DRF serializers, refuses
such a date as invalid input with a message naming the field. Installed once at start-up
(portal.apps.PortalConfig.ready).
"""

from __future__ import annotations

from datetime import date, datetime

MIN_YEAR = 1900
MAX_YEAR = 2200
MESSAGE = f"Data fora do intervalo aceito ({MIN_YEAR}–{MAX_YEAR})."


def _out_of_range(value) -> bool:
    return isinstance(value, (date, datetime)) and not MIN_YEAR <= value.year <= MAX_YEAR


def install() -> None:
    from django import forms
    from rest_framework import serializers

    def wrap_form(cls):
        original = cls.to_python
        if getattr(original, "_sane_range", False):
            return

        def to_python(self, value):
            result = original(self, value)
            if _out_of_range(result):
                raise forms.ValidationError(MESSAGE, code="invalid")
            return result

        to_python._sane_range = True
        cls.to_python = to_python

    def wrap_serializer(cls):
        original = cls.to_internal_value
        if getattr(original, "_sane_range", False):
            return

        def to_internal_value(self, value):
            result = original(self, value)
            if _out_of_range(result):
                raise serializers.ValidationError(MESSAGE, code="invalid")
            return result

        to_internal_value._sane_range = True
        cls.to_internal_value = to_internal_value

    for cls in (forms.DateField, forms.DateTimeField):
        wrap_form(cls)
    for cls in (serializers.DateField, serializers.DateTimeField):
        wrap_serializer(cls)


MONTHS = ("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro",
          "novembro", "dezembro")


def long_date(day: date) -> str:
    """``18 de maio de 2022``, as an act is dated."""
    return f"{day.day} de {MONTHS[day.month - 1]} de {day.year}"
