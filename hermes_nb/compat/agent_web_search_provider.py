"""``agent.web_search_provider``: the web provider base class and the key helper Hermes plugins import."""

from __future__ import annotations

from hermes_nb.plugins.web_provider import WebSearchProvider, get_provider_env

HERMES_NAME = "agent.web_search_provider"
__all__ = ["WebSearchProvider", "get_provider_env"]
