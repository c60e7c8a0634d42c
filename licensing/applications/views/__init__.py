"""Application pages: ``applicant`` (profile, wizard, status, PDFs) and ``desk`` (queue,
review and decisions, calls, ranking, vistorias)."""
