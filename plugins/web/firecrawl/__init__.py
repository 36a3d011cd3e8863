"""Bundled plugin: Firecrawl (search, scrape, crawl jobs; self-hosted or keyless MCP)."""

from __future__ import annotations

from typing import Any

from .provider import FirecrawlProvider


def register(ctx: Any) -> None:
    ctx.register_web_search_provider(FirecrawlProvider())
