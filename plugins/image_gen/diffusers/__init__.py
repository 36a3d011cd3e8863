"""Bundled plugin: local diffusers pipelines (``diffusers``; needs ``pip install 'hermes_nb[diffusers]'``)."""

from __future__ import annotations

from typing import Any

from .provider import DiffusersImageProvider


def register(ctx: Any) -> None:
    ctx.register_image_gen_provider(DiffusersImageProvider())
