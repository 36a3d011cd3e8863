"""Bundled plugin: a self-hosted SearXNG instance."""

from __future__ import annotations

from typing import Any

from .provider import SearxngProvider


def register(ctx: Any) -> None:
    ctx.register_web_search_provider(SearxngProvider())
