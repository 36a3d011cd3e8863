"""Hermes's model-facing tools backed by the SDK: ``web_search``, ``web_extract``, ``image_generate``.

Schemas and JSON results are Hermes's (search envelope, ``{"results": [...]}`` for extract, the
image ``success_response`` envelope). Failures come back as ``{"success": false, "error", "code"}``
(``code`` from ``hermes_nb.errors``) instead of raising. The composition root (``hermes_nb._wiring``)
registers them on the tool registry's first lookup, the way a plugin's ``register(ctx)`` would.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from hermes_nb import images, web
from hermes_nb.errors import ContentFetchError, HermesError, InvalidInputError, ProviderError
from hermes_nb.images.results import ImageGallery
from hermes_nb.plugins.image_provider import (
    error_response,
    error_type_for,
    normalize_reference_images,
    resolve_aspect_ratio,
)
from hermes_nb.plugins.registry import image_providers, web_providers
from hermes_nb.plugins.tool_registry import ToolRegistry
from hermes_nb.plugins.tool_registry import registry as default_registry
from hermes_nb.redaction import redact
from hermes_nb.web.selection import supports

__all__ = [
    "WEB_SEARCH_SCHEMA",
    "WEB_EXTRACT_SCHEMA",
    "IMAGE_GENERATE_SCHEMA",
    "WEB_CRAWL_SCHEMA",
    "register_builtin_tools",
    "web_crawl_tool",
    "web_search_tool",
    "web_extract_tool",
    "image_generate_tool",
]

log = logging.getLogger(__name__)

OWNER = "hermes_nb"
MAX_EXTRACT_URLS = 5
_CHAR_LIMIT_RANGE = (2000, 500_000)

WEB_SEARCH_SCHEMA: dict[str, Any] = {
    "name": "web_search",
    "description": (
        "Search the web and return a ranked list of results (title, URL, description). Supports search "
        'operators: site:example.com, filetype:pdf, intitle:word, -excluded, "exact phrase". '
        "Use web_extract afterwards to read a page in full."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "The search query."},
            "limit": {
                "type": "integer",
                "description": "Number of results to return (1-100, default 5).",
                "minimum": 1,
                "maximum": 100,
                "default": 5,
            },
        },
        "required": ["query"],
    },
}

WEB_EXTRACT_SCHEMA: dict[str, Any] = {
    "name": "web_extract",
    "description": (
        "Fetch web pages and return their main content as markdown (up to 5 URLs per call). Long pages are "
        "truncated; the full text is saved to a file named in the result."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "urls": {
                "type": "array",
                "items": {"type": "string"},
                "maxItems": MAX_EXTRACT_URLS,
                "description": "URLs to extract (at most 5).",
            },
            "char_limit": {
                "type": "integer",
                "minimum": _CHAR_LIMIT_RANGE[0],
                "description": "Characters of each page to return inline (default 15000).",
            },
        },
        "required": ["urls"],
    },
}

WEB_CRAWL_SCHEMA: dict[str, Any] = {
    "name": "web_crawl",
    "description": (
        "Crawl a website from a start URL (same site, breadth-first) and return each page's main content "
        "as markdown."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "url": {"type": "string", "description": "The page to start from."},
            "depth": {
                "type": "integer",
                "minimum": 0,
                "maximum": 5,
                "default": 2,
                "description": "Links to follow from the start page (default 2).",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": 100,
                "default": 20,
                "description": "Pages to return at most (default 20).",
            },
        },
        "required": ["url"],
    },
}

IMAGE_GENERATE_SCHEMA: dict[str, Any] = {
    "name": "image_generate",
    "description": (
        "Generate an image from a text prompt with the configured image provider, or edit an image when "
        "image_url / reference_image_urls are given. Returns the saved file path."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "prompt": {"type": "string", "description": "What the image should show."},
            "aspect_ratio": {
                "type": "string",
                "enum": ["landscape", "square", "portrait"],
                "default": "landscape",
                "description": "Image shape (default landscape).",
            },
            "image_url": {"type": "string", "description": "Image to edit (URL or local path)."},
            "reference_image_urls": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Reference images guiding the result.",
            },
        },
        "required": ["prompt"],
    },
}


def _dumps(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, default=str)


def _failure(exc: BaseException, prefix: str) -> dict[str, Any]:
    if isinstance(exc, HermesError):
        return {"success": False, "error": exc.message, "code": exc.code}
    return {
        "success": False,
        "error": redact(f"{prefix}: {type(exc).__name__}: {exc}"),
        "code": ProviderError.code,
    }


def _invalid(message: str) -> dict[str, Any]:
    return {"success": False, "error": message, "code": InvalidInputError.code}


def _empty_row(error: str) -> dict[str, Any]:
    return {"url": "", "title": "", "content": "", "error": error}


def _clamp_int(value: Any, default: int, low: int, high: int) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = default
    return max(low, min(high, number))


# -- web_search -----------------------------------------------------------------------------------
def web_search_tool(args: dict[str, Any], **_: Any) -> str:
    """``web_search`` handler: Hermes's search envelope ``{"success": true, "data": {"web": [...]}}``."""
    query = str(args.get("query") or "").strip()
    if not query:
        return _dumps(_invalid("query is required for web_search"))
    limit = _clamp_int(args.get("limit", 5), 5, 1, 100)
    try:
        result = web.search(query, limit=limit)
    except Exception as exc:
        return _dumps(_failure(exc, "Error searching web"))
    return _dumps(result.envelope)


