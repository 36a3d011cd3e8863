"""The version of hermes_nb (one place; the package metadata reads it from pyproject)."""

__version__ = "0.1.0"
