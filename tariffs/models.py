"""Models of tariffs."""
