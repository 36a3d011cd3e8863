"""The core configuration keys, with their defaults and meanings (and Hermes keys that are dead).

A plugin's own keys (``web.exa.search_type``, ``image_gen.comfyui.steps``, …) are not here: each plugin
declares them in the ``settings:`` block of its ``plugin.yaml`` and they reach ``hermes_nb.config``
as ``Setting`` values once plugins are discovered. ``hermes_nb.config`` reads defaults from both;
``tests/test_docs.py`` checks that each key appears in the README's configuration reference, and
``plugins.config_schema`` validates values against them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["KNOWN_KEYS", "DEAD_KEYS", "SETTING_TYPES", "Setting"]

#: The types a plugin setting may declare (``type: integer`` or ``type: [string, mapping]``).
SETTING_TYPES = ("string", "integer", "number", "boolean", "list", "mapping")


@dataclass(frozen=True)
class Setting:
    """One key a plugin declares in its ``plugin.yaml`` ``settings:`` block."""

    key: str  # the full dotted key, e.g. "web.exa.search_type"
    default: Any = None
    doc: str = ""  # one line, shown by `config show` and required in the README's reference
    types: tuple[str, ...] = ()  # names from SETTING_TYPES; () takes the default's type
    choices: tuple[Any, ...] = ()  # the only values allowed, when given
    plugin: str = ""  # the declaring plugin's name

#: Every core configuration key with its default and meaning (``<name>``: any provider, ``<plugin>``:
#: any plugin). ``tests/test_docs.py`` checks that each appears in the README's configuration reference.
KNOWN_KEYS: dict[str, tuple[Any, str]] = {
    "web.backend": (None, "Provider for every web capability unless a per-capability key is set."),
    "web.search_backend": (None, "Provider for search (wins over web.backend)."),
    "web.extract_backend": (None, "Provider for extract (wins over web.backend)."),
    "web.crawl_backend": (None, "Provider for crawl (wins over web.backend)."),
    "web.provider_priority": (None, "List reordering providers inside each auto-selection tier."),
    "web.search_fallback": (None, "Providers tried in order after the active one fails, is out of quota or "
                            "finds nothing (search); 'none': raise the first error."),
    "web.extract_fallback": (None, "Fallback chain for extract (as web.search_fallback)."),
    "web.crawl_fallback": (None, "Fallback chain for crawl (as web.search_fallback)."),
    "web.extract_char_limit": (15000, "Characters of an extracted page kept inline; the rest is stored."),
    "web.timeout": (20.0, "Per-request timeout in seconds for web providers."),
    "web.deadline": (60.0, "Overall deadline in seconds for one search/extract call, retries included."),
    "web.max_retries": (2, "Retries on 429, 5xx and connect errors."),
    "web.crawl_delay": (0.5, "Politeness delay in seconds between requests of the built-in crawler."),
    "web.<name>.base_url": (None, "Endpoint override of an HTTP web provider (emulator, proxy, self-host)."),
    "image_gen.provider": (None, "Image provider; when set, only that provider is used."),
    "image_gen.model": (None, "Model id passed to the image provider."),
    "image_gen.fallback": (None, "Image providers tried in order after the active one fails or is out of "
                           "quota; 'none' or unset: raise the first error."),
    "image_gen.<name>.base_url": (None, "Endpoint override of an HTTP image provider."),
    "image_gen.<name>.model": (None, "Model for one image provider (wins over image_gen.model)."),
    "image_gen.timeout": (120.0, "Deadline in seconds for one image generation, polling included."),
    "image_gen.budget_usd": (None, "US dollars one session may spend on fresh images; over it is refused."),
    "video_gen.provider": (None, "Video provider; when set, only that provider is used."),
    "video_gen.model": (None, "Model id passed to the video provider."),
    "video_gen.<name>.base_url": (None, "Endpoint override of an HTTP video provider."),
    "video_gen.<name>.model": (None, "Model for one video provider (wins over video_gen.model)."),
    "video_gen.timeout": (600.0, "Deadline in seconds for one video generation, polling and download included."),
    "video_gen.budget_usd": (None, "US dollars one session may spend on fresh videos; over it is refused."),
    "plugins.enabled": ([], "Keys or names of non-bundled plugins to load."),
    "plugins.disabled": ([], "Keys or names of plugins never to load (wins over enabled)."),
    "plugins.entries.<plugin>.settings": (None, "A plugin's own settings (ctx.get_config / ctx.set_config)."),
    "plugins.entries.<plugin>.granted_capabilities": ([], "Capabilities granted to a plugin (has_capability)."),
    "security.allow_lazy_installs": (True, "Let lazy_deps.ensure() pip-install allow-listed packages."),
    "security.allow_private_urls": (False, "Let extract/crawl/image downloads reach private addresses."),
    "security.private_origins": (
        [],
        "Origins (http://host:port) let through the private-URL guard; use_emulator lists its own.",
    ),
    "cache.mode": ("read_write", "read_write | replay | refresh | off."),
    "cache.ttl": (86400.0, "Seconds a cached search stays fresh in read_write mode."),
    "cache.replay_file": (None, "Cassette to replay (like HERMES_NB_REPLAY): no network, a miss is CACHE_MISS."),
    "cache.replay_strict": (False, "Replay matches backend, limit and every parameter exactly."),
    "batch.<name>.rps": (
        None,
        "Batch calls answered by this provider start at most this many per second; also the ceiling of "
        "the provider's adaptive rate limiter, shared by every call in the process.",
    ),
    "batch.<name>.in_flight": (None, "Batch calls answered by this provider in flight at once (caps concurrency)."),
    "display.max_results": (10, "Search results shown inline before 'more'."),
    "display.thumbnail_px": (256, "Longest edge of embedded image thumbnails."),
    "display.files_dir": (
        "hermes_nb_files",
        "Folder beside the notebook that full-size images are linked from ('' links the cache file).",
    ),
    "mcp.servers": (
        {},
        "MCP servers whose allowed tools join hn.tools: name → command/args/env or url/headers, allow, timeout.",
    ),
    "mcp.timeout": (120.0, "Seconds a tool of an MCP server may take before TIMEOUT (per server: timeout)."),
    "mcp.connect_timeout": (60.0, "Seconds an MCP server has to start and answer (per server: connect_timeout)."),
}

#: Hermes keys that no longer do anything; a config.yaml that sets one gets a warning naming why.
DEAD_KEYS: dict[str, str] = {
    "auxiliary.web_extract": "LLM summarisation of extracted pages was removed from Hermes; long pages are "
    "truncated and the full text stored instead (see web.extract_char_limit)",
}
