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
    KeyedHttpProvider,
    ParseError,
    RateLimitedError,
    config,
    extract_each,
    extracted_page,
    search_envelope,
    web_hits,
)

SEARCH_URL = "https://s.jina.ai"


class JinaProvider(KeyedHttpProvider):
    """Jina Reader (page → Markdown, keyless or keyed) and Jina Search (keyed)."""

    name = "jina"
    display_name = "Jina Reader / Search"
    vendor = "Jina"
    tier = "commercial"  # with a key; without one selection puts it in the keyless tier
    key_env = "JINA_API_KEY"
    docs_url = "https://jina.ai/reader/"
    default_base_url = "https://r.jina.ai"  # Reader
    max_limit = 20  # s.jina.ai count cap
    price_note = "keyless / free tokens"
    tagline = "Reader: 20 requests/min keyless, 200 with a key; Search needs the key (40/min)."
    detail_fields = ("readableMessage", "message", "name")
    invalid_statuses = ()  # a 400 is about the search or the page read (error_for)
    credits_hint = "recharge at https://jina.ai/api-dashboard"

    def is_keyless_available(self) -> bool:
        return True

    def supports_search(self) -> bool:
        return self.is_available()  # s.jina.ai refuses requests without a key

    def supports_extract(self) -> bool:
        return True

    def search(self, query: str, limit: int = 5) -> dict[str, Any]:
        self.require_key(purpose="to search", note="; Jina Reader (extract) works without one")
        count = self.clamp(limit)
        base = str(config.get("web.jina.search_base_url") or SEARCH_URL).rstrip("/")
        body = self.get_json(
            f"{base}/", params={"q": query, "count": count}, headers={"Accept": "application/json"}
        )
        if not isinstance(body.get("data"), list):
            raise ParseError("Jina Search answered without a 'data' list", provider=self.name)
        return search_envelope(web_hits(body["data"], count), count)

    def extract(self, urls: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        keyless = not self.api_key()
        fmt = "text" if kwargs.get("format") == "text" else "markdown"
        headers = {"Accept": "application/json", "X-Respond-With": fmt}

        def read(url: str) -> dict[str, Any]:
            # keyless: a rate limit goes straight back to selection, which moves on
            body = self.get_json(f"/{url}", headers=headers, retry=not keyless)
            return _page(url, body.get("data"), keyless=keyless)

        return extract_each(urls, read, per_url=(ContentFetchError, InvalidInputError, ParseError))

    def error_for(self, resp: httpx.Response) -> HermesError | None:
        """Jina's error body ``{"code", "name", "status", "message", "readableMessage"}``."""
        detail = self.error_detail(resp) or str(resp.status_code)
        status = resp.status_code
        if status == 429:
            keyless = "authorization" not in resp.request.headers
            hint = "slow down"
            if keyless:
                hint = f"keyless Reader allows about 20 requests a minute; set {self.key_env}"
            return RateLimitedError(f"Jina rate limit reached ({detail}); {hint}",
                                    retry_after=self.retry_after(resp))
        if status in (400, 422) and "q" in resp.request.url.params:
            return InvalidInputError(f"Jina Search refused the request: {detail}")
        if status in (400, 422, 451):
            return ContentFetchError(f"Jina could not read {resp.request.url.path.lstrip('/')}: {detail}")
        return super().error_for(resp)


def _page(url: str, data: Any, *, keyless: bool) -> dict[str, Any]:
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
    title = str(data.get("title") or "")
    return extracted_page(str(data.get("url") or url), text, title=title, metadata=meta)
