"""Bundled plugin: Keenable search and page fetch, with or without a key (``keenable``)."""

from __future__ import annotations

from typing import Any

from .provider import KeenableProvider


def register(ctx: Any) -> None:
    ctx.register_web_search_provider(KeenableProvider())
