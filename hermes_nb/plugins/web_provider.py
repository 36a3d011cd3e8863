"""The ``WebSearchProvider`` ABC, Hermes's contract for web search/extract backends.

Plugins import it as ``agent.web_search_provider.WebSearchProvider`` (served by
``hermes_nb.compat._finder``) or from here. ``search`` may be sync or ``async def``; so may
``extract`` and ``crawl``. Envelopes are Hermes's:

* search: ``{"success": True, "data": {"web": [{"title", "url", "description", "position"}]}}``
* extract: a list of per-URL dicts ``{"url", "title", "content", "raw_content", "metadata"?, "error"?}``
  (``{"success": True, "data": [...]}`` is accepted too)
* failure: ``{"success": False, "error": "..."}``

Bundled providers may also raise ``hermes_nb.errors.HermesError`` subclasses so the SDK can
classify the failure precisely; third-party envelopes are classified by the SDK.
"""

from __future__ import annotations

import abc
from typing import Any

from hermes_nb.config import resolve_key

__all__ = ["WebSearchProvider", "failed_page", "get_provider_env"]


def get_provider_env(name: str) -> str:
    """Hermes helper: a stripped secret/env value (process env, then ``$HERMES_HOME/.env``) or ``""``."""
    return resolve_key(name) or ""


def failed_page(url: str, message: str, code: str = "CONTENT_FETCH_FAILED") -> dict[str, Any]:
    """The per-URL extract row for a URL that could not be read (the call itself succeeded)."""
    return {"url": url, "title": "", "content": "", "raw_content": "", "error": message, "error_code": code}


class WebSearchProvider(abc.ABC):
    """Base class of every web provider (bundled, user, pip)."""

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """Stable id: the value of ``web.search_backend`` and friends."""

    @property
    def display_name(self) -> str:
        return self.name

    @abc.abstractmethod
    def is_available(self) -> bool:
        """Cheap, offline check: key present, dependency importable."""

    def is_keyless_available(self) -> bool:
        """True when the provider works without any key (never makes ``is_available`` true)."""
        return False

    def supports_search(self) -> bool:
        return True

    def supports_extract(self) -> bool:
        return False

    def supports_crawl(self) -> bool:
        return False

    def search(self, query: str, limit: int = 5) -> Any:
        raise NotImplementedError(f"{self.name} does not support search (override supports_search)")

    def extract(self, urls: list[str], **kwargs: Any) -> Any:
        raise NotImplementedError(f"{self.name} does not support extract (override supports_extract)")

    def crawl(self, url: str, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{self.name} does not support crawl (override supports_crawl)")

    def get_setup_schema(self) -> dict[str, Any]:
        return {"name": self.display_name, "badge": "", "tag": "", "env_vars": []}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name!r}>"
