"""Kept for collective transport only (``licensing/documents_transit.py`` imports these) until
it moves into its own room; the shared PDF pieces live in ``licensing.grants.documents``."""

from licensing.grants.documents import _base, _long_date  # noqa: F401
