"""``agent.web_search_registry``: register, list and look up web providers; the active ones by config."""

from __future__ import annotations

from typing import Any

from hermes_nb import errors
from hermes_nb.plugins.registry import web_providers
from hermes_nb.web import selection

HERMES_NAME = "agent.web_search_registry"
__all__ = [
    "register_provider",
    "list_providers",
    "get_provider",
    "get_active_search_provider",
    "get_active_extract_provider",
    "_reset_for_tests",
]

register_provider = web_providers.register
list_providers = web_providers.list
_reset_for_tests = web_providers.clear


def get_provider(name: object) -> Any:
    return web_providers.get(name)


def _active(capability: str) -> Any:
    try:
        return selection.resolve(capability)
    except (errors.ProviderNotConfiguredError, errors.ProviderNotFoundError, errors.InvalidInputError):
        return None  # Hermes answers None when nothing fits


def get_active_search_provider() -> Any:
    return _active("search")


def get_active_extract_provider() -> Any:
    return _active("extract")
