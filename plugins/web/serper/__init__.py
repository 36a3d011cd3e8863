"""Bundled plugin: Google search results through Serper (``serper``)."""

from __future__ import annotations

from typing import Any

from .provider import SerperProvider


def register(ctx: Any) -> None:
    ctx.register_web_search_provider(SerperProvider())
