"""``agent.video_gen_registry``: register, list and look up video providers; the active one by config."""

from __future__ import annotations

from typing import Any

from hermes_nb.plugins.registry import video_providers

HERMES_NAME = "agent.video_gen_registry"
__all__ = ["register_provider", "list_providers", "get_provider", "get_active_provider", "_reset_for_tests"]

register_provider = video_providers.register
list_providers = video_providers.list
_reset_for_tests = video_providers.clear


def get_provider(name: object) -> Any:
    return video_providers.get(name)


def get_active_provider() -> Any:
    """``video_gen.provider`` when set (even if unavailable), else the only available provider."""
    return video_providers.active()
