"""net.mcp: the streamable-HTTP handshake, JSON and event-stream answers, and how failures are typed."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from hermes_nb import config
from hermes_nb.errors import InvalidInputError, ParseError, ProviderUnavailableError, RateLimitedError
from hermes_nb.net.http_client import HttpClient
from hermes_nb.net.mcp import PROTOCOL_VERSION, call_tool, tool_text

URL = "https://mcp.example.test/mcp"


def _client(answer: Callable[[dict[str, Any]], httpx.Response], seen: list[httpx.Request]) -> HttpClient:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return answer(json.loads(request.content))

    config.set("web.max_retries", 0)
    return HttpClient("mcp-test", transport=httpx.MockTransport(handler))


def _server(result: dict[str, Any] | None = None, error: dict[str, Any] | None = None, *, sse: bool = False):
    def answer(message: dict[str, Any]) -> httpx.Response:
        if message["method"] == "initialize":
            return httpx.Response(
                200,
                json={"jsonrpc": "2.0", "id": message["id"], "result": {}},
                headers={"Mcp-Session-Id": "s-1"},
            )
        if "id" not in message:
            return httpx.Response(202)
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        reply.update({"error": error} if error else {"result": result})
        if sse:
            body = f"event: message\ndata: {json.dumps(reply)}\n\n"
            return httpx.Response(200, text=body, headers={"content-type": "text/event-stream"})
        return httpx.Response(200, json=reply)

    return answer


@pytest.mark.parametrize("sse", [False, True])
def test_handshake_then_the_call(sse: bool) -> None:
    seen: list[httpx.Request] = []
    result = {"content": [{"type": "text", "text": "hello"}, {"type": "image", "data": "x"}]}
    client = _client(_server(result, sse=sse), seen)
    out = call_tool(client, URL, "echo", {"q": 1}, headers={"Authorization": "Bearer k"})
    assert tool_text(out) == "hello"
    methods = [json.loads(r.content)["method"] for r in seen]
    assert methods == ["initialize", "notifications/initialized", "tools/call"]
    assert json.loads(seen[0].content)["params"]["protocolVersion"] == PROTOCOL_VERSION
    assert all("text/event-stream" in r.headers["accept"] for r in seen)
    assert "mcp-session-id" not in seen[0].headers
    assert seen[2].headers["mcp-session-id"] == "s-1" and seen[2].headers["authorization"] == "Bearer k"
    assert json.loads(seen[2].content)["params"] == {"name": "echo", "arguments": {"q": 1}}


def test_invalid_params_is_invalid_input_other_rpc_errors_unavailable() -> None:
    client = _client(_server(error={"code": -32602, "message": "bad query"}), [])
    with pytest.raises(InvalidInputError, match="bad query"):
        call_tool(client, URL, "t", {})
    client = _client(_server(error={"code": -32603, "message": "boom"}), [])
    with pytest.raises(ProviderUnavailableError, match="boom"):
        call_tool(client, URL, "t", {})


def test_a_tool_failure_is_unavailable() -> None:
    client = _client(_server({"content": [{"type": "text", "text": "crawl failed"}], "isError": True}), [])
    with pytest.raises(ProviderUnavailableError, match="crawl failed"):
        call_tool(client, URL, "t", {})


def test_no_answer_or_no_text_is_a_parse_error() -> None:
    def silent(message: dict[str, Any]) -> httpx.Response:
        if message.get("method") == "tools/call":
            return httpx.Response(200, text="event: ping\n\n", headers={"content-type": "text/event-stream"})
        return _server({})(message)

    with pytest.raises(ParseError, match="no answer"):
        call_tool(_client(silent, []), URL, "t", {})
    with pytest.raises(ParseError):
        tool_text({"content": []})


def test_http_429_is_rate_limited_with_its_delay() -> None:
    client = _client(lambda message: httpx.Response(429, headers={"Retry-After": "9"}), [])
    with pytest.raises(RateLimitedError) as info:
        call_tool(client, URL, "t", {})
    assert info.value.retry_after == 9.0
