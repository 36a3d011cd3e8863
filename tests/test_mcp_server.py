"""``hermes-nb mcp``: the official SDK's client over stdio and over loopback HTTP, against the emulator.

The server runs as a real subprocess (``python -m hermes_nb.cli mcp``) with this test's HERMES_HOME,
so it shares the store with the test process: what it fetches is a cache hit for ``hn.search`` here
and the other way round. No network: providers point at the in-process emulator.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

pytest.importorskip("mcp")

import hermes_nb as hn
from hermes_nb import config
from hermes_nb.cli import main
from hermes_nb.errors import InvalidInputError
from hermes_nb.mcp_server import catalog, parse_bind
from hermes_nb.notebook import commands as hermes_command
from hermes_nb.plugins import hooks
from hermes_nb.testing import Emulator

ROOT = Path(__file__).resolve().parents[1]
KEYS = {"BRAVE_SEARCH_API_KEY": "emu-brave-key", "OPENAI_API_KEY": "emu-openai-key"}
CALL_TIMEOUT_S = 120.0  # bounds every client call; a loaded machine takes seconds, not minutes


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator(seed=0) as server:
        yield server


def _write_config(home: Path, emu: Emulator) -> None:
    settings = {
        "web": {"search_backend": "brave", "brave": {"base_url": emu.base_url("brave")}},
        "image_gen": {"provider": "openai", "openai": {"base_url": emu.base_url("openai")}},
    }
    (home / "config.yaml").write_text(yaml.safe_dump(settings), encoding="utf-8")


@pytest.fixture
def home(hermetic: Path, emu: Emulator) -> Path:
    """The test's HERMES_HOME, pointed at the emulator; this process has the same keys as the server."""
    _write_config(hermetic, emu)
    for name, value in KEYS.items():
        config.set_key(name, value)
    return hermetic


def _env(home: Path, **extra: str) -> dict[str, str]:
    return {"HERMES_HOME": str(home), "PYTHONPATH": str(ROOT), "HERMES_NB_PROGRESS": "0", **KEYS, **extra}


def _with_stdio(env: dict[str, str], body: Callable[[Any], Awaitable[Any]]) -> Any:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "hermes_nb.cli", "mcp"], env=env)

    async def run() -> Any:
        async with Client(params, read_timeout_seconds=CALL_TIMEOUT_S) as client:
            return await body(client)

    return asyncio.run(asyncio.wait_for(run(), 4 * CALL_TIMEOUT_S))


def _text(result: Any) -> str:
    return "\n".join(b.text for b in result.content if b.type == "text")


def test_stdio_lists_and_calls_the_tools_like_a_cell(home: Path, emu: Emulator) -> None:
    from PIL import Image

    seen: dict[str, Any] = {}

    async def session(client: Any) -> None:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        seen["tools"] = listed
        seen["search"] = await client.call_tool("web_search", {"query": "python notebooks", "limit": 3})
        seen["search_count"] = emu.request_count("brave")
        seen["image"] = await client.call_tool(
            "image_generate", {"prompt": "a red fox", "aspect_ratio": "square"}
        )
        seen["image_again"] = await client.call_tool(
            "image_generate", {"prompt": "a red fox", "aspect_ratio": "square"}
        )
        seen["empty"] = await client.call_tool("web_search", {"query": ""})
        seen["private"] = await client.call_tool(
            "web_extract", {"urls": [emu.page_url("/site/articles/hello-world.html")]}
        )
        seen["unknown"] = await client.call_tool("no_such_tool", {})

    _with_stdio(_env(home), session)

    tools = seen["tools"]
    assert {"web_search", "web_extract", "web_crawl", "image_generate", "calculate"} <= set(tools)
    assert tools["web_search"].input_schema["required"] == ["query"]
    assert tools["calculate"].input_schema["type"] == "object"  # a plugin's tool, with its schema

    search = seen["search"]
    assert not search.is_error
    hits = search.structured_content["data"]["web"]
    assert len(hits) == 3 and seen["search_count"] == 1
    # the same call from this process (what %web_search runs) is a cache hit: one request in all
    here = hn.search("python notebooks", limit=3)
    assert here.cached and [h.url for h in here] == [h["url"] for h in hits]
    assert emu.request_count("brave") == 1

    image = seen["image"]
    assert not image.is_error
    (thumb,) = [b for b in image.content if b.type == "image"]
    assert thumb.mime_type == "image/jpeg"
    data = base64.b64decode(thumb.data)
    assert len(data) < 20_000
    with Image.open(io.BytesIO(data)) as picture:
        assert max(picture.size) <= catalog.THUMBNAIL_PX
    path = Path(image.structured_content["image"])
    assert path.is_file() and f"image saved to {path}" in _text(image)
    assert emu.request_count("openai") == 1  # the second identical call was served from the store: paid once
    assert Path(seen["image_again"].structured_content["image"]) == path

    empty = seen["empty"]
    assert empty.is_error and _text(empty).startswith("INVALID_INPUT: ") and "Traceback" not in _text(empty)
    private = seen["private"]
    assert private.is_error and _text(private).startswith("CONTENT_BLOCKED: ")
    assert "security.allow_private_urls" in _text(private)  # the one-line fix
    assert not any(r.path.startswith("/site") for r in emu.requests)
    unknown = seen["unknown"]
    assert unknown.is_error and _text(unknown).startswith("INVALID_INPUT: ")


