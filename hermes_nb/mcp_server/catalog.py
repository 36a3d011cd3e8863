"""What the MCP server offers: the tool list and one call, as MCP types.

Tools are those of ``hn.tools`` that are available (plugins' tools with their JSON schemas), plus
``web_crawl``, which Hermes no longer lists as a model tool but the SDK keeps. Tools that
themselves come from MCP servers (``mcp.servers``) are not re-served: a server configured to
reach itself would otherwise start itself without end.

A result is the tool's JSON text (and the same object as structured content); an image result also
carries a small JPEG thumbnail as image content and its file path. A failure is a tool error
(``isError``) whose text is ``CODE: message`` — the message names the fix — never a traceback.
"""

from __future__ import annotations

import base64
import json
import logging
from pathlib import Path
from typing import Any

from mcp import types

from hermes_nb.plugins.registry import web_providers
from hermes_nb.plugins.tool_registry import registry
from hermes_nb.redaction import redact
from hermes_nb.store.image_files import thumbnail
from hermes_nb.tools import calls
from hermes_nb.tools.builtin import WEB_CRAWL_SCHEMA, web_crawl_tool

__all__ = ["THUMBNAIL_PX", "SESSION_ID", "list_tools", "call_tool"]

log = logging.getLogger(__name__)

#: Longest edge of the thumbnail an image result carries (a JPEG of a few kB).
THUMBNAIL_PX = 128
#: ``session_id`` the tool hooks see for calls that came through the MCP server.
SESSION_ID = "mcp"
_CRAWL = "web_crawl"
_EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


def _served(owner: str) -> bool:
    return not owner.startswith("mcp:")


def _crawl_available() -> bool:
    for provider in web_providers.list():
        try:
            if provider.supports_crawl() and provider.is_available():
                return True
        except Exception:  # a broken provider must not hide the others
            continue
    return False


def _definitions() -> dict[str, dict[str, Any]]:
    """Name → ``{"description", "input_schema"}`` of every tool served now."""
    served = {e.name for e in registry.entries() if _served(e.owner)}
    out: dict[str, dict[str, Any]] = {}
    for row in registry.get_definitions(sorted(served), format="anthropic", quiet=True):
        out[row["name"]] = {"description": row["description"], "input_schema": row["input_schema"]}
    if _CRAWL not in out and _crawl_available():
        out[_CRAWL] = {
            "description": WEB_CRAWL_SCHEMA["description"],
            "input_schema": WEB_CRAWL_SCHEMA["parameters"],
        }
    return out


def _input_schema(schema: Any) -> dict[str, Any]:
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return dict(_EMPTY_SCHEMA)
    return schema


def list_tools() -> list[types.Tool]:
    """The tools an MCP client sees (``tools/list``)."""
    return [
        types.Tool(
            name=name, description=row["description"] or name, input_schema=_input_schema(row["input_schema"])
        )
        for name, row in sorted(_definitions().items())
    ]


def _error(text: str, code: str | None) -> types.CallToolResult:
    message = redact(text.strip().splitlines()[0] if text.strip() else "the tool failed without a message")
    shown = f"{code}: {message}" if code else message
    data: dict[str, Any] = {"error": message, **({"code": code} if code else {})}
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=shown)], structured_content=data, is_error=True
    )


def _failure_of(data: Any) -> tuple[str, str | None] | None:
    """``(message, code)`` when the JSON result is a failure, else None."""
    if not isinstance(data, dict):
        return None
    if data.get("success") is False or (data.get("error") and "results" not in data):
        return str(data.get("error") or "the tool failed"), data.get("code") or None
    rows = data.get("results")
    if isinstance(rows, list) and rows and all(isinstance(r, dict) and r.get("error") for r in rows):
        first = rows[0]
        url, error = str(first.get("url") or ""), str(first["error"])
        return (error if url in error else f"{url or 'the page'}: {error}"), first.get("code") or None
    return None


def _image_parts(data: dict[str, Any]) -> list[types.ContentBlock]:
    image = data.get("image")
    if not isinstance(image, str) or not image or not Path(image).is_file():
        return []
    try:
        thumb = thumbnail(Path(image), max_px=THUMBNAIL_PX, fmt="JPEG")
    except Exception as exc:  # the path is still useful without a thumbnail
        log.warning("thumbnail of %s failed: %s", image, redact(str(exc)))
        return [types.TextContent(type="text", text=f"image saved to {image}")]
    return [
        types.ImageContent(
            type="image", data=base64.b64encode(thumb).decode("ascii"), mime_type="image/jpeg"
        ),
        types.TextContent(type="text", text=f"image saved to {image}"),
    ]


def to_result(raw: str) -> types.CallToolResult:
    """The MCP result of a tool's JSON result string."""
    try:
        data = json.loads(raw)
    except (TypeError, ValueError):
        return types.CallToolResult(content=[types.TextContent(type="text", text=str(raw))])
    failure = _failure_of(data)
    if failure is not None:
        return _error(*failure)
    content: list[types.ContentBlock] = [types.TextContent(type="text", text=raw)]
    if isinstance(data, dict):
        content += _image_parts(data)
    return types.CallToolResult(content=content, structured_content=data if isinstance(data, dict) else None)


def call_tool(name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
    """Run tool ``name`` through the ``hn.tools`` pipeline (blocking: the server runs it in a thread)."""
    served = _definitions()
    if name not in served:
        known = ", ".join(sorted(served)) or "none"
        return _error(f"no tool {name!r} is served here; tools/list shows them ({known})", "INVALID_INPUT")
    args = dict(arguments or {})
    if name == _CRAWL and registry.get_entry(_CRAWL) is None:
        raw = calls.handle_unregistered_call(name, args, web_crawl_tool, session_id=SESSION_ID)
    else:
        raw = calls.handle_function_call(name, args, session_id=SESSION_ID)
    return to_result(raw)
