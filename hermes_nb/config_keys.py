"""Every configuration key hermes_nb knows, with its default and meaning (and Hermes keys that are dead).

``hermes_nb.config`` reads defaults from here; ``tests/test_docs.py`` checks that each key appears in
the README's configuration reference, and ``plugins.config_schema`` validates values against it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["KNOWN_KEYS", "DEAD_KEYS"]

#: Every documented configuration key with its default and meaning. ``tests/test_docs.py``
#: checks that each appears in the README's configuration reference.
KNOWN_KEYS: dict[str, tuple[Any, str]] = {
    "web.backend": (None, "Provider for every web capability unless a per-capability key is set."),
    "web.search_backend": (None, "Provider for search (wins over web.backend)."),
    "web.extract_backend": (None, "Provider for extract (wins over web.backend)."),
    "web.crawl_backend": (None, "Provider for crawl (wins over web.backend)."),
    "web.provider_priority": (None, "List reordering providers inside each auto-selection tier."),
    "web.extract_char_limit": (15000, "Characters of an extracted page kept inline; the rest is stored."),
    "web.extract.min_confidence": (0.5, "direct: below this extraction confidence (0-1) try the next candidate."),
    "web.extract.processes": (0, "direct: worker processes converting pages (0: one per core; 1: convert in the kernel)."),
    "web.timeout": (20.0, "Per-request timeout in seconds for web providers."),
    "web.deadline": (60.0, "Overall deadline in seconds for one search/extract call, retries included."),
    "web.max_retries": (2, "Retries on 429, 5xx and connect errors."),
    "web.jina_fallback": (False, "Use Jina Reader for JS-heavy or near-empty public pages."),
    "web.crawl_delay": (0.5, "Politeness delay in seconds between requests of the built-in crawler."),
    "web.ddgs.timeout": (30.0, "Hard wall-clock limit in seconds for one ddgs search (in a subprocess)."),
    "web.<name>.base_url": (None, "Endpoint override of an HTTP web provider (emulator, proxy, self-host)."),
    "web.jina.search_base_url": (None, "Jina Search endpoint (Reader is web.jina.base_url)."),
    "web.openserp.engine": ("google", "Engine of a self-hosted OpenSERP (google, bing, duck, mega, ...)."),
    "web.<name>.mcp_url": (None, "Public MCP endpoint used without a key (exa, parallel, firecrawl)."),
    "web.exa.search_type": ("auto", "Exa search type: auto, neural, keyword, fast, instant or deep."),
    "web.exa.contents": ("highlights", "What Exa returns with each hit: highlights, text or none."),
    "web.parallel.mode": ("fast", "Parallel search mode: turbo, fast, basic or advanced."),
    "web.parallel.objective": (None, "Objective of Parallel searches and extracts (default: the query)."),
    "web.firecrawl.crawl_timeout": (120.0, "Deadline (s) of one Firecrawl crawl job, polling included."),
    "web.xai.model": ("grok-4-fast", "xAI model that runs the web_search tool."),
    "web.xai.allowed_domains": ([], "Only search these domains with xAI (at most 5; not with excluded)."),
    "web.xai.excluded_domains": ([], "Never search these domains with xAI (at most 5)."),
    "image_gen.provider": (None, "Image provider; when set, only that provider is used."),
    "image_gen.model": (None, "Model id passed to the image provider."),
    "image_gen.<name>.base_url": (None, "Endpoint override of an HTTP image provider."),
    "image_gen.<name>.model": (None, "Model for one image provider (wins over image_gen.model)."),
    "image_gen.diffusers.model": (None, "Local pipeline dir or an already-cached hub id (never downloaded)."),
    "image_gen.diffusers.size": (None, "'WxH' or {aspect: 'WxH'} for diffusers (multiples of 8)."),
    "image_gen.diffusers.batch_size": (4, "Concurrent diffusers prompts (imagine_many) grouped into one pipeline call."),
    "image_gen.xai.resolution": (None, "xAI output resolution ('1k' or '2k')."),
    "image_gen.comfyui.workflow": (None, "ComfyUI workflow file (API format, {{name}} placeholders)."),
    "image_gen.comfyui.steps": (20, "Sampler steps filled into a ComfyUI workflow's {{steps}}."),
    "image_gen.timeout": (120.0, "Deadline in seconds for one image generation, polling included."),
    "image_gen.budget_usd": (None, "US dollars one session may spend on fresh images; over it is refused."),
    "plugins.enabled": ([], "Keys or names of non-bundled plugins to load."),
    "plugins.disabled": ([], "Keys or names of plugins never to load (wins over enabled)."),
    "plugins.entries.<plugin>.settings": (None, "A plugin's own settings (ctx.get_config / ctx.set_config)."),
    "plugins.entries.<plugin>.granted_capabilities": ([], "Capabilities granted to a plugin (has_capability)."),
    "security.allow_lazy_installs": (True, "Let lazy_deps.ensure() pip-install allow-listed packages."),
    "security.allow_private_urls": (False, "Let extract/crawl/image downloads reach private addresses."),
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
}

#: Hermes keys that no longer do anything; a config.yaml that sets one gets a warning naming why.
DEAD_KEYS: dict[str, str] = {
    "auxiliary.web_extract": "LLM summarisation of extracted pages was removed from Hermes; long pages are "
    "truncated and the full text stored instead (see web.extract_char_limit)",
}
