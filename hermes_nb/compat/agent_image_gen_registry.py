"""``agent.image_gen_registry``: register, list and look up image providers; the active one by config."""

from __future__ import annotations

from typing import Any

from hermes_nb.plugins.registry import image_providers

HERMES_NAME = "agent.image_gen_registry"
__all__ = ["register_provider", "list_providers", "get_provider", "get_active_provider", "_reset_for_tests"]

register_provider = image_providers.register
list_providers = image_providers.list
_reset_for_tests = image_providers.clear


def get_provider(name: object) -> Any:
    return image_providers.get(name)


def get_active_provider() -> Any:
    """``image_gen.provider`` when set (even if unavailable), else the only available provider."""
    return image_providers.active()
