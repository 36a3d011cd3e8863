"""Bundled plugin: Jina Reader extract and Jina Search (``jina``)."""

from __future__ import annotations

from typing import Any

from .provider import JinaProvider


def register(ctx: Any) -> None:
    ctx.register_web_search_provider(JinaProvider())
