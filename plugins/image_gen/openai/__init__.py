"""Bundled plugin: OpenAI Images API (``openai``; gpt-image-2 low/medium/high tiers)."""

from __future__ import annotations

from typing import Any

from .provider import OpenAIImageProvider


def register(ctx: Any) -> None:
    ctx.register_image_gen_provider(OpenAIImageProvider())
