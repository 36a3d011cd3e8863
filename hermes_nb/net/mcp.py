"""Calling one tool of a remote MCP server over streamable HTTP: JSON-RPC POSTs through the shared client.

The vendors' public MCP endpoints (Exa, Parallel, Firecrawl) are the keyless way to reach them. One
call is the protocol's handshake (``initialize``, ``notifications/initialized``) followed by
``tools/call``; the server may answer each POST with JSON or with a short ``text/event-stream``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx

from hermes_nb._version import __version__
from hermes_nb.errors import HermesError, InvalidInputError, ParseError, ProviderUnavailableError
from hermes_nb.net.http_client import HttpClient

__all__ = ["PROTOCOL_VERSION", "call_tool", "tool_text"]

ErrorMap = Callable[[httpx.Response], "HermesError | None"]

PROTOCOL_VERSION = "2025-06-18"
_ACCEPT = "application/json, text/event-stream"
_INVALID_PARAMS = -32602


def call_tool(
    client: HttpClient,
    url: str,
    tool: str,
    arguments: dict[str, Any],
    *,
    headers: dict[str, str] | None = None,
    error_map: ErrorMap | None = None,
) -> dict[str, Any]:
    """The ``result`` of ``tools/call`` for ``tool`` on the MCP server at ``url`` (handshake included)."""
    base = {"Accept": _ACCEPT, **(headers or {})}
    init = {
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "hermes_nb", "version": __version__},
    }
    resp = client.request("POST", url, json=_rpc(1, "initialize", init), headers=base, error_map=error_map)
    _result(client.provider, resp, 1)
    session = {"MCP-Protocol-Version": PROTOCOL_VERSION}
    if resp.headers.get("mcp-session-id"):
        session["Mcp-Session-Id"] = resp.headers["mcp-session-id"]
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    client.request("POST", url, json=note, headers={**base, **session}, error_map=error_map)
    call = _rpc(2, "tools/call", {"name": tool, "arguments": arguments})
    resp = client.request("POST", url, json=call, headers={**base, **session}, error_map=error_map)
    result = _result(client.provider, resp, 2)
    if result.get("isError"):
        raise ProviderUnavailableError(
            f"{client.provider}: the MCP tool {tool} failed: {tool_text(result, strict=False)[:300]}",
            provider=client.provider,
        )
    return result


def tool_text(result: dict[str, Any], *, strict: bool = True) -> str:
    """The text parts of a tool result, joined (``strict``: an empty result is a ``ParseError``)."""
    parts = result.get("content")
    texts = (
        [str(p.get("text") or "") for p in parts if isinstance(p, dict) and p.get("type") == "text"]
        if isinstance(parts, list)
        else []
    )
    text = "\n".join(t for t in texts if t)
    if strict and not text and not isinstance(result.get("structuredContent"), dict):
        raise ParseError("the MCP tool answered without text content")
    return text


def _rpc(ident: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "method": method, "params": params}


def _messages(resp: httpx.Response) -> list[Any]:
    """JSON-RPC messages of a JSON body or of the ``data:`` lines of an event stream."""
    if "text/event-stream" not in resp.headers.get("content-type", ""):
        return [resp.json()]
    out, data = [], []
    for line in [*resp.text.splitlines(), ""]:
        if line.startswith("data:"):
            data.append(line[5:].lstrip())
        elif not line and data:
            out.append(json.loads("\n".join(data)))
            data = []
    return out


def _result(provider: str, resp: httpx.Response, ident: int) -> dict[str, Any]:
    try:
        messages = _messages(resp)
    except ValueError:
        raise ParseError(
            f"{provider}: the MCP server answered with invalid JSON", provider=provider
        ) from None
    for message in messages:
        if not isinstance(message, dict) or message.get("id") != ident:
            continue
        error = message.get("error")
        if isinstance(error, dict):
            raise _rpc_error(provider, error)
        result = message.get("result")
        if isinstance(result, dict):
            return result
    raise ParseError(f"{provider}: the MCP server sent no answer to request {ident}", provider=provider)


def _rpc_error(provider: str, error: dict[str, Any]) -> HermesError:
    text = f"{provider}: MCP error {error.get('code')}: {error.get('message') or 'no message'}"
    if error.get("code") == _INVALID_PARAMS:
        return InvalidInputError(text, provider=provider)
    return ProviderUnavailableError(text, provider=provider)
