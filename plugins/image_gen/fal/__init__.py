"""Bundled plugin: fal.ai queue API (``fal``; FLUX.2 klein, FLUX.1 schnell/dev/pro)."""

from __future__ import annotations

from typing import Any

from .provider import FalImageProvider


def register(ctx: Any) -> None:
    ctx.register_image_gen_provider(FalImageProvider())