def test_stdio_replays_a_cassette_with_no_network(home: Path, emu: Emulator, tmp_path: Path) -> None:
    cassette = tmp_path / "agent.hnb.jsonl"
    with hn.cache.record(cassette):
        recorded = hn.search("replayed query", limit=3)
    before = emu.request_count()
    fresh_home = tmp_path / "fresh_home"  # an empty store: only the cassette can answer
    fresh_home.mkdir()
    _write_config(fresh_home, emu)

    async def session(client: Any) -> tuple[Any, Any]:
        hit = await client.call_tool("web_search", {"query": "replayed query", "limit": 3})
        miss = await client.call_tool("web_search", {"query": "never recorded", "limit": 3})
        return hit, miss

    hit, miss = _with_stdio(_env(fresh_home, HERMES_NB_REPLAY=str(cassette)), session)
    assert not hit.is_error
    assert [h["url"] for h in hit.structured_content["data"]["web"]] == [h.url for h in recorded]
    assert miss.is_error and _text(miss).startswith("CACHE_MISS: ")
    assert emu.request_count() == before  # zero requests while replaying


class _HttpServer:
    """``hermes-nb mcp --http 127.0.0.1:0`` as a subprocess: its URL and token from the first lines."""

    def __init__(self, env: dict[str, str]) -> None:
        command = [sys.executable, "-m", "hermes_nb.cli", "mcp", "--http", "127.0.0.1:0"]
        self.proc = subprocess.Popen(
            command,
            env={**os.environ, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(
            target=lambda: [lines.put(line) for line in self.proc.stdout or []], daemon=True
        ).start()
        self.url = self.token = ""
        self.output: list[str] = []
        while not (self.url and self.token):
            try:
                line = lines.get(timeout=60)
            except queue.Empty:
                self.close()
                raise AssertionError(f"the HTTP server did not start: {self.output}") from None
            self.output.append(line)
            if line.startswith("hermes-nb MCP server on "):
                self.url = line.split(" on ", 1)[1].split()[0]
            elif line.startswith("bearer token (shown once): "):
                self.token = line.rsplit(" ", 1)[1].strip()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(15)


@pytest.fixture
def http_server(home: Path) -> Iterator[_HttpServer]:
    server = _HttpServer(_env(home))
    try:
        yield server
    finally:
        server.close()


def test_http_requires_the_token_and_serves_the_tools(http_server: _HttpServer, emu: Emulator) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    assert http_server.url.startswith("http://127.0.0.1:") and http_server.url.endswith("/mcp")
    hello = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    accept = {"Accept": "application/json, text/event-stream"}
    refused = httpx.post(http_server.url, json=hello, headers=accept, timeout=30)
    assert refused.status_code == 401 and "bearer token" in refused.json()["error_description"]
    wrong = httpx.post(
        http_server.url, json=hello, headers={**accept, "Authorization": "Bearer nope"}, timeout=30
    )
    assert wrong.status_code == 401

    async def session() -> tuple[list[str], Any]:
        headers = {"Authorization": f"Bearer {http_server.token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=CALL_TIMEOUT_S) as http:
            transport = streamable_http_client(http_server.url, http_client=http)
            async with Client(transport, read_timeout_seconds=CALL_TIMEOUT_S) as client:
                names = [t.name for t in (await client.list_tools()).tools]
                return names, await client.call_tool("web_search", {"query": "http agents", "limit": 2})

    names, search = asyncio.run(asyncio.wait_for(session(), 4 * CALL_TIMEOUT_S))
    assert {"web_search", "image_generate"} <= set(names)
    assert not search.is_error and len(search.structured_content["data"]["web"]) == 2
    assert emu.request_count("brave") == 1


def test_an_mcp_server_of_mcp_servers_can_be_this_http_server(http_server: _HttpServer) -> None:
    """Both directions at once: the kernel calls hermes-nb's own HTTP server as a configured MCP server."""
    config.set_key("HERMES_NB_MCP_TOKEN", http_server.token)
    config.set(
        "mcp.servers",
        {
            "self": {
                "url": http_server.url,
                "headers": {"Authorization": "Bearer ${HERMES_NB_MCP_TOKEN}"},
                "allow": ["calculate"],
                "timeout": 60,
            }
        },
    )
    assert "256" in hn.tools.call("mcp_self_calculate", {"expression": "2**8"})["result"]


def test_non_loopback_binds_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mcp", "--http", "0.0.0.0:8765"]) == 1
    assert "loopback only" in capsys.readouterr().err
    for bind in ("10.1.2.3:80", "example.com:80", "127.0.0.1", "127.0.0.1:99999"):
        with pytest.raises(InvalidInputError):
            parse_bind(bind)
    assert parse_bind("localhost:0") == ("localhost", 0)
    assert parse_bind("[::1]:8765") == ("::1", 8765)


def test_served_tools_exclude_tools_that_are_mcp_servers_themselves() -> None:
    config.set(
        "mcp.servers", {"other": {"command": sys.executable, "args": ["-c", "pass"], "allow": ["echo"]}}
    )
    assert "mcp_other_echo" in hn.tools.registry.get_all_tool_names()
    served = {t.name for t in catalog.list_tools()}
    assert "mcp_other_echo" not in served and "calculate" in served
    refused = catalog.call_tool("mcp_other_echo", {})
    assert refused.is_error and refused.content[0].text.startswith("INVALID_INPUT: ")


def test_calls_run_the_tool_hooks() -> None:
    seen: list[str] = []

    def block(tool_name: str, **_: Any) -> Any:
        seen.append(tool_name)
        return (
            {"action": "block", "message": "calculations are off today"} if tool_name == "calculate" else None
        )

    hooks.register_hook("pre_tool_call", block)
    blocked = catalog.call_tool("calculate", {"expression": "1+1"})
    assert blocked.is_error and blocked.content[0].text == "calculations are off today"
    assert seen == ["calculate"]


def test_results_map_to_mcp_content() -> None:
    failed = catalog.to_result(
        json.dumps({"success": False, "error": "no key\nsecond line", "code": "PROVIDER_NOT_CONFIGURED"})
    )
    assert failed.is_error and failed.content[0].text == "PROVIDER_NOT_CONFIGURED: no key"
    assert failed.structured_content == {"error": "no key", "code": "PROVIDER_NOT_CONFIGURED"}
    rows = {"results": [{"url": "https://a.test/", "error": "timed out", "code": "TIMEOUT", "content": ""}]}
    assert catalog.to_result(json.dumps(rows)).content[0].text == "TIMEOUT: https://a.test/: timed out"
    fine = catalog.to_result(json.dumps({"results": [{"url": "u", "content": "text", "error": None}]}))
    assert not fine.is_error and fine.structured_content["results"][0]["content"] == "text"


def test_hermes_mcp_prints_the_registration_snippets() -> None:
    shown = hermes_command.run(["mcp"])
    text = repr(shown)
    parts = shown.parts
    generic = json.loads(parts["any MCP client"][1])["mcpServers"]["hermes-nb"]
    assert generic["args"][-1] == "mcp" and generic["env"]["HERMES_HOME"] == str(config.get_hermes_home())
    jupyter_ai = json.loads(parts["Jupyter AI"][1])["mcp_servers"][0]
    assert jupyter_ai["name"] == "hermes-nb" and jupyter_ai["env"][0]["name"] == "HERMES_HOME"
    tomllib = pytest.importorskip("tomllib")
    marimo = tomllib.loads(parts["marimo"][1])["mcp"]["mcpServers"]["hermes-nb"]
    assert marimo["command"] == generic["command"] and marimo["args"] == generic["args"]
    assert ".jupyter/mcp_settings.json" in text and "<pre" in shown._repr_html_()

    http = hermes_command.run(["mcp", "--http", "127.0.0.1:8765"]).parts
    remote = json.loads(http["any MCP client"][1])["mcpServers"]["hermes-nb"]
    assert remote["url"] == "http://127.0.0.1:8765/mcp" and remote["headers"]["Authorization"].startswith(
        "Bearer "
    )
    with pytest.raises(InvalidInputError):
        hermes_command.run(["mcp", "--http", "0.0.0.0:8765"])


def test_hermes_mcp_servers_lists_the_configured_servers() -> None:
    config.set(
        "mcp.servers", {"files": {"command": "npx", "args": ["-y", "server-files"], "allow": ["read_file"]}}
    )
    table = repr(hermes_command.run(["mcp", "servers"]))
    assert "files" in table and "stdio" in table and "read_file" in table
