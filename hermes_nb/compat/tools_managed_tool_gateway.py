"""``tools.managed_tool_gateway``: the Nous-hosted tool gateway, which a notebook never has.

Every answer says "not available", so a plugin takes its own direct path (its vendor key).
"""

from __future__ import annotations

from typing import Any

HERMES_NAME = "tools.managed_tool_gateway"
__all__ = [
    "resolve_managed_tool_gateway",
    "is_managed_tool_gateway_ready",
    "build_vendor_gateway_url",
    "managed_nous_tools_enabled",
    "nous_tool_gateway_unavailable_message",
    "read_nous_access_token",
    "peek_nous_access_token",
]


def resolve_managed_tool_gateway(vendor: str, *args: Any, **kwargs: Any) -> None:
    """``None``: no gateway origin and no Nous token exist in hermes_nb."""
    return None


def is_managed_tool_gateway_ready(vendor: str, *args: Any, **kwargs: Any) -> bool:
    return False


def build_vendor_gateway_url(vendor: str, *args: Any, **kwargs: Any) -> str:
    return ""


def managed_nous_tools_enabled(*args: Any, **kwargs: Any) -> bool:
    return False


def nous_tool_gateway_unavailable_message(feature: str = "this tool", *args: Any, **kwargs: Any) -> str:
    return (
        f"The Nous Tool Gateway ({feature}) is not available in hermes_nb; "
        "set the vendor's own API key instead (hn.config.set_key(...) or $HERMES_HOME/.env)."
    )


def read_nous_access_token(*args: Any, **kwargs: Any) -> None:
    return None


def peek_nous_access_token(*args: Any, **kwargs: Any) -> None:
    return None
