"""The MCP server object (the official SDK's low-level ``Server``) and the stdio transport."""

from __future__ import annotations

import functools
from typing import Any

import anyio
import anyio.to_thread
from mcp import types
from mcp.server import Server
from mcp.server.context import ServerRequestContext

from hermes_nb._version import __version__
from hermes_nb.mcp_server import catalog

__all__ = ["SERVER_NAME", "build_server", "serve_stdio"]

SERVER_NAME = "hermes-nb"
_INSTRUCTIONS = (
    "Web search, page extraction, crawling and image generation through the providers, keys, cache "
    "and budget configured for hermes_nb. Results of web_extract and web_crawl are Markdown."
)


async def _list_tools(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    tools = await anyio.to_thread.run_sync(catalog.list_tools)
    return types.ListToolsResult(tools=tools)


async def _call_tool(
    ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
) -> types.CallToolResult:
    call = functools.partial(catalog.call_tool, params.name, dict(params.arguments or {}))
    return await anyio.to_thread.run_sync(call, abandon_on_cancel=True)


def build_server() -> Server[Any]:
    """A fresh server whose ``tools/list`` and ``tools/call`` answer from ``hn.tools``."""
    return Server(
        SERVER_NAME,
        version=__version__,
        title="hermes_nb",
        instructions=_INSTRUCTIONS,
        on_list_tools=_list_tools,
        on_call_tool=_call_tool,
    )


async def _serve_stdio() -> None:
    from mcp.server.stdio import stdio_server  # claims fd 0/1: only when serving

    server = build_server()
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve_stdio() -> None:
    """Serve MCP on stdin/stdout until the client closes the pipe (stray prints go to stderr)."""
    anyio.run(_serve_stdio)
