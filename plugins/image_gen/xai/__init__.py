"""Bundled plugin: xAI Grok Imagine (``xai``)."""

from __future__ import annotations

from typing import Any

from .provider import XAIImageProvider


def register(ctx: Any) -> None:
    ctx.register_image_gen_provider(XAIImageProvider())
