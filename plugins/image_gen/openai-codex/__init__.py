"""Bundled plugin: ``openai-codex`` (gpt-image-2 via the Responses ``image_generation`` tool)."""

from __future__ import annotations

from typing import Any

from .provider import OpenAICodexImageProvider


def register(ctx: Any) -> None:
    ctx.register_image_gen_provider(OpenAICodexImageProvider())
