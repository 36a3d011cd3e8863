"""Bundled plugin: a local ComfyUI server (``comfyui``; bundled or user workflow in API format)."""

from __future__ import annotations

from typing import Any

from .provider import ComfyUIImageProvider


def register(ctx: Any) -> None:
    ctx.register_image_gen_provider(ComfyUIImageProvider())
