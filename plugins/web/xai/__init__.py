"""Bundled plugin: xAI web search (Responses API ``web_search`` tool); images: ``image_gen/xai``."""

from __future__ import annotations

from typing import Any

from .provider import XaiSearchProvider


def register(ctx: Any) -> None:
    ctx.register_web_search_provider(XaiSearchProvider())
