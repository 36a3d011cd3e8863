"""The composition root: fills ``hermes_nb._services`` with the higher layers' implementations.

``hermes_nb/__init__`` runs ``wire()`` once. Registries learn how to load plugins, the loader
learns to serve the Hermes import names first, the tool registry learns the built-in tools, and
results learn how to render. Each function imports its module on first use, which keeps
``import hermes_nb`` light; this module sits above every layer, so those imports point down.
"""

from __future__ import annotations

from typing import Any

from hermes_nb._services import services

__all__ = ["wire"]


def _load_plugins(capability: str, name: str | None) -> None:
    from hermes_nb.plugins import loader  # on first lookup, not at import

    loader.load_for_lookup(capability, name)


def _hermes_names() -> None:
    from hermes_nb import compat  # the finder is needed only once plugins are discovered

    compat.install()


def _builtin_tools(target: Any) -> None:
    from hermes_nb.tools.builtin import register_builtin_tools  # web and images load on first tool use

    register_builtin_tools(target)


def _sync_tools(target: Any) -> None:
    from hermes_nb.tools import mcp_servers  # the mcp SDK itself loads only when a server starts

    mcp_servers.sync_registry(target)


def _call_mcp(server: str, tool: str, args: Any) -> str:
    from hermes_nb.tools import mcp_servers

    return mcp_servers.call_json(server, tool, args)


def _render(obj: Any) -> dict[str, Any]:
    from hermes_nb.notebook import rendering  # the renderer only when something is shown

    return rendering.mimebundle(obj)


def _check_setting(key: str, value: Any, providers: bool) -> None:
    from hermes_nb.plugins.config_schema import check_setting  # the schema needs the provider registries

    check_setting(key, value, providers=providers)


def _plugin_settings() -> dict[str, Any]:
    from hermes_nb.plugins.settings import plugin_settings  # discovery reads manifests, no plugin code

    return plugin_settings()


def _convert_document(data: bytes, content_type: str, url: str) -> tuple[str, str]:
    from hermes_nb.web import content  # the extractors load only when a file needs them

    doc = content.convert(data, content_type, url=url)
    return doc.title, doc.content


def _list_plugins(**kwargs: Any) -> Any:
    from hermes_nb.catalog import plugins  # the listing imports the loader and both registries

    return plugins(**kwargs)


def wire() -> None:
    """Fill every slot (idempotent)."""
    services.load_plugins = _load_plugins
    services.before_discovery = _hermes_names
    services.builtin_tools = _builtin_tools
    services.sync_tools = _sync_tools
    services.call_mcp = _call_mcp
    services.render = _render
    services.check_setting = _check_setting
    services.plugin_settings = _plugin_settings
    services.convert_document = _convert_document
    services.list_plugins = _list_plugins
