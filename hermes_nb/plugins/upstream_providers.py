"""Providers Hermes bundles that hermes_nb cannot run, each with the exact reason (``hn.providers()`` rows).

Every web and image provider on Hermes's main branch has a row in ``hn.providers()``: the ones
hermes_nb serves are registered plugins; the ones below are listed as unavailable with the reason
they cannot work in a notebook and what to use instead. A row disappears as soon as a plugin
registers a provider of that name (a user plugin that makes it work wins).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["UpstreamOnly", "UPSTREAM_ONLY", "upstream_only"]

NOT_IN_NOTEBOOKS = "not in notebooks"


@dataclass(frozen=True)
class UpstreamOnly:
    """A Hermes provider hermes_nb does not run, and why."""

    kind: str  # "web" or "image_gen"
    name: str
    display_name: str
    capabilities: tuple[str, ...]
    reason: str  # why it cannot work in a notebook, and what to use instead
    docs_url: str = ""
    tier: str = NOT_IN_NOTEBOOKS


UPSTREAM_ONLY: tuple[UpstreamOnly, ...] = (
    UpstreamOnly(
        "web",
        "deepseek",
        "DeepSeek Native Web Search",
        ("search",),
        "runs only inside a DeepSeek model's Responses turn (a server-side tool the model calls); a "
        "notebook search has no model turn, and Hermes's own provider answers an error when called "
        "directly — use a client-side backend (brave, tavily, exa, searxng, ddgs …)",
        "https://api-docs.deepseek.com/",
    ),
    UpstreamOnly(
        "web",
        "openai-native",
        "OpenAI Native Web Search (Codex Responses)",
        ("search",),
        "declares OpenAI's server-side web_search tool to the Codex Responses transport; it never "
        "runs a search itself, so a notebook call has nothing to run — use a client-side backend",
        "https://platform.openai.com/docs/guides/tools-web-search",
    ),
    UpstreamOnly(
        "image_gen",
        "meta-ai",
        "Meta Model API (Muse Image)",
        ("generate",),
        "Meta publishes no public API reference for its image endpoint (muse-image on api.meta.ai): "
        "hermes_nb implements a vendor only from its documented wire format; use muse-image through "
        "fal (meta/muse-image/text-to-image) or a gateway with the openai-compatible provider",
        "https://developer.meta.com/ai/models/muse-image/",
    ),
)


def upstream_only(kind: str, registered: set[str]) -> list[UpstreamOnly]:
    """The ``kind`` rows whose name no registered provider has taken."""
    return [row for row in UPSTREAM_ONLY if row.kind == kind and row.name not in registered]
