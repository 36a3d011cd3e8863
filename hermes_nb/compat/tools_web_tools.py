"""``tools.web_tools``: the SDK client slots and gateway helpers Hermes's exa, parallel and firecrawl use.

Those plugins cache their SDK clients as attributes of this module and read the gateway helpers
through it; the slots start empty and ``hermes_nb`` state resets drop the served module with them.
"""

from __future__ import annotations

from typing import Any

from hermes_nb.compat.tools_managed_tool_gateway import (
    build_vendor_gateway_url,
    managed_nous_tools_enabled,
    nous_tool_gateway_unavailable_message,
    peek_nous_access_token,
    read_nous_access_token,
    resolve_managed_tool_gateway,
)
from hermes_nb.compat.tools_tool_backend_helpers import prefers_gateway

HERMES_NAME = "tools.web_tools"
__all__ = [
    "_exa_client",
    "_parallel_client",
    "_async_parallel_client",
    "_firecrawl_client",
    "_firecrawl_client_config",
    "Firecrawl",
    "prefers_gateway",
    "resolve_managed_tool_gateway",
    "managed_nous_tools_enabled",
    "build_vendor_gateway_url",
    "nous_tool_gateway_unavailable_message",
    "_read_nous_access_token",
    "_peek_nous_access_token",
]

_exa_client: Any = None
_parallel_client: Any = None
_async_parallel_client: Any = None
_firecrawl_client: Any = None
_firecrawl_client_config: Any = None
_read_nous_access_token = read_nous_access_token
_peek_nous_access_token = peek_nous_access_token


class _FirecrawlClass:
    """``firecrawl.Firecrawl``, imported when first called (the SDK is an optional dependency)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        import firecrawl  # optional vendor SDK, only for Hermes's firecrawl plugin

        return firecrawl.Firecrawl(*args, **kwargs)

    def __repr__(self) -> str:
        return "<lazy firecrawl.Firecrawl>"


Firecrawl = _FirecrawlClass()
