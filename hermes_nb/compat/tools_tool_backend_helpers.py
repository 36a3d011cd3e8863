"""``tools.tool_backend_helpers``: whether a tool section prefers the managed gateway (never, here)."""

from __future__ import annotations

from typing import Any

HERMES_NAME = "tools.tool_backend_helpers"
__all__ = ["prefers_gateway"]


def prefers_gateway(section: str = "", *args: Any, **kwargs: Any) -> bool:
    """False: hermes_nb has no managed gateway, so the direct vendor path is always taken."""
    return False
