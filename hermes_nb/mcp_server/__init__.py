"""``hermes-nb mcp``: the notebook's tools served to MCP clients (Jupyter AI, marimo, coding agents).

An MCP client spawns ``hermes-nb mcp`` (stdio, the default) or connects to ``hermes-nb mcp --http
127.0.0.1:PORT`` (streamable HTTP, loopback only, a bearer token on every request). It sees
``web_search``, ``web_extract``, ``web_crawl``, ``image_generate`` and every tool the enabled plugins
register, each with its JSON schema. A call runs the tool pipeline of ``hn.tools`` (hooks included),
which calls the SDK (``hn.search`` …): the same configuration, keys, provider selection, cache and
cassettes, cost ledger and budget, deadlines and private-URL guard as a cell, so an agent's call is
replayable and billed once. Built on the official ``mcp`` SDK (``pip install 'hermes_nb[mcp]'``).
"""

from __future__ import annotations

from hermes_nb.mcp_server.app import build_server, serve_stdio
from hermes_nb.mcp_server.http_gate import parse_bind, serve_http

__all__ = ["build_server", "serve_stdio", "serve_http", "parse_bind"]
