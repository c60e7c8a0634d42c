"""OpenAPI schema generation."""

from __future__ import annotations

import re

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from rest_framework.generics import GenericAPIView

_ENDS_WITH_PARAM = re.compile(r"\{[^}]+\}/?$")


class PortalAutoSchema(AutoSchema):
    """Plain APIViews without a declared serializer are described as a JSON object (their
    exact fields are in API.md) instead of being left out of the schema; list endpoints get
    a ``_list`` operation id."""

    def _get_serializer(self):
        view = self.view
        declares = getattr(view, "serializer_class", None) is not None or (
            isinstance(view, GenericAPIView)
            and type(view).get_serializer_class is not GenericAPIView.get_serializer_class
        )
        if not declares:
            return OpenApiTypes.OBJECT
        return super()._get_serializer()

    def get_operation_id(self):
        operation_id = super().get_operation_id()
        if self.method == "GET" and operation_id.endswith("_retrieve") and not _ENDS_WITH_PARAM.search(self.path):
            operation_id = operation_id[: -len("_retrieve")] + "_list"
        return operation_id
