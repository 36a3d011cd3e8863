"""Jina: Reader (``GET r.jina.ai/<url>``, works without a key) for extract, Search (``s.jina.ai``) with a key.

Keyless, Reader allows about 20 requests a minute; ``JINA_API_KEY`` raises that to 200 and turns
on search (which has no keyless mode, so search is offered only when the key is set). The same
Reader endpoint (``web.jina.base_url``) serves the ``direct`` provider's opt-in fallback.
"""

from __future__ import annotations

from typing import Any

import httpx

from hermes_nb.provider_api import (
    ContentFetchError,
    HermesError,
    InvalidInputError,
    ParseError,
    ProviderAuthError,
    ProviderNotConfiguredError,
    RateLimitedError,
    WebSearchProvider,
    config,
    get_client,
)

KEY_ENV = "JINA_API_KEY"
READER_URL = "https://r.jina.ai"
SEARCH_URL = "https://s.jina.ai"
MAX_COUNT = 20  # s.jina.ai count cap
KEY_URL = "https://jina.ai/api-dashboard"


class JinaProvider(WebSearchProvider):
    """Jina Reader (page → Markdown, keyless or keyed) and Jina Search (keyed)."""

    tier = "commercial"  # with a key; without one selection puts it in the keyless tier
    docs_url = "https://jina.ai/reader/"

    @property
    def name(self) -> str:
        return "jina"

    @property
    def display_name(self) -> str:
        return "Jina Reader / Search"

    def is_available(self) -> bool:
        return bool(config.resolve_key(KEY_ENV))

    def is_keyless_available(self) -> bool:
        return True

    def supports_search(self) -> bool:
        return bool(config.resolve_key(KEY_ENV))  # s.jina.ai refuses requests without a key

    def supports_extract(self) -> bool:
        return True

    def search(self, query: str, limit: int = 5) -> dict[str, Any]:
        key = config.resolve_key(KEY_ENV)
        if not key:
            raise ProviderNotConfiguredError(
                f"Jina Search needs an API key: set {KEY_ENV} ({KEY_URL}); "
                "Jina Reader (extract) works without one",
                provider=self.name,
            )
        count = max(1, min(int(limit), MAX_COUNT))
        base = str(config.get("web.jina.search_base_url") or SEARCH_URL).rstrip("/")
        body = get_client(self.name).get_json(
            f"{base}/",
            params={"q": query, "count": count},
            headers={"Authorization": f"Bearer {key}", "Accept": "application/json"},
            error_map=_error_for,
        )
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list):
            raise ParseError("Jina Search answered without a 'data' list", provider=self.name)
        hits: list[dict[str, Any]] = []
        for item in data:
            if not isinstance(item, dict) or not item.get("url"):
                continue
            hits.append(
                {
                    "title": str(item.get("title") or item["url"]),
                    "url": str(item["url"]),
                    "description": str(item.get("description") or ""),
                    "position": len(hits) + 1,
                }
            )
            if len(hits) == count:
                break
        return {"success": True, "data": {"web": hits, "effective_limit": count}}

    def extract(self, urls: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        key = config.resolve_key(KEY_ENV)
        fmt = "text" if kwargs.get("format") == "text" else "markdown"
        headers = {"Accept": "application/json", "X-Respond-With": fmt}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        base = str(config.get("web.jina.base_url") or READER_URL).rstrip("/")
        client = get_client(self.name)
        pages: list[dict[str, Any]] = []
        served = False
        for url in urls:
            try:
                # keyless: a rate limit goes straight back to selection, which moves on
                resp = client.request(
                    "GET", f"{base}/{url}", headers=headers, error_map=_error_for, retry=bool(key)
                )
                page = _page(url, resp, keyless=not key)
            except (ContentFetchError, InvalidInputError, ParseError) as exc:
                pages.append(_failed(url, exc.message, exc.code))
                continue
            except HermesError as exc:
                if not served:  # nothing done yet: fail the call so auto mode can move on
                    raise
                pages.append(_failed(url, exc.message, exc.code))
                continue
            served = True
            pages.append(page)
        return pages

    def get_setup_schema(self) -> dict[str, Any]:
        return {
            "name": self.display_name,
            "badge": "keyless / free tokens",
            "tag": "Reader: 20 requests/min keyless, 200 with a key; Search needs the key (40/min).",
            "env_vars": [{"key": KEY_ENV, "prompt": "Jina API key (optional for Reader)", "url": KEY_URL}],
        }


def _page(url: str, resp: httpx.Response, *, keyless: bool) -> dict[str, Any]:
    try:
        body = resp.json()
    except ValueError:
        raise ParseError(f"Jina Reader answered with invalid JSON for {url}", provider="jina") from None
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, dict):
        raise ParseError(f"Jina Reader answered without a 'data' object for {url}", provider="jina")
    text = str(data.get("content") or "")
    if not text.strip():
        raise ContentFetchError(f"Jina Reader returned an empty page for {url}", provider="jina")
    meta: dict[str, Any] = {k: data[k] for k in ("description", "publishedTime") if data.get(k)}
    usage = data.get("usage")
    if isinstance(usage, dict) and usage.get("tokens") is not None:
        meta["tokens"] = usage["tokens"]
    meta.update({"source": "jina", "keyless": keyless, "third_party": "the URL was sent to Jina Reader"})
    return {
        "url": str(data.get("url") or url),
        "title": str(data.get("title") or ""),
        "content": text,
        "raw_content": text,
        "metadata": meta,
    }


def _failed(url: str, message: str, code: str) -> dict[str, Any]:
    return {"url": url, "title": "", "content": "", "raw_content": "", "error": message, "error_code": code}


def _retry_after(resp: httpx.Response) -> float | None:
    try:
        return float(resp.headers.get("retry-after", ""))
    except ValueError:
        return None


def _error_for(resp: httpx.Response) -> HermesError | None:
    """Jina's error body ``{"code", "name", "status", "message", "readableMessage"}``."""
    try:
        body = resp.json()
    except ValueError:
        body = None
    name = str(body.get("name") or "") if isinstance(body, dict) else ""
    detail = str(body.get("readableMessage") or body.get("message") or name) if isinstance(body, dict) else ""
    status = resp.status_code
    keyless = "authorization" not in resp.request.headers
    if status in (401, 403):
        return ProviderAuthError(f"Jina rejected the API key ({detail or status}); check {KEY_ENV}",
                                 provider="jina", status=status)
    if status == 402:
        return RateLimitedError(f"Jina balance used up ({detail}); recharge at {KEY_URL}",
                                provider="jina", status=status, retryable=False)
    if status == 429:
        hint = f"keyless Reader allows about 20 requests a minute; set {KEY_ENV}" if keyless else "slow down"
        return RateLimitedError(f"Jina rate limit reached ({detail or status}); {hint}",
                                provider="jina", status=status, retry_after=_retry_after(resp))
    if status in (400, 422) and "q" in resp.request.url.params:
        return InvalidInputError(f"Jina Search refused the request: {detail or status}",
                                 provider="jina", status=status)
    if status in (400, 422, 451):
        where = resp.request.url.path.lstrip("/")
        return ContentFetchError(f"Jina could not read {where}: {detail or status}",
                                 provider="jina", status=status)
    return None
