"""Beat entry of applications (plain data, no Django imports)."""

from portal.beat import daily_local

# LGPD retention: files of refused, withdrawn or abandoned applications past the pack's period.
BEAT = {
    "licensing-purge-documents": daily_local("licensing.tasks.purge_expired_documents", 3, 45),
}
