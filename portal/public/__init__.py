"""Public pages (no login): verification, transparency, quotas, stands and statistics."""
