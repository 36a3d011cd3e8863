"""``KeyedHttpProvider``: a web provider over one JSON-over-HTTP API, written as declarations.

A provider built on it states what differs — its key variable and header, base URL, request
shape, the field map of a hit and the vendor's own error codes — and inherits the rest:

* ``is_available()``: the key in ``key_env`` resolves;
* ``require_key()``: that key, or ``ProviderNotConfiguredError`` with the one standard message
  (``Brave Search needs an API key: set BRAVE_SEARCH_API_KEY (…) or call hn.config.set_key(…)``);
* ``base_url()``: ``web.<name>.base_url``, else the ``base_url_env`` variable, else ``default_base_url``;
* ``get_json`` / ``post_json``: the shared client of the provider (retries, limits, redaction) with
  the key header and ``error_for`` as its error map; an answer that is not a JSON object is a
  ``ParseError``;
* ``error_for``: the usual statuses (a rejected key, spent credits, a refused request) worded once;
  a vendor's own codes are mapped by overriding it and falling back to ``super().error_for``;
  what it leaves (429, 5xx) the client maps itself, keeping ``Retry-After``;
* ``call_mcp_tool``: one tool call on the vendor's public MCP endpoint (keyless modes);
* ``clamp(limit)``: the per-call count, 1 to ``max_limit``.

``web_hits`` (Hermes's hit rows from a vendor's list and a field map), ``search_envelope`` and
``extract_each`` (pages read one by one, per-URL errors) serve any web provider, keyed or not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

import httpx

from hermes_nb import config
from hermes_nb.errors import (
    ContentFetchError,
    HermesError,
    InvalidInputError,
    ParseError,
    ProviderAuthError,
    RateLimitedError,
)
from hermes_nb.net.http_client import HttpClient, get_client, parse_retry_after
from hermes_nb.net.mcp import call_tool
from hermes_nb.plugins.provider_keys import missing_key_error
from hermes_nb.plugins.web_provider import WebSearchProvider, failed_page

__all__ = [
    "Field",
    "KeyedHttpProvider",
    "error_detail",
    "extract_each",
    "json_objects",
    "search_envelope",
    "web_hits",
]

#: Where a hit's value comes from: a key of the vendor's item, keys tried in order (the first that
#: holds a value wins), or a function of the item.
Field: TypeAlias = "str | tuple[str, ...] | Callable[[dict[str, Any]], Any]"


def _value(item: dict[str, Any], field: Field) -> Any:
    if callable(field):
        return field(item)
    for key in (field,) if isinstance(field, str) else field:
        if item.get(key):
            return item[key]
    return None


def json_objects(value: Any) -> list[dict[str, Any]]:
    """The objects of a JSON list (anything else, or a list of other things, gives [])."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def web_hits(
    items: Any,
    count: int,
    *,
    url: Field = "url",
    title: Field = "title",
    description: Field = "description",
    extra: dict[str, Field] | None = None,
    skip: Callable[[dict[str, Any]], bool] | None = None,
) -> list[dict[str, Any]]:
    """Hermes's hit rows ``{title, url, description, position}`` from a vendor's result list.

    Items that are not objects, have no URL, repeat an earlier URL or match ``skip`` are passed
    over; at most ``count`` rows. A missing title is the URL; ``extra`` adds text fields the item
    has (``{"published": "date"}``).
    """
    hits: list[dict[str, Any]] = []
    seen: set[str] = set()
    for item in items if isinstance(items, list) else []:
        if len(hits) >= count:
            break
        if not isinstance(item, dict) or (skip is not None and skip(item)):
            continue
        link = str(_value(item, url) or "")
        if not link or link in seen:
            continue
        seen.add(link)
        hit = {
            "title": str(_value(item, title) or link),
            "url": link,
            "description": str(_value(item, description) or ""),
            "position": len(hits) + 1,
        }
        for key, field in (extra or {}).items():
            value = _value(item, field)
            if value:
                hit[key] = str(value)
        hits.append(hit)
    return hits


