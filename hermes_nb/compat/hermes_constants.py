"""``hermes_constants``: where Hermes keeps its files (``$HERMES_HOME``)."""

from __future__ import annotations

from hermes_nb.config import get_hermes_home

HERMES_NAME = "hermes_constants"
__all__ = ["get_hermes_home"]
