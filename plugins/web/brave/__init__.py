"""Bundled plugin: Brave Search API (``brave``, alias ``brave-free``)."""

from __future__ import annotations

from typing import Any

from .provider import BraveProvider


def register(ctx: Any) -> None:
    ctx.register_web_search_provider(BraveProvider())
