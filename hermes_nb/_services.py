"""Services lower layers need from higher ones, filled in at start-up by ``hermes_nb._wiring``.

A registry must load plugins, the loader must serve the Hermes import names first, the tool
registry must know the built-in tools, results must render and the local index must convert HTML
and PDF like ``hn.extract`` — all of which live in layers
above them. They call the slots below instead of importing upwards; ``_wiring`` fills the slots
with functions that import the real implementation on first use. This module imports nothing of
hermes_nb, so any layer may use it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Services", "services"]


def _plain(obj: Any) -> dict[str, Any]:
    return {"text/plain": repr(obj)}


def _nothing(*_args: Any) -> None:
    return None


def _no_listing(**_kwargs: Any) -> Any:
    raise RuntimeError("no plugin listing is wired (import hermes_nb first)")


def _no_converter(_data: bytes, content_type: str, _url: str) -> tuple[str, str]:
    raise RuntimeError(f"no {content_type} converter is wired (import hermes_nb first)")


def _no_mcp(server: str, tool: str, _args: Any) -> str:
    raise RuntimeError(f"no MCP client is wired to call {server}/{tool} (import hermes_nb first)")


class Services:
    """The slots; each has a harmless default so a lower layer works on its own (e.g. in unit tests)."""

    #: ``render(result)`` → IPython mime bundle (the notebook layer's renderer)
    render: Callable[[Any], dict[str, Any]] = staticmethod(_plain)
    #: ``load_plugins(capability, name)`` imports the plugins that may provide ``name`` (None: all)
    load_plugins: Callable[[str, str | None], None] = staticmethod(_nothing)
    #: ``before_discovery()`` runs before plugins are discovered (serves the Hermes import names)
    before_discovery: Callable[[], None] = staticmethod(_nothing)
    #: ``builtin_tools(registry)`` registers the built-in tools into a tool registry
    builtin_tools: Callable[[Any], None] = staticmethod(_nothing)
    #: ``sync_tools(registry)`` brings the tools that follow the configuration (``mcp.servers``) up to date
    sync_tools: Callable[[Any], None] = staticmethod(_nothing)
    #: ``call_mcp(server, tool, args)`` → the JSON result of a tool of a configured MCP server
    call_mcp: Callable[[str, str, Any], str] = staticmethod(_no_mcp)
    #: ``check_setting(key, value, providers)`` raises when a config value would break something later
    check_setting: Callable[[str, Any, bool], None] = staticmethod(_nothing)
    #: ``plugin_settings()`` → ``{key: config_keys.Setting}`` the discovered plugins declare
    plugin_settings: Callable[[], dict[str, Any]] = staticmethod(dict)
    #: ``list_plugins(check=False)`` → the ``hn.plugins()`` table (``hermes_nb.catalog.plugins``)
    list_plugins: Callable[..., Any] = staticmethod(_no_listing)
    #: ``convert_document(data, content_type, url)`` → ``(title, text)`` by the web layer's converters
    convert_document: Callable[[bytes, str, str], tuple[str, str]] = staticmethod(_no_converter)


services = Services()
