"""``tools.registry``: the tool registry singleton and the ``tool_error``/``tool_result`` helpers."""

from __future__ import annotations

from hermes_nb.plugins.tool_registry import registry, tool_error, tool_result

HERMES_NAME = "tools.registry"
__all__ = ["registry", "tool_error", "tool_result"]
