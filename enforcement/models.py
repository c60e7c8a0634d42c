"""Models of enforcement."""
