"""Tools: the ``hn.tools`` API, toolsets, the tool-call pipeline and the built-in tools.

``hn.tools.call("web_search", {...})`` runs a tool through the full hook pipeline;
``schemas()`` exports definitions for LLM clients; ``handle()`` answers their tool calls.
"""

from hermes_nb.tools._api import (
    ToolEntry,
    ToolRegistry,
    acall,
    call,
    conflicts,
    current_owner,
    ensure_plugins_loaded,
    handle,
    list_tools,
    owner_scope,
    registry,
    schemas,
    tool_error,
    tool_result,
)

__all__ = [
    "ToolEntry",
    "ToolRegistry",
    "registry",
    "tool_error",
    "tool_result",
    "owner_scope",
    "current_owner",
    "ensure_plugins_loaded",
    "call",
    "acall",
    "schemas",
    "handle",
    "list_tools",
    "conflicts",
]
