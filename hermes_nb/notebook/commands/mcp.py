"""``%hermes mcp``: how to register ``hermes-nb mcp`` with Jupyter AI, marimo and any MCP client.

``%hermes mcp`` prints the exact snippets for the stdio server (the client starts it);
``%hermes mcp --http 127.0.0.1:8765`` those for the loopback HTTP server started in a terminal;
``%hermes mcp servers`` lists the MCP servers of ``mcp.servers`` whose tools this kernel may call.
Each snippet carries ``HERMES_HOME`` so the agent uses this kernel's configuration, keys, cache and
budget. Formats: ``{"mcpServers": …}`` (Claude Desktop, Cursor, VS Code-style clients),
``.marimo.toml``'s ``[mcp.mcpServers.<name>]`` and Jupyter AI 3's ``.jupyter/mcp_settings.json``
(a list ``mcp_servers`` of ``{name, command, args, env: [{name, value}]}``).
"""

from __future__ import annotations

import html
import json
import shutil
import sys
from pathlib import Path
from typing import Any

from IPython.core.error import UsageError

from hermes_nb.notebook.rendering import BOX, HEAD, MUTED

__all__ = ["run"]

SERVER_NAME = "hermes-nb"
_MCP_PATH = "/mcp"  # where `hermes-nb mcp --http` serves (hermes_nb.mcp_server.http_gate.MCP_PATH)
_USAGE = "usage: %hermes mcp [--http 127.0.0.1:PORT] | %hermes mcp servers"


def server_command() -> list[str]:
    """How an MCP client starts this kernel's ``hermes-nb``: the script beside this Python when there is
    one (it works from outside the environment), else ``hermes-nb`` on PATH, else ``python -m``."""
    beside = Path(sys.executable).parent / "hermes-nb"
    if beside.is_file():
        return [str(beside)]
    if shutil.which("hermes-nb"):
        return ["hermes-nb"]
    return [sys.executable, "-m", "hermes_nb.cli"]


def _toml_string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string


def snippets(http: str | None = None, *, hermes_home: str | None = None) -> dict[str, tuple[str, str]]:
    """Client → ``(where it goes, the snippet)`` for the stdio server, or for ``http`` (``HOST:PORT``)."""
    from hermes_nb import config

    home = hermes_home or str(config.get_hermes_home())
    if http is None:
        command, *prefix = server_command()
        args = [*prefix, "mcp"]
        generic = {
            "mcpServers": {SERVER_NAME: {"command": command, "args": args, "env": {"HERMES_HOME": home}}}
        }
        jupyter_ai = {
            "mcp_servers": [
                {
                    "name": SERVER_NAME,
                    "command": command,
                    "args": args,
                    "env": [{"name": "HERMES_HOME", "value": home}],
                }
            ]
        }
        marimo = "\n".join(
            [
                f'[mcp.mcpServers."{SERVER_NAME}"]',
                f"command = {_toml_string(command)}",
                f"args = [{', '.join(_toml_string(a) for a in args)}]",
                f"env = {{ HERMES_HOME = {_toml_string(home)} }}",
            ]
        )
    else:
        from hermes_nb.net.loopback import parse_loopback_bind

        host, port = parse_loopback_bind(http)
        shown = f"[{host}]" if ":" in host else host
        url = f"http://{shown}:{port}{_MCP_PATH}"
        auth = "Bearer <the token hermes-nb mcp --http printed>"
        generic = {
            "mcpServers": {SERVER_NAME: {"type": "http", "url": url, "headers": {"Authorization": auth}}}
        }
        jupyter_ai = {
            "mcp_servers": [
                {
                    "name": SERVER_NAME,
                    "type": "http",
                    "url": url,
                    "headers": [{"name": "Authorization", "value": auth}],
                }
            ]
        }
        marimo = "\n".join(
            [
                f'[mcp.mcpServers."{SERVER_NAME}"]',
                f"url = {_toml_string(url)}",
                f"headers = {{ Authorization = {_toml_string(auth)} }}",
            ]
        )
    return {
        "Jupyter AI": (
            ".jupyter/mcp_settings.json at the root JupyterLab serves (restart JupyterLab)",
            json.dumps(jupyter_ai, indent=2),
        ),
        "marimo": (
            ".marimo.toml (or marimo.toml in your config folder); start marimo with the mcp extra",
            marimo,
        ),
        "any MCP client": (
            "its mcpServers file (Claude Desktop, Cursor, VS Code-style clients)",
            json.dumps(generic, indent=2),
        ),
    }


class McpSetup:
    """The snippets, shown as text and as HTML code blocks."""

    def __init__(self, title: str, intro: str, parts: dict[str, tuple[str, str]]) -> None:
        self.title, self.intro, self.parts = title, intro, parts

    def __repr__(self) -> str:
        lines = [self.title, self.intro]
        for client, (where, text) in self.parts.items():
            lines += ["", f"{client} — {where}:", text]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        pre = (
            "margin:4px 0 10px;padding:6px 8px;background:rgba(127,127,127,.1);overflow-x:auto;color:inherit"
        )
        blocks = "".join(
            f'<div><b>{html.escape(client)}</b> <span style="{MUTED}">{html.escape(where)}</span></div>'
            f'<pre style="{pre}">{html.escape(text)}</pre>'
            for client, (where, text) in self.parts.items()
        )
        return (
            f'<div class="hermes-nb" style="{BOX}"><div style="{HEAD}">{html.escape(self.title)}</div>'
            f'<div style="{MUTED}">{html.escape(self.intro)}</div>{blocks}</div>'
        )


def _servers() -> Any:
    from hermes_nb.notebook.commands.answers import Table
    from hermes_nb.tools import mcp_servers

    rows = []
    for spec in mcp_servers.server_specs().values():
        where = " ".join([spec.command or "", *spec.args]) if spec.command else str(spec.url)
        rows.append([spec.name, spec.transport, where[:60], ", ".join(spec.allow) or "none (all denied)"])
    note = "" if rows else "none configured: add mcp.servers to config.yaml (see the README's MCP section)"
    return Table(
        "MCP servers (mcp.servers)", ["server", "transport", "command / url", "allowed tools"], rows, note
    )


def run(args: list[str]) -> Any:
    """``%hermes mcp [--http HOST:PORT] | servers``."""
    if args == ["servers"]:
        return _servers()
    if not args:
        intro = (
            "Each client starts `hermes-nb mcp` itself (stdio); HERMES_HOME makes it share this kernel's "
            "setup."
        )
        return McpSetup("Register hermes-nb with an MCP client", intro, snippets())
    if len(args) == 2 and args[0] == "--http":
        parts = snippets(args[1])
        intro = (
            f"Start the server in a terminal: hermes-nb mcp --http {args[1]} — it prints a bearer token "
            "once; put it in place of the <…> below."
        )
        return McpSetup("Register hermes-nb (loopback HTTP) with an MCP client", intro, parts)
    raise UsageError(_USAGE)
