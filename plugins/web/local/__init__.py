"""Bundled plugin: ``local``, offline full-text search over the hermes_nb store."""

from __future__ import annotations

from typing import Any

from .provider import LocalProvider


def register(ctx: Any) -> None:
    ctx.register_web_search_provider(LocalProvider())
