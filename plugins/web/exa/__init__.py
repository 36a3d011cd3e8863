"""Bundled plugin: Exa (search, extract; keyless through its public MCP endpoint)."""

from __future__ import annotations

from typing import Any

from .provider import ExaProvider


def register(ctx: Any) -> None:
    ctx.register_web_search_provider(ExaProvider())
