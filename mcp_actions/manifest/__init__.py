"""manifest package."""
