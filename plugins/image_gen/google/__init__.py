"""Bundled plugin: Gemini image generation through ``generateContent`` (``google``)."""

from __future__ import annotations

from typing import Any

from .provider import GoogleImageProvider


def register(ctx: Any) -> None:
    ctx.register_image_gen_provider(GoogleImageProvider())
