"""The kinds of request about a grant, one module each, registered in ``KINDS`` (code → Kind).

A new kind is one module here (a ``Kind`` built from its ``offered``, ``refusal``, ``clean``
and ``apply``, registered with ``register``) plus its form in ``licensing.requests.forms``
and its ``RequestKind`` choice. Modules are imported here in the order of ``RequestKind``.
"""

from licensing.requests.kinds import (  # noqa: F401  (each module registers its kind)
    auxiliary_add,
    auxiliary_remove,
    auxiliary_reregistration,
    compliance_proof,
    leave,
    preposto,
    renunciation,
    substitution,
    transfer,
)
from licensing.requests.kinds.base import KINDS, Kind

__all__ = ["KINDS", "Kind"]
