"""lats package."""
