"""Bundled plugin: Parallel (search, extract; keyless through its public MCP endpoint)."""

from __future__ import annotations

from typing import Any

from .provider import ParallelProvider


def register(ctx: Any) -> None:
    ctx.register_web_search_provider(ParallelProvider())
