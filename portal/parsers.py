"""The API's JSON parser: anything that is not a well-formed UTF-8 JSON document is a 400.

DRF's parser turns a ``ValueError`` into a ParseError, but a deeply nested document
(``[[[[...``) overflows Python's recursion limit, a ``\\ud800`` escape decodes to a lone
surrogate and a ``\\u0000`` to a NUL that PostgreSQL will not store (a 500 at save time).
All are refused here; a NUL with the path of the field that carries it.
"""

from __future__ import annotations

from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.parsers import JSONParser

MAX_DEPTH = 32


def _check(value, path: tuple = ()) -> None:
    if len(path) > MAX_DEPTH:
        raise ParseError("O corpo da requisição tem aninhamento excessivo.")
    if isinstance(value, dict):
        for key, item in value.items():
            _check_text(key)
            if "\x00" in key:
                raise ParseError("O corpo da requisição contém caracteres inválidos.")
            _check(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value, start=1):
            _check(item, (*path, str(i)))
    elif isinstance(value, str):
        _check_text(value)
        if "\x00" in value:  # no database column stores it (PostgreSQL text and jsonb refuse NUL)
            raise ValidationError({".".join(path) or "non_field_errors": ["Caracteres nulos (\\u0000) não são permitidos."]})


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ParseError("O corpo da requisição contém caracteres inválidos (UTF-8).") from exc


def drop_nulls(value):
    """An optional field sent as ``null`` means the same as the field omitted (API.md, second
    round: "optional means nullable"): null members of JSON objects are removed, at every
    depth, so each serializer sees them as absent — its default applies, and a required field
    still answers "obrigatório" naming it. Nulls inside lists are left alone."""
    if isinstance(value, dict):
        return {k: drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [drop_nulls(v) for v in value]
    return value


class SafeJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError as exc:
            raise ParseError("O corpo da requisição tem aninhamento excessivo.") from exc
        _check(data)
        return drop_nulls(data)
