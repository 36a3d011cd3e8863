"""Bundled plugin: Replicate predictions API (``replicate``; FLUX models and pinned versions)."""

from __future__ import annotations

from typing import Any

from .provider import ReplicateImageProvider


def register(ctx: Any) -> None:
    ctx.register_image_gen_provider(ReplicateImageProvider())
