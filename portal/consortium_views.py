"""Pages of the consortium's administrator: aggregate figures across municipalities and the
consolidated open-data CSV. Only the ``consorcio`` role; no person's data."""

from __future__ import annotations

from django.http import StreamingHttpResponse
from django.views import View
from django.views.generic import TemplateView

from portal.consortium import breakdown_labels, consolidated_open_data, consortium_figures
from portal.public.api import CSV_SEPARATORS, OPEN_DATA_FIELDS, csv_chunks
from portal.roles import Role
from portal.views import RoleRequiredMixin

CONSOLIDATED_FIELDS = ("municipality", "uf", "ibge_code", *OPEN_DATA_FIELDS)


class ConsortiumView(RoleRequiredMixin, TemplateView):
    roles = (Role.CONSORTIUM,)
    template_name = "portal/consortium.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        figures, rows = consortium_figures()
        columns = []
        for figure in figures:
            labels = breakdown_labels(rows, figure.key)
            if labels:
                columns.extend({"key": figure.key, "sub": label, "label": f"{figure.label}: {label}"}
                               for label in labels)
            elif not any(isinstance(r.values.get(figure.key), dict) for r in rows):
                columns.append({"key": figure.key, "sub": None, "label": figure.label, "money": figure.money})
        table = []
        totals = [0 for _ in columns]
        for row in rows:
            cells = []
            for i, column in enumerate(columns):
                value = row.values.get(column["key"])
                if column["sub"] is not None:
                    value = (value or {}).get(column["sub"], 0)
                value = value or 0
                totals[i] += value
                cells.append({"value": value, "money": column.get("money", False)})
            table.append({"municipality": row.municipality, "year": row.year, "cells": cells})
        ctx.update(columns=columns, table=table, totals=[
            {"value": total, "money": column.get("money", False)} for total, column in zip(totals, columns, strict=True)])
        return ctx


class ConsolidatedOpenDataView(RoleRequiredMixin, View):
    """The open data of every municipality in one CSV (defusedcsv, UTF-8 with BOM, ``?sep=;``)."""

    roles = (Role.CONSORTIUM,)

    def get(self, request):
        sep = CSV_SEPARATORS.get(request.GET.get("sep", ","), ",")
        rows = consolidated_open_data(request.GET.get("q", "").strip(), request.GET.get("modality", ""))
        response = StreamingHttpResponse(csv_chunks(rows, sep, fields=CONSOLIDATED_FIELDS),
                                         content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="outorgas-vigentes-consorcio.csv"'
        response["Cache-Control"] = "private, no-store"
        return response
