"""Keenable: ``POST /v1/search`` and ``GET /v1/fetch`` with ``X-API-Key``, or their keyless ``/public`` twins.

Without a key the public endpoints answer about 1,000 requests an hour per IP; they require an
``X-Keenable-Title`` header naming the calling application. With ``KEENABLE_API_KEY`` set the keyed
endpoints are always used (a keyed failure is never retried keyless).
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
    RateLimitedError,
    WebSearchProvider,
    config,
    get_client,
)

KEY_ENV = "KEENABLE_API_KEY"
DEFAULT_BASE_URL = "https://api.keenable.ai"
APP_TITLE = "hermes_nb"  # the X-Keenable-Title of keyless requests
MAX_COUNT = 50
CONSOLE_URL = "https://keenable.ai/console"


class KeenableProvider(WebSearchProvider):
    """Keenable's own web index: search results and page content as Markdown (indexed pages only)."""

    tier = "commercial"  # with a key; without one selection puts it in the keyless tier
    docs_url = "https://docs.keenable.ai/"

    @property
    def name(self) -> str:
        return "keenable"

    @property
    def display_name(self) -> str:
        return "Keenable"

    def is_available(self) -> bool:
        return bool(config.resolve_key(KEY_ENV))

    def is_keyless_available(self) -> bool:
        return True

    def supports_extract(self) -> bool:
        return True

    def search(self, query: str, limit: int = 5) -> dict[str, Any]:
        count = max(1, min(int(limit), MAX_COUNT))
        body = self._call("POST", "/v1/search", json={"query": query, "count": count})
        if not isinstance(body, dict) or not isinstance(body.get("results"), list):
            raise ParseError("Keenable answered without a 'results' list", provider=self.name)
        hits: list[dict[str, Any]] = []
        for item in body["results"]:
            if not isinstance(item, dict) or not item.get("url"):
                continue
            hits.append(
                {
                    "title": str(item.get("title") or item["url"]),
                    "url": str(item["url"]),
                    "description": str(item.get("description") or item.get("snippet") or ""),
                    "position": len(hits) + 1,
                }
            )
            if len(hits) == count:
                break
        return {"success": True, "data": {"web": hits, "effective_limit": count}}

    def extract(self, urls: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        pages: list[dict[str, Any]] = []
        served = False
        for url in urls:
            try:
                body = self._call("GET", "/v1/fetch", params={"url": url})
            except (ContentFetchError, InvalidInputError) as exc:
                pages.append(_failed(url, exc.message, exc.code))
                continue
            except HermesError as exc:
                if not served:  # nothing done yet: fail the call so auto mode can move on
                    raise
                pages.append(_failed(url, exc.message, exc.code))
                continue
            if not isinstance(body, dict):
                pages.append(_failed(url, "Keenable answered with JSON that is not an object", "PARSE_ERROR"))
                continue
            served = True
            text = str(body.get("content") or "")
            meta = {k: body[k] for k in ("description", "author", "published_at") if body.get(k)}
            meta["source"] = "keenable"
            pages.append(
                {
                    "url": str(body.get("url") or url),
                    "title": str(body.get("title") or ""),
                    "content": text,
                    "raw_content": text,
                    "metadata": meta,
                }
            )
        return pages

    def get_setup_schema(self) -> dict[str, Any]:
        return {
            "name": self.display_name,
            "badge": "keyless / free tier",
            "tag": "Own web index; keyless ~1,000 requests/hour per IP, a key lifts the limit.",
            "env_vars": [{"key": KEY_ENV, "prompt": "Keenable API key (optional)", "url": CONSOLE_URL}],
        }

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        key = config.resolve_key(KEY_ENV)
        base = str(config.get("web.keenable.base_url") or DEFAULT_BASE_URL).rstrip("/")
        if key:
            headers, url, retry = {"X-API-Key": key}, f"{base}{path}", True
        else:  # keyless: rate limits go straight back to selection, which moves to the next provider
            headers, url, retry = {"X-Keenable-Title": APP_TITLE}, f"{base}{path}/public", False
        client = get_client(self.name)
        resp = client.request(method, url, headers=headers, error_map=_error_for, retry=retry, **kwargs)
        try:
            return resp.json()
        except ValueError:
            raise ParseError(f"Keenable {path} answered with invalid JSON", provider=self.name) from None


def _failed(url: str, message: str, code: str = "CONTENT_FETCH_FAILED") -> dict[str, Any]:
    return {"url": url, "title": "", "content": "", "raw_content": "", "error": message, "error_code": code}


def _retry_after(resp: httpx.Response) -> float | None:
    try:
        return float(resp.headers.get("retry-after", ""))
    except ValueError:
        return None


def _error_for(resp: httpx.Response) -> HermesError | None:
    """401 missing/bad key, 403 key disabled, 404 page not in the index, 429 rate limit."""
    try:
        body = resp.json()
    except ValueError:
        body = None
    detail = str(body.get("detail") or body.get("message") or "") if isinstance(body, dict) else ""
    status = resp.status_code
    keyless = resp.request.url.path.endswith("/public")
    if status in (401, 403):
        return ProviderAuthError(
            f"Keenable refused the key ({detail or status}); check {KEY_ENV} ({CONSOLE_URL})",
            provider="keenable", status=status,
        )
    if status == 429:
        hint = f"the keyless limit is about 1,000 requests an hour; set {KEY_ENV}" if keyless else "slow down"
        return RateLimitedError(
            f"Keenable rate limit reached ({detail or status}); {hint}",
            provider="keenable", status=status, retry_after=_retry_after(resp),
        )
    if status == 404 and "/v1/fetch" in resp.request.url.path:
        return ContentFetchError(
            f"Keenable has no copy of {resp.request.url.params.get('url')}: it fetches indexed pages only",
            provider="keenable", status=status,
        )
    if status in (400, 422):
        return InvalidInputError(f"Keenable refused the request: {detail or status}", provider="keenable",
                                 status=status)
    return None
