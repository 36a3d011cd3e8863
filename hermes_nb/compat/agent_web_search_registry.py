"""``agent.web_search_registry``: register, list and look up web providers; the active ones by config.

The active provider follows Hermes's rule, not hermes_nb's auto mode: the configured one (even when
unavailable, so its error names the missing key), else the first auto candidate whose
``is_available()`` is true. A keyless mode never makes a provider active here, as in Hermes.
"""

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
        name, _source = selection.configured_backend(capability)
        if name is not None:
            configured = web_providers.get(name)
            if configured is not None and selection.supports(configured, capability):
                return configured
        return next((p for p in selection.candidates(capability) if _keyed(p)), None)
    except (errors.ProviderNotConfiguredError, errors.ProviderNotFoundError, errors.InvalidInputError):
        return None  # Hermes answers None when nothing fits


def _keyed(provider: Any) -> bool:
    try:
        return bool(provider.is_available())
    except Exception:
        return False


def get_active_search_provider() -> Any:
    return _active("search")


def get_active_extract_provider() -> Any:
    return _active("extract")
