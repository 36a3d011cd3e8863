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

__all__ = ["WebSearchProvider", "extracted_page", "failed_page", "get_provider_env"]


def get_provider_env(name: str) -> str:
    """Hermes helper: a stripped secret/env value (process env, then ``$HERMES_HOME/.env``) or ``""``."""
    return resolve_key(name) or ""


def extracted_page(
    url: str, content: str, *, title: str = "", metadata: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The per-URL extract row of a page that was read (``raw_content`` is the same text)."""
    row: dict[str, Any] = {"url": url, "title": title, "content": content, "raw_content": content}
    if metadata is not None:
        row["metadata"] = metadata
    return row


def failed_page(url: str, message: str, code: str = "CONTENT_FETCH_FAILED") -> dict[str, Any]:
    """The per-URL extract row for a URL that could not be read (the call itself succeeded)."""
    return {"url": url, "title": "", "content": "", "raw_content": "", "error": message, "error_code": code}


class WebSearchProvider(abc.ABC):
    """Base class of every web provider (bundled, user, pip).

    Every attribute the SDK reads is declared here with its default; a provider sets the ones that
    apply as class attributes (``name = "brave"``). A Hermes-style ``@property`` works as well.
    """

    #: Stable id: the value of ``web.search_backend`` and friends (required; lowercase, ``-`` allowed).
    name: str = ""
    #: Other names that find this provider (``brave-free`` for ``brave``).
    aliases: tuple[str, ...] = ()
    #: Auto-mode tier: ``commercial``, ``self_hosted``, ``keyless`` or ``offline``; "" lets selection
    #: decide (``keyless`` when only the keyless mode works, else ``commercial``).
    tier: str = ""
    #: The variable holding the API key ("" for none): the setup schema and the keyed helpers read it.
    key_env: str = ""
    #: The page to read or sign up at (the ``docs`` column of ``hn.providers()``).
    docs_url: str = ""
    #: The most results one search returns; the SDK caps ``limit`` and says so (None: no cap).
    max_limit: int | None = None
    #: What the keyless mode serves (``("search", "extract")``); None: every capability it supports.
    keyless_capabilities: tuple[str, ...] | None = None
    #: Price in a few words (``paid / free tier``): the setup schema's badge.
    price_note: str = ""
    #: One line about the provider: the setup schema's tag.
    tagline: str = ""
    #: An install or configuration step beyond the key (the setup schema's ``install``).
    install_hint: str = ""

    @property
    def display_name(self) -> str:
        """Human label (listings, messages); the name unless a subclass sets ``display_name = "…"``."""
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
        """Hermes's setup picker entry, built from the attributes above (override for more variables)."""
        env_vars = []
        if self.key_env:
            prompt = f"{self.display_name} API key"
            env_vars.append({"key": self.key_env, "prompt": prompt, "url": self.docs_url})
        schema: dict[str, Any] = {
            "name": self.display_name,
            "badge": self.price_note or self.tier,
            "tag": self.tagline,
            "env_vars": env_vars,
        }
        if self.install_hint:
            schema["install"] = self.install_hint
        return schema

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name!r}>"
