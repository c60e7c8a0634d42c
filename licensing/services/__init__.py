"""Licensing services: the only writers of grants, alvarás, calls and applications.

``grants`` issues acts and changes their status; ``calls`` opens editais; ``applications``
carries a requerimento from draft to decision, one service per transition.
"""

from licensing.services.applications import (  # noqa: F401
    application_approve,
    application_create,
    application_reject,
    application_submit,
    application_update,
    application_withdraw,
    document_upload,
    entry_violations,
    required_documents,
)
from licensing.services.calls import call_open, open_call_for  # noqa: F401
from licensing.services.grants import (  # noqa: F401
    alvara_issue,
    alvara_set_status,
    authorization_issue,
    authorization_restore,
    authorization_set_status,
    authorization_set_suspension_end,
    grant_bar_create,
    grant_bars_lift,
)
from licensing.services.review import (  # noqa: F401
    document_review,
    documents_accept,
    inspection_record,
    inspection_schedule,
    requirement_raise,
)
