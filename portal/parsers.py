"""The API's JSON parser: anything that is not a well-formed UTF-8 JSON document is a 400.

DRF's parser turns a ``ValueError`` into a ParseError, but a deeply nested document
(``[[[[...``) overflows Python's recursion limit and a ``\\ud800`` escape decodes to a
lone surrogate that no database can store (a 500 at save time). Both are refused here.
"""

from __future__ import annotations

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

MAX_DEPTH = 32


def _check(value, depth: int = 0) -> None:
    if depth > MAX_DEPTH:
        raise ParseError("O corpo da requisição tem aninhamento excessivo.")
    if isinstance(value, dict):
        for key, item in value.items():
            _check_text(key)
            if "\x00" in key:
                raise ParseError("O corpo da requisição contém caracteres inválidos.")
            _check(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check(item, depth + 1)
    elif isinstance(value, str):
        _check_text(value)


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ParseError("O corpo da requisição contém caracteres inválidos (UTF-8).") from exc


class SafeJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError as exc:
            raise ParseError("O corpo da requisição tem aninhamento excessivo.") from exc
        _check(data)
        return data
