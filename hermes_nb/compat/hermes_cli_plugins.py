"""``hermes_cli.plugins``: the plugin manager, discovery and hook calls, as Hermes plugins reach them."""

from __future__ import annotations

from typing import Any

from hermes_nb.plugins import hooks, loader
from hermes_nb.plugins.context import PluginContext
from hermes_nb.plugins.loader import get_plugin_manager, list_plugins
from hermes_nb.plugins.manifest import PluginManifest

HERMES_NAME = "hermes_cli.plugins"
__all__ = [
    "PluginContext",
    "PluginManifest",
    "get_plugin_manager",
    "discover_plugins",
    "_ensure_plugins_discovered",
    "invoke_hook",
    "has_hook",
    "list_plugins",
]


def discover_plugins(force: bool = False) -> None:
    loader.load_plugins(force=force)


_ensure_plugins_discovered = discover_plugins


def invoke_hook(hook_name: str, **kwargs: Any) -> list[Any]:
    result: list[Any] = hooks.invoke_hook(hook_name, **kwargs)
    return result


def has_hook(hook_name: str) -> bool:
    return bool(hooks.has_hook(hook_name))
