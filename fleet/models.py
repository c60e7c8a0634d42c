"""Models of fleet."""
