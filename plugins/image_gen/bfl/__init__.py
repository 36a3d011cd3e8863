"""Bundled plugin: Black Forest Labs FLUX API (``bfl``; FLUX.2 and FLUX1.1 models)."""

from __future__ import annotations

from typing import Any

from .provider import BFLImageProvider


def register(ctx: Any) -> None:
    ctx.register_image_gen_provider(BFLImageProvider())
