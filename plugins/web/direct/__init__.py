"""Bundled plugin: keyless extract and crawl with local conversion (optional Jina Reader fallback)."""

from __future__ import annotations

from typing import Any

from .provider import DirectProvider


def register(ctx: Any) -> None:
    ctx.register_web_search_provider(DirectProvider())
