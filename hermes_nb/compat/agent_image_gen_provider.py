"""``agent.image_gen_provider``: the image provider base class and its response/file helpers."""

from __future__ import annotations

from hermes_nb.plugins import image_provider
from hermes_nb.plugins.image_provider import *  # noqa: F403 - this module re-exports exactly that API

HERMES_NAME = "agent.image_gen_provider"
__all__ = list(image_provider.__all__)
