"""Permission matrix of grants (the act, amendment and alvará PDFs; the world is the applications' one)."""

from tests.licensing.applications.matrix import _api
from tests.matrix import Row

ROWS = [
    Row("api-authorization-act-pdf", _api({"outsider": 404, "*": 200}), api=True,
        kwargs=lambda w: {"pk": w["authorization"].pk}),
    Row("api-alvara-pdf", _api({"outsider": 404, "*": 200}), api=True, kwargs=lambda w: {"pk": w["alvara"].pk}),
    Row("api-amendment-pdf", _api({"outsider": 404, "*": 200}), api=True, kwargs=lambda w: {"pk": w["amendment"].pk}),
]
