"""Bundled plugin: Stability AI Stable Image (``stability``; SD 3.5, Core, Ultra)."""

from __future__ import annotations

from typing import Any

from .provider import StabilityImageProvider


def register(ctx: Any) -> None:
    ctx.register_image_gen_provider(StabilityImageProvider())
