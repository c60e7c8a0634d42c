"""PostgreSQL backend that tells the database which municipality is in scope (row-level security)."""
