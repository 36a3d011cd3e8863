"""Bundled plugin: OpenRouter image generation (``openrouter``; chat completions with image output)."""

from __future__ import annotations

from typing import Any

from .provider import OpenRouterImageProvider


def register(ctx: Any) -> None:
    ctx.register_image_gen_provider(OpenRouterImageProvider())
