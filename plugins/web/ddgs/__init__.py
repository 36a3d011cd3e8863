"""Bundled plugin: keyless search with the ``ddgs`` package."""

from __future__ import annotations

from typing import Any

from .provider import DdgsProvider


def register(ctx: Any) -> None:
    ctx.register_web_search_provider(DdgsProvider())
