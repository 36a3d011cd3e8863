"""Bundled plugin: Tavily (search, extract, crawl)."""

from __future__ import annotations

from typing import Any

from .provider import TavilyProvider


def register(ctx: Any) -> None:
    ctx.register_web_search_provider(TavilyProvider())