def search_envelope(
    hits: list[dict[str, Any]], effective_limit: int | None = None, **data: Any
) -> dict[str, Any]:
    """Hermes's search answer ``{"success": True, "data": {"web": hits, …}}``; empty extras are left out."""
    body: dict[str, Any] = {"web": hits}
    if effective_limit is not None:
        body["effective_limit"] = effective_limit
    body.update({key: value for key, value in data.items() if value})
    return {"success": True, "data": body}


def extract_each(
    urls: list[str],
    read: Callable[[str], dict[str, Any]],
    *,
    per_url: tuple[type[HermesError], ...] = (ContentFetchError, InvalidInputError),
) -> list[dict[str, Any]]:
    """Extract rows for ``urls``, read one at a time by ``read(url)``.

    A ``per_url`` error (the page cannot be read) is that URL's row. Any other error fails the whole
    call while no URL has been read, so auto mode moves on to the next provider; after that it is
    the URL's row too.
    """
    pages: list[dict[str, Any]] = []
    served = False
    for url in urls:
        try:
            page = read(url)
        except per_url as exc:
            pages.append(failed_page(url, exc.message, exc.code))
            continue
        except HermesError as exc:
            if not served:
                raise
            pages.append(failed_page(url, exc.message, exc.code))
            continue
        served = True
        pages.append(page)
    return pages


def error_detail(resp: httpx.Response, *fields: str) -> str:
    """The vendor's message in an error body: the first of ``fields`` holding text ("" if none).

    ``"error.message"`` reads ``{"error": {"message": …}}``; a body that is not JSON has no detail.
    """
    try:
        body = resp.json()
    except ValueError:
        return ""
    for path in fields:
        value: Any = body
        for part in path.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if isinstance(value, (str, int, float)) and not isinstance(value, bool) and str(value):
            return str(value)
    return ""


