"""OpenSERP: ``GET /{engine}/search?text=&limit=`` on a self-hosted server, or the hosted ``/search``.

Three answer shapes, told apart by the JSON itself: a bare array (servers up to v0.x),
an object with ``results`` (v2), and the hosted ``organic_results`` envelope.
"""

from __future__ import annotations

from typing import Any

import httpx

from hermes_nb.provider_api import (
    HermesError,
    InvalidInputError,
    ParseError,
    ProviderAuthError,
    ProviderNotConfiguredError,
    ProviderUnavailableError,
    RateLimitedError,
    WebSearchProvider,
    config,
    get_client,
)

KEY_ENV = "OPENSERP_API_KEY"
HOSTED_BASE_URL = "https://api.openserp.com"
DEFAULT_ENGINE = "google"
MAX_LIMIT = 100  # the server's limit cap
ENGINES = ("google", "yandex", "baidu", "bing", "duck", "duckduckgo", "ddg", "ecosia", "mega")


class OpenserpProvider(WebSearchProvider):
    """A self-hosted OpenSERP server (no key) or the hosted endpoint (``OPENSERP_API_KEY``)."""

    tier = "self_hosted"
    docs_url = "https://github.com/karust/openserp"

    @property
    def name(self) -> str:
        return "openserp"

    @property
    def display_name(self) -> str:
        return "OpenSERP"

    def is_available(self) -> bool:
        return bool(_base_url() or config.resolve_key(KEY_ENV))

    def search(self, query: str, limit: int = 5) -> dict[str, Any]:
        base = _base_url()
        key = config.resolve_key(KEY_ENV)
        if not base and not key:
            raise ProviderNotConfiguredError(
                "OpenSERP needs the address of a server: "
                "hn.config.set('web.openserp.base_url', 'http://127.0.0.1:7000'), "
                f"or {KEY_ENV} for the hosted endpoint",
                provider=self.name,
            )
        count = max(1, min(int(limit), MAX_LIMIT))
        headers = {"Accept": "application/json"}
        if key:
            headers.update({"Authorization": f"Bearer {key}", "x-api-key": key})
        if base:
            engine = str(config.get("web.openserp.engine") or DEFAULT_ENGINE).strip().lower()
            if engine not in ENGINES:
                raise InvalidInputError(
                    f"web.openserp.engine {engine!r} is not an OpenSERP engine; "
                    f"use one of {', '.join(ENGINES)}",
                    provider=self.name,
                )
            url, params = f"{base}/{engine}/search", {"text": query, "limit": count}
        else:
            url, params = f"{HOSTED_BASE_URL}/search", {"q": query, "num": count}
        body = get_client(self.name).get_json(url, params=params, headers=headers, error_map=_error_for)
        hits: list[dict[str, Any]] = []
        for item in _items(body):
            link = item.get("url") or item.get("link")
            if not link or item.get("ad"):
                continue
            hits.append(
                {
                    "title": str(item.get("title") or link),
                    "url": str(link),
                    "description": str(item.get("snippet") or item.get("description") or ""),
                    "position": len(hits) + 1,
                }
            )
            if len(hits) == count:
                break
        return {"success": True, "data": {"web": hits, "effective_limit": count}}

    def get_setup_schema(self) -> dict[str, Any]:
        return {
            "name": self.display_name,
            "badge": "self-hosted / free",
            "tag": "Your own OpenSERP server (karust/openserp); up to 100 results per call.",
            "env_vars": [
                {"key": KEY_ENV, "prompt": "OpenSERP API key (hosted endpoint only)", "url": HOSTED_BASE_URL}
            ],
            "install": "or point web.openserp.base_url at your own server (e.g. http://127.0.0.1:7000)",
        }


def _base_url() -> str:
    value = str(config.get("web.openserp.base_url") or "").strip().rstrip("/")
    return value if value.startswith(("http://", "https://")) else ""


def _items(body: Any) -> list[dict[str, Any]]:
    """The result list of any of the three shapes (array, ``results``, ``organic_results``)."""
    if isinstance(body, list):
        found: Any = body
    elif isinstance(body, dict):
        found = body.get("organic_results")
        if not isinstance(found, list):
            found = body.get("results")
        if not isinstance(found, list):
            raise ParseError(
                "OpenSERP answered with an object that has neither 'results' nor 'organic_results'",
                provider="openserp",
            )
    else:
        raise ParseError(
            "OpenSERP answered with JSON that is neither a list nor an object", provider="openserp"
        )
    items = [item for item in found if isinstance(item, dict)]
    ranked = [item for item in items if isinstance(item.get("rank"), int)]
    return sorted(items, key=lambda i: i["rank"]) if len(ranked) == len(items) else items


def _error_for(resp: httpx.Response) -> HermesError | None:
    """OpenSERP v2 error classes (``{"error", "code", "message", "reason"}``); v0 answers plain text."""
    try:
        body = resp.json()
    except ValueError:
        body = None
    error = str(body.get("error") or "") if isinstance(body, dict) else ""
    detail = str(body.get("message") or body.get("reason") or error) if isinstance(body, dict) else ""
    status = resp.status_code
    if status == 401 or (status == 403 and error != "blocked"):
        return ProviderAuthError(
            f"OpenSERP refused the request ({detail or status}); check {KEY_ENV}",
            provider="openserp", status=status,
        )
    if status == 403:
        return ProviderUnavailableError(
            f"OpenSERP's search engine blocked the server ({detail}); try another engine or later",
            provider="openserp", status=status,
        )
    if status == 429:
        return RateLimitedError(
            f"OpenSERP hit a {error or 'rate limit'} at the search engine ({detail}); try again later",
            provider="openserp", status=status,
        )
    if status == 400:
        return InvalidInputError(
            f"OpenSERP refused the request: {detail or 'bad request'}", provider="openserp", status=status
        )
    return None
