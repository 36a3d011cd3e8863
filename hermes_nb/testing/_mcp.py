"""Emulated public MCP endpoints (streamable HTTP, JSON-RPC 2.0): the handshake and ``tools/call``.

Vendors' keyless endpoints (Exa, Parallel, Firecrawl) share this: ``initialize`` answers JSON and
hands out an ``Mcp-Session-Id``; ``tools/call`` needs that session and answers as a one-event
``text/event-stream``, as hosted MCP servers do; a tool's failure is a result with ``isError``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from hermes_nb.testing._wire import Call, Response

__all__ = ["Tool", "ToolFailedError", "serve_mcp"]

#: a tool: (call, arguments) -> the text it answers (raise ToolFailedError for ``isError``)
Tool = Callable[[Call, dict[str, Any]], str]


class ToolFailedError(Exception):
    """Raised by an emulated tool: the result carries ``isError: true`` and this message."""


def _session(call: Call) -> str:
    return hashlib.sha256(f"{call.emu.seed}|{call.subpath}".encode()).hexdigest()[:24]


def _answer(
    ident: Any,
    result: dict[str, Any] | None = None,
    error: dict[str, Any] | None = None,
    *,
    stream: bool = False,
    headers: dict[str, str] | None = None,
) -> Response:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": ident}
    message["error" if error is not None else "result"] = error if error is not None else result
    if not stream:
        return Response.json(message, headers=headers)
    body = f"event: message\ndata: {json.dumps(message)}\n\n"
    return Response.text(body, content_type="text/event-stream", headers=headers)


def serve_mcp(call: Call, server: str, tools: dict[str, Tool]) -> Response:
    """Answer one POST to an emulated MCP endpoint offering ``tools``."""
    if call.request.method != "POST":
        return Response.json(
            {"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": "Method not allowed."}}, 405
        )
    accept = call.header("accept") or ""
    if "application/json" not in accept or "text/event-stream" not in accept:
        return Response.json(
            {
                "jsonrpc": "2.0",
                "id": None,
                "error": {
                    "code": -32000,
                    "message": "Not Acceptable: Client must accept application/json and text/event-stream",
                },
            },
            406,
        )
    message = call.request.json
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return Response.json(
            {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}, 400
        )
    method, ident = message.get("method"), message.get("id")
    if method == "initialize":
        result = {
            "protocolVersion": str((message.get("params") or {}).get("protocolVersion") or "2025-06-18"),
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": server, "version": "1.0.0"},
        }
        return _answer(ident, result, headers={"Mcp-Session-Id": _session(call)})
    if call.header("mcp-session-id") != _session(call):
        return Response.json(
            {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": -32000, "message": "Bad Request: No valid session ID provided"},
            },
            400,
        )
    if ident is None:  # a notification (notifications/initialized)
        return Response(202, b"", "application/json")
    if method == "tools/list":
        return _answer(
            ident,
            {"tools": [{"name": name, "inputSchema": {"type": "object"}} for name in tools]},
            stream=True,
        )
    if method != "tools/call":
        return _answer(ident, error={"code": -32601, "message": f"Method not found: {method}"}, stream=True)
    params = message.get("params") or {}
    tool = tools.get(str(params.get("name")))
    arguments = params.get("arguments")
    if tool is None or not isinstance(arguments, dict):
        return _answer(
            ident,
            error={"code": -32602, "message": f"Invalid params: unknown tool {params.get('name')}"},
            stream=True,
        )
    try:
        text = tool(call, arguments)
    except ToolFailedError as exc:
        return _answer(ident, {"content": [{"type": "text", "text": str(exc)}], "isError": True}, stream=True)
    except (KeyError, TypeError, ValueError) as exc:
        return _answer(ident, error={"code": -32602, "message": f"Invalid params: {exc}"}, stream=True)
    return _answer(ident, {"content": [{"type": "text", "text": text}], "isError": False}, stream=True)
