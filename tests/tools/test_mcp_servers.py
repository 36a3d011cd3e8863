"""mcp.servers: an MCP server's allowed tools in hn.tools and ctx.call_mcp (a fake stdio server, no network).

The fake server (tests/fixtures/fake_mcp_server.py) is written with the official SDK; every server
this file starts is stopped by the autouse reset (``hermes_nb.tools.mcp_servers.stop_all``).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from paths import REPO, TESTS

from hermes_nb import config, tools
from hermes_nb.plugins import loader
from hermes_nb.plugins.context import PluginContext
from hermes_nb.plugins.manifest import PluginManifest
from hermes_nb.redaction import redact
from hermes_nb.tools import mcp_servers

FAKE = str(TESTS / "fixtures" / "fake_mcp_server.py")
ALLOWED = ["echo", "add", "fail", "pid", "hang", "crash"]


def _serve(name: str = "fake", **extra: Any) -> None:
    servers = config.get("mcp.servers") or {}
    entry: dict[str, Any] = {
        "command": sys.executable,
        "args": [FAKE],
        "allow": ALLOWED,
        "timeout": 3,
        "connect_timeout": 60,
    }
    entry.update(extra)
    config.set("mcp.servers", {**servers, name: entry})


@pytest.fixture
def fake() -> str:
    _serve()
    return "fake"


def _call(name: str, args: dict[str, Any] | None = None) -> Any:
    return tools.call(name, args or {})


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_allowed_tools_join_hn_tools_under_the_server_toolset(fake: str) -> None:
    rows = {r["name"]: r for r in tools.list_tools() if r["toolset"] == "fake"}
    assert set(rows) == {mcp_servers.registry_name("fake", t) for t in ALLOWED}
    assert rows["mcp_fake_echo"]["owner"] == "mcp:fake" and rows["mcp_fake_echo"]["available"]
    assert not any(r["name"] == "mcp_fake_secret" for r in tools.list_tools())
    from hermes_nb.notebook import commands as hermes_command

    listing = repr(hermes_command.run(["tools", "list"]))  # %hermes tools list
    assert "mcp_fake_echo" in listing and "mcp:fake" in listing


def test_listing_starts_nothing(fake: str) -> None:
    tools.list_tools()
    assert mcp_servers._hub._connections == {}


def test_call_an_allowed_tool(fake: str) -> None:
    assert _call("mcp_fake_echo", {"text": "hi"}) == {
        "result": "echo: hi",
        "structured": {"result": "echo: hi"},
    }
    added = _call("mcp_fake_add", {"a": 2, "b": "3"})  # the pipeline coerces "3" with the real schema
    assert added["structured"] == {"sum": 5}


def test_schemas_come_from_the_server(fake: str) -> None:
    (add,) = [s for s in tools.schemas(toolsets="fake") if s["function"]["name"] == "mcp_fake_add"]
    params = add["function"]["parameters"]
    assert params["required"] == ["a", "b"] and params["properties"]["a"]["type"] == "integer"
    assert add["function"]["description"] == "Add two integers."


def test_a_tool_error_is_an_error_result(fake: str) -> None:
    result = _call("mcp_fake_fail", {"reason": "no such row"})
    assert "no such row" in result["error"] and "code" not in result


def test_a_denied_tool_is_refused_before_anything_starts(fake: str) -> None:
    config.set("mcp.servers", {"fake": {**config.get("mcp.servers")["fake"], "allow": ["echo"]}})
    assert [r["name"] for r in tools.list_tools() if r["toolset"] == "fake"] == ["mcp_fake_echo"]
    refused = json.loads(mcp_servers.call_json("fake", "add", {"a": 1, "b": 2}))
    assert refused["code"] == "INVALID_INPUT"
    assert "not allowed" in refused["error"] and "mcp.servers.fake.allow" in refused["error"]
    assert _call("mcp_fake_add", {"a": 1, "b": 2})["error"].startswith("Unknown tool")
    assert mcp_servers._hub._connections == {}


def test_denied_by_default(tmp_path: Path) -> None:
    _serve(allow=None)
    assert [r for r in tools.list_tools() if r["toolset"] == "fake"] == []
    assert json.loads(mcp_servers.call_json("fake", "echo", {"text": "x"}))["code"] == "INVALID_INPUT"


def test_plugins_call_through_ctx(fake: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HERMES_BUNDLED_PLUGINS", str(tmp_path / "empty"))
    ctx = PluginContext(PluginManifest(name="user", key="user"), loader.get_plugin_manager())
    assert (
        json.loads(ctx.call_mcp("fake", "echo", {"text": "from a plugin"}))["result"] == "echo: from a plugin"
    )
    denied = json.loads(ctx.call_mcp("fake", "secret", {}))
    assert denied["code"] == "INVALID_INPUT"
    unknown = json.loads(ctx.call_mcp("nope", "echo", {}))
    assert unknown["code"] == "INVALID_INPUT" and "no MCP server 'nope'" in unknown["error"]


def test_a_hung_tool_times_out_and_the_server_starts_again(fake: str) -> None:
    first_pid = _call("mcp_fake_pid")["structured"]["result"]
    started = time.monotonic()
    hung = _call("mcp_fake_hang")
    assert hung["code"] == "TIMEOUT" and "mcp.servers.fake.timeout" in hung["error"]
    assert time.monotonic() - started < 40  # 3 s timeout + stopping it; generous for a loaded machine
    assert not _alive(first_pid)  # the hung server was stopped
    assert _call("mcp_fake_echo", {"text": "again"})["result"] == "echo: again"


def test_a_crashed_server_is_named_with_its_log(fake: str) -> None:
    crashed = _call("mcp_fake_crash")
    assert crashed["code"] == "PROVIDER_UNAVAILABLE"
    assert "closed the connection" in crashed["error"] and "crashing on purpose" in crashed["error"]
    assert _call("mcp_fake_echo", {"text": "back"})["result"] == "echo: back"


def test_a_server_stuck_at_start_times_out() -> None:
    _serve("stuck", args=[FAKE, "--no-init"], connect_timeout=2, allow=["echo"])
    started = time.monotonic()
    result = json.loads(mcp_servers.call_json("stuck", "echo", {"text": "x"}))
    assert result["code"] == "TIMEOUT" and "did not start within 2 s" in result["error"]
    assert time.monotonic() - started < 30
    assert mcp_servers._hub._connections == {}


def test_stop_all_ends_the_server_process(fake: str) -> None:
    pid = _call("mcp_fake_pid")["structured"]["result"]
    assert _alive(pid)
    mcp_servers.stop_all()
    assert not _alive(pid)


def test_a_missing_command_is_not_configured() -> None:
    _serve("ghost", command="no-such-mcp-server-command", args=[], allow=["echo"])
    assert [r["available"] for r in tools.list_tools() if r["toolset"] == "ghost"] == [False]
    result = json.loads(mcp_servers.call_json("ghost", "echo", {}))
    assert result["code"] == "PROVIDER_NOT_CONFIGURED" and "not found" in result["error"]


def test_bad_entries_are_left_out_with_the_reason(caplog: pytest.LogCaptureFixture) -> None:
    config.set("mcp.servers", {"both": {"command": "x", "url": "http://127.0.0.1:1/mcp", "allow": ["a"]}})
    assert [r for r in tools.list_tools() if r["toolset"] == "both"] == []
    assert "exactly one of command" in caplog.text
    result = json.loads(mcp_servers.call_json("both", "a", {}))
    assert result["code"] == "INVALID_INPUT" and "exactly one of command" in result["error"]


def test_env_references_resolve_from_keys_and_stay_secret() -> None:
    config.set_key("FAKE_MCP_TOKEN", "tok-123456789")
    _serve(env={"FAKE_TOKEN": "${FAKE_MCP_TOKEN}", "MODE": "plain"})
    spec = mcp_servers.server_spec("fake")
    assert dict(spec.env) == {"FAKE_TOKEN": "tok-123456789", "MODE": "plain"}
    assert "tok-123456789" not in redact("the token is tok-123456789")
    servers = config.get("mcp.servers")
    auth = {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${FAKE_MCP_TOKEN}"}}
    config.set("mcp.servers", {**servers, "remote": auth})
    assert dict(mcp_servers.server_spec("remote").headers) == {"Authorization": "Bearer tok-123456789"}
    assert redact("the token tok-123456789 alone") == "the token *** alone"
    assert redact("Bearer of news") == "Bearer of news"  # the scheme word is not a secret
    _serve("unset", env={"X": "${NOT_SET_ANYWHERE}"})
    result = json.loads(mcp_servers.call_json("unset", "echo", {}))
    assert result["code"] == "PROVIDER_NOT_CONFIGURED" and "NOT_SET_ANYWHERE" in result["error"]


def test_config_changes_follow_without_a_restart(fake: str) -> None:
    assert any(r["toolset"] == "fake" for r in tools.list_tools())
    config.set("mcp.servers", {})
    assert not any(r["toolset"] == "fake" for r in tools.list_tools())


def test_listing_configured_servers_imports_no_mcp_sdk(hermetic: Path) -> None:
    import subprocess

    import yaml

    servers = {"fake": {"command": sys.executable, "args": [FAKE], "allow": ["echo"]}}
    (hermetic / "config.yaml").write_text(yaml.safe_dump({"mcp": {"servers": servers}}), encoding="utf-8")
    code = (
        "import sys, hermes_nb as hn\n"
        "names = [r['name'] for r in hn.tools.list_tools() if r['toolset'] == 'fake']\n"
        "print(names, [m for m in ('mcp', 'anywidget', 'uvicorn') if m in sys.modules])"
    )
    root = str(REPO)
    env = {**os.environ, "HERMES_HOME": str(hermetic), "PYTHONPATH": root}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120, check=True
    )
    assert out.stdout.strip() == "['mcp_fake_echo'] []"
