"""Kept for collective transport only (``licensing/rules_transit.py`` imports ``add_years``
from here) until it moves into its own room; the grant rules live in ``licensing.grants.rules``."""

from licensing.grants.rules import add_years  # noqa: F401
