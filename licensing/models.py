"""Models of licensing."""
