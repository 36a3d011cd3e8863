"""Bundled plugin: OpenSERP search, self-hosted or hosted (``openserp``)."""

from __future__ import annotations

from typing import Any

from .provider import OpenserpProvider


def register(ctx: Any) -> None:
    ctx.register_web_search_provider(OpenserpProvider())