class KeyedHttpProvider(WebSearchProvider):
    """A web provider over one JSON-over-HTTP API; a subclass declares what differs (see the module)."""

    #: The vendor in messages ("Brave"); the display name when empty.
    vendor: str = ""
    #: The header carrying the key: ``Authorization`` sends ``Bearer <key>``, any other the bare key.
    key_header: str = "Authorization"
    #: Where the API answers unless ``web.<name>.base_url`` or ``base_url_env`` say otherwise.
    default_base_url: str = ""
    #: An environment variable that may name the base URL too (as the vendor's own SDK reads it).
    base_url_env: str = ""
    #: Error-body fields tried in order for the vendor's message (``error.message`` reads nested).
    detail_fields: tuple[str, ...] = ("error.message", "error", "message", "detail")
    #: Statuses the standard error map reads as a rejected key, spent credits and a refused request.
    auth_statuses: tuple[int, ...] = (401, 403)
    credit_statuses: tuple[int, ...] = (402,)
    invalid_statuses: tuple[int, ...] = (400, 422)
    #: The end of the spent-credits message: what to do about it.
    credits_hint: str = "top up or wait for the reset"
    #: The vendor's public MCP endpoint (a keyless mode), unless ``web.<name>.mcp_url`` names another.
    default_mcp_url: str = ""

    @property
    def vendor_name(self) -> str:
        return self.vendor or self.display_name

    # -- the key and the address -------------------------------------------------------------------
    def is_available(self) -> bool:
        return bool(self.api_key())

    def api_key(self) -> str | None:
        """The key from ``key_env`` (environment, ``$HERMES_HOME/.env``, session keys), or None."""
        return config.resolve_key(self.key_env) if self.key_env else None

    def require_key(self, *, purpose: str = "", note: str = "") -> str:
        """The key, or the standard ``ProviderNotConfiguredError`` (``purpose``: "to crawl"; ``note``
        ends the message)."""
        key = self.api_key()
        if key:
            return key
        raise missing_key_error(
            self.name, self.key_env, self.display_name, self.docs_url, purpose=purpose, note=note
        )

    def base_url(self) -> str:
        """``web.<name>.base_url``, else ``base_url_env``, else ``default_base_url`` (no trailing /)."""
        configured = config.get(f"web.{self.name}.base_url")
        from_env = config.get_env_value(self.base_url_env) if self.base_url_env else None
        return str(configured or from_env or self.default_base_url).rstrip("/")

    def key_headers(self) -> dict[str, str]:
        """The key header (none without a key: keyless modes and self-hosted servers send none)."""
        key = self.api_key()
        if not key:
            return {}
        if self.key_header.lower() == "authorization":
            return {"Authorization": f"Bearer {key}"}
        return {self.key_header: key}

    # -- requests ----------------------------------------------------------------------------------
    def client(self) -> HttpClient:
        return get_client(self.name)

    def url(self, path: str) -> str:
        """``path`` under ``base_url()``; an absolute URL (a next page, a job status) stays as it is."""
        return path if path.startswith(("http://", "https://")) else f"{self.base_url()}{path}"

    def request_json(
        self, method: str, path: str, *, headers: dict[str, str] | None = None, **kwargs: Any
    ) -> Any:
        """Any JSON answer of ``method path`` (the key header added, ``error_for`` as the error map)."""
        merged = {**self.key_headers(), **(headers or {})}
        client = self.client()
        if method == "GET":
            return client.get_json(self.url(path), headers=merged, error_map=self.error_for, **kwargs)
        if method == "POST":
            return client.post_json(self.url(path), headers=merged, error_map=self.error_for, **kwargs)
        raise ValueError(f"request_json speaks GET and POST, not {method}")

    def get_json(self, path: str, **kwargs: Any) -> dict[str, Any]:
        """GET ``path``: the answer's JSON object (anything else is a ``ParseError``)."""
        return self._object(self.request_json("GET", path, **kwargs), path)

    def post_json(self, path: str, payload: Any, **kwargs: Any) -> dict[str, Any]:
        """POST ``payload`` as JSON to ``path``: the answer's JSON object."""
        return self._object(self.request_json("POST", path, json=payload, **kwargs), path)

    def _object(self, body: Any, path: str) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise ParseError(
                f"{self.vendor_name} {path} answered with JSON that is not an object", provider=self.name
            )
        return body

    def call_mcp_tool(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The ``result`` of one ``tools/call`` on the vendor's MCP endpoint (``error_for`` maps errors)."""
        url = str(config.get(f"web.{self.name}.mcp_url") or self.default_mcp_url)
        return call_tool(self.client(), url, tool, arguments, error_map=self.error_for)

    def clamp(self, limit: int) -> int:
        """The count to ask for: ``limit``, at least 1 and at most ``max_limit``."""
        count = max(1, int(limit))
        return min(count, self.max_limit) if self.max_limit else count

    # -- errors ------------------------------------------------------------------------------------
    @staticmethod
    def retry_after(resp: httpx.Response) -> float | None:
        """Seconds the answer asks to wait (``Retry-After``, ``retry-after-ms``); None if it names none."""
        return parse_retry_after(resp.headers)

    def error_detail(self, resp: httpx.Response) -> str:
        """The vendor's message in an error answer (``detail_fields``)."""
        return error_detail(resp, *self.detail_fields)

    def error_for(self, resp: httpx.Response) -> HermesError | None:
        """The error map: a rejected key, spent credits, a refused request; None leaves the rest to
        the client (429 with ``Retry-After``, 5xx). The client fills in provider and status."""
        status = resp.status_code
        detail = self.error_detail(resp)
        if status in self.auth_statuses:
            return ProviderAuthError(
                f"{self.vendor_name} rejected the API key ({detail or status}); check {self.key_env}",
                provider=self.name,
            )
        if status in self.credit_statuses:
            return RateLimitedError(
                f"{self.vendor_name} credits used up ({detail or status}); {self.credits_hint}",
                provider=self.name, retryable=False,
            )
        if status in self.invalid_statuses:
            return InvalidInputError(
                f"{self.vendor_name} refused the request: {detail or 'bad request'}", provider=self.name
            )
        return None
