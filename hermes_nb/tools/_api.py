"""The notebook API ``hn.tools``: run tools, export their schemas, answer LLM tool calls.

The registry itself (what plugins fill with ``ctx.register_tool``) is
``hermes_nb.plugins.tool_registry``; the hook pipeline a call runs is ``hermes_nb.tools.calls``;
the built-in ``web_search``, ``web_extract`` and ``image_generate`` tools are ``hermes_nb.tools.builtin``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from hermes_nb.errors import InvalidInputError
from hermes_nb.plugins.tool_registry import (
    ToolEntry,
    ToolRegistry,
    conflicts,
    current_owner,
    ensure_plugins_loaded,
    owner_scope,
    registry,
    tool_error,
    tool_result,
)
from hermes_nb.tools.calls import ahandle_function_call, error_message, handle_function_call
from hermes_nb.tools.toolsets import resolve_multiple_toolsets

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


def _parse(result: str) -> Any:
    try:
        return json.loads(result)
    except (ValueError, TypeError):
        return result


def call(name: str, args: dict[str, Any] | str | None = None, **ctx: Any) -> Any:
    """Run tool ``name`` through the full pipeline (hooks included); return the parsed JSON result."""
    return _parse(handle_function_call(name, args, **ctx))


async def acall(name: str, args: dict[str, Any] | str | None = None, **ctx: Any) -> Any:
    """Async twin of ``call``."""
    return _parse(await ahandle_function_call(name, args, **ctx))


def schemas(
    format: str = "openai",  # noqa: A002 - the public keyword users pass
    toolsets: Iterable[str] | str | None = None,
    names: Iterable[str] | None = None,
) -> list[dict[str, Any]]:
    """Definitions of the available tools for an LLM client (``"openai"`` or ``"anthropic"`` format)."""
    selected: list[str] | None = None if names is None else list(names)
    if toolsets is not None:
        chosen = resolve_multiple_toolsets([toolsets] if isinstance(toolsets, str) else list(toolsets))
        selected = chosen if selected is None else [n for n in selected if n in set(chosen)]
    return registry.get_definitions(selected, format=format)


def _field(obj: Any, key: str) -> Any:
    if isinstance(obj, dict):
        return obj.get(key)
    return getattr(obj, key, None)


def handle(tool_call: Any, **ctx: Any) -> Any:
    """Run a tool call from an LLM client and return the tool-result message in that client's format.

    Accepts OpenAI chat completions (``{"id", "type": "function", "function": {"name", "arguments"}}``
    or the SDK object), OpenAI Responses (``{"type": "function_call", "call_id", "name", "arguments"}``)
    and Anthropic (``{"type": "tool_use", "id", "name", "input"}``); a list gives a list of messages.
    """
    if isinstance(tool_call, (list, tuple)):
        return [handle(item, **ctx) for item in tool_call]
    kind = _field(tool_call, "type")
    function = _field(tool_call, "function")
    if function is not None and kind in (None, "function"):
        call_id = _field(tool_call, "id")
        result = handle_function_call(
            _field(function, "name"), _field(function, "arguments"), tool_call_id=call_id, **ctx
        )
        return {"role": "tool", "tool_call_id": call_id, "content": result}
    if kind == "function_call":
        call_id = _field(tool_call, "call_id")
        result = handle_function_call(
            _field(tool_call, "name"), _field(tool_call, "arguments"), tool_call_id=call_id, **ctx
        )
        return {"type": "function_call_output", "call_id": call_id, "output": result}
    if kind == "tool_use":
        call_id = _field(tool_call, "id")
        result = handle_function_call(
            _field(tool_call, "name"), _field(tool_call, "input"), tool_call_id=call_id, **ctx
        )
        message: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": result}
        if error_message(result) is not None:
            message["is_error"] = True
        return message
    raise InvalidInputError(
        "handle() takes a tool call from an LLM client: OpenAI chat completions "
        "({'id', 'type': 'function', 'function': {'name', 'arguments'}}), OpenAI Responses "
        "({'type': 'function_call', 'call_id', 'name', 'arguments'}) or Anthropic "
        f"({{'type': 'tool_use', 'id', 'name', 'input'}}); got {type(tool_call).__name__} with type={kind!r}"
    )


def list_tools() -> list[dict[str, Any]]:
    """One row per tool: ``name, toolset, owner, available, emoji, description, requires_env``."""
    return [
        {
            "name": e.name,
            "toolset": e.toolset,
            "owner": e.owner,
            "available": registry.is_available(e.name),
            "emoji": e.emoji,
            "description": e.description,
            "requires_env": list(e.requires_env),
        }
        for e in registry.entries()
    ]
