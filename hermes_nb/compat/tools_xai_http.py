"""``tools.xai_http``: xAI credentials, user agent and Imagine storage options for Hermes's xai plugins.

hermes_nb has no Grok OAuth: credentials are ``XAI_API_KEY`` (session key, environment or
``$HERMES_HOME/.env``) and ``XAI_BASE_URL``. xAI's hosted image storage is opt-in in Hermes and
off here, so images come back as bytes or URLs and are saved locally.
"""

from __future__ import annotations

from typing import Any

from hermes_nb import config
from hermes_nb._version import __version__

HERMES_NAME = "tools.xai_http"
__all__ = [
    "has_xai_credentials",
    "hermes_xai_user_agent",
    "resolve_xai_http_credentials",
    "build_xai_storage_options",
    "maybe_mark_xai_storage_notice_seen",
    "read_xai_imagine_storage_config",
    "xai_storage_notice_text",
]

DEFAULT_BASE_URL = "https://api.x.ai/v1"


def has_xai_credentials(*args: Any, **kwargs: Any) -> bool:
    """Offline check: an xAI key is set."""
    return bool(config.resolve_key("XAI_API_KEY"))


def hermes_xai_user_agent(*args: Any, **kwargs: Any) -> str:
    return f"hermes_nb/{__version__}"


def resolve_xai_http_credentials(*args: Any, force_refresh: bool = False, **kwargs: Any) -> dict[str, str]:
    """``{"provider": "xai", "api_key", "base_url"}``; ``api_key`` is ``""`` when none is set."""
    base_url = (config.resolve_key("XAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
    return {"provider": "xai", "api_key": config.resolve_key("XAI_API_KEY") or "", "base_url": base_url}


def build_xai_storage_options(section: str = "", *args: Any, **kwargs: Any) -> None:
    """``None``: no ``storage_options`` are sent, so xAI keeps nothing on its side."""
    return None


def read_xai_imagine_storage_config(section: str = "", *args: Any, **kwargs: Any) -> dict[str, Any]:
    return {"enabled": False, "public": False}


def xai_storage_notice_text(section: str = "", *args: Any, **kwargs: Any) -> str:
    return ""


def maybe_mark_xai_storage_notice_seen(section: str = "", *args: Any, **kwargs: Any) -> str:
    return ""