def _web_available(capability: str) -> bool:
    for provider in web_providers.list():
        try:
            if supports(provider, capability) and provider.is_available():
                return True
        except Exception:  # a broken provider must not hide the others
            continue
    return False


# -- web_extract ----------------------------------------------------------------------------------
def _url_of(item: Any) -> str | None:
    if isinstance(item, str) and item.strip():
        return item.strip()
    if isinstance(item, dict):
        for key in ("url", "href"):
            value = item.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
    return None


def _page_row(item: Any) -> dict[str, Any]:
    get = item.get if isinstance(item, dict) else lambda key, default=None: getattr(item, key, default)
    row = {
        "url": get("url", ""),
        "title": get("title", "") or "",
        "content": get("content", "") or "",
        "error": get("error", None),
    }
    if get("blocked_by_policy", None):
        row["blocked_by_policy"] = get("blocked_by_policy", None)
    return row


def _coded(row: dict[str, Any], code: str | None) -> dict[str, Any]:
    """A failed page row carries the error code of ``hermes_nb.errors`` (CONTENT_BLOCKED, ...)."""
    if row.get("error") and code:
        row["code"] = code
    return row


def _match_pages(urls: list[str | None], rows: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Input index → page row: by position when every URL got a row, else by URL."""
    indices = [i for i, u in enumerate(urls) if u is not None]
    if len(rows) == len(indices):
        return dict(zip(indices, rows, strict=True))
    by_url = {row["url"]: row for row in rows}
    return {i: by_url[u] for i, u in enumerate(urls) if u is not None and u in by_url}


async def web_extract_tool(args: dict[str, Any], **_: Any) -> str:
    """``web_extract`` handler: ``{"results": [{"url", "title", "content", "error"}]}`` in input order."""
    raw = args.get("urls")
    items = [raw] if isinstance(raw, (str, dict)) else list(raw or [])
    items = items[:MAX_EXTRACT_URLS]
    if not items:
        return _dumps(_invalid("urls is required for web_extract"))
    char_limit = args.get("char_limit")
    max_chars = None if char_limit is None else _clamp_int(char_limit, 15000, *_CHAR_LIMIT_RANGE)
    urls = [_url_of(item) for item in items]
    pages: dict[int, dict[str, Any]] = {}
    wanted = [u for u in urls if u is not None]
    if wanted:
        try:
            result = await web.aextract(wanted, max_chars=max_chars)
        except Exception as exc:
            return _dumps(_failure(exc, "Error extracting content"))
        pages = _match_pages(urls, [_coded(_page_row(p.to_dict()), p.error_code) for p in result.pages])
    results = [
        _empty_row(f"Invalid URL item at index {index}")
        if url is None
        else pages.get(index) or _empty_row("Extract backend returned no result for this URL")
        for index, url in enumerate(urls)
    ]
    if not any(r["content"] or r["error"] for r in results):
        return _dumps(
            {
                "success": False,
                "error": "Content was inaccessible or not found",
                "code": ContentFetchError.code,
            }
        )
    return _dumps({"results": results})


# -- web_crawl (not a Hermes model tool: the MCP server serves it) ----------------------------------
def web_crawl_tool(args: dict[str, Any], **_: Any) -> str:
    """``web_crawl`` handler: ``{"results": [{"url", "title", "content", "error"}]}`` of the pages reached.

    Hermes removed crawl as a model tool; hermes_nb keeps it in the SDK (``hn.crawl``) and the MCP
    server offers it to agents. It is not registered in ``hn.tools``.
    """
    url = str(args.get("url") or "").strip()
    if not url:
        return _dumps(_invalid("url is required for web_crawl"))
    depth = _clamp_int(args.get("depth", 2), 2, 0, 5)
    limit = _clamp_int(args.get("limit", 20), 20, 1, 100)
    try:
        result = web.crawl(url, depth=depth, limit=limit)
    except Exception as exc:
        return _dumps(_failure(exc, "Error crawling"))
    rows = [_coded(_page_row(p.to_dict()), p.error_code) for p in result.pages]
    if not any(r["content"] for r in rows):
        first = next((r for r in rows if r["error"]), None)
        message = first["error"] if first else f"No page could be read from {url}"
        return _dumps(
            {"success": False, "error": message, "code": (first or {}).get("code") or "CONTENT_FETCH_FAILED"}
        )
    return _dumps({"results": rows})


# -- image_generate -------------------------------------------------------------------------------
def image_generate_tool(args: dict[str, Any], **_: Any) -> str:
    """``image_generate`` handler: Hermes's image envelope (``success``, ``image``, ``model``, ...)."""
    prompt = str(args.get("prompt") or "").strip()
    aspect_ratio = resolve_aspect_ratio(args.get("aspect_ratio"))
    if not prompt:
        message = "prompt is required for image generation"
        return _dumps(
            {**error_response(error=message, error_type="invalid_argument"), "code": InvalidInputError.code}
        )
    # An edit source goes first: the SDK sends the first reference as the provider's ``image_url``.
    image_url = args.get("image_url")
    refs = normalize_reference_images(
        [*([image_url] if isinstance(image_url, str) else []), *(args.get("reference_image_urls") or [])]
    )
    try:
        result = images.imagine(prompt, aspect_ratio=aspect_ratio, reference_images=refs)
    except Exception as exc:
        failure = _failure(exc, "Image generation failed")
        envelope = error_response(
            error=failure["error"],
            error_type=error_type_for(exc),
            provider=getattr(exc, "provider", None) or "",
            prompt=prompt,
            aspect_ratio=aspect_ratio,
        )
        return _dumps({**envelope, "code": failure["code"]})
    first = result[0] if isinstance(result, ImageGallery) else result
    return _dumps(first.envelope)


def _image_available() -> bool:
    for provider in image_providers.list():
        try:
            if provider.is_available():
                return True
        except Exception:  # a broken provider must not hide the others
            continue
    return False


def register_builtin_tools(registry: ToolRegistry | None = None) -> None:
    """Register the three built-in tools (owner ``"hermes_nb"``; idempotent)."""
    if registry is None:
        registry = default_registry
    registry.register(
        "web_search", "web", WEB_SEARCH_SCHEMA, web_search_tool,
        check_fn=lambda: _web_available("search"), emoji="🔍", max_result_size_chars=100_000, owner=OWNER,
    )  # fmt: skip
    registry.register(
        "web_extract", "web", WEB_EXTRACT_SCHEMA, web_extract_tool,
        check_fn=lambda: _web_available("extract"), is_async=True, emoji="📄",
        max_result_size_chars=100_000, owner=OWNER,
    )  # fmt: skip
    registry.register(
        "image_generate", "image_gen", IMAGE_GENERATE_SCHEMA, image_generate_tool,
        check_fn=_image_available, emoji="🎨", owner=OWNER,
    )  # fmt: skip
