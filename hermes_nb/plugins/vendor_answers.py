"""A vendor's HTTP answer: its JSON body as an object (or ``PARSE_ERROR``), and the usual error map.

Most vendor APIs fail the same way: 401/403 a bad key, 402 no credit, 429 a rate limit, 400/404/422 a
request they refuse. ``vendor_error`` says so in the same words for every provider; a provider's own
error map handles what is peculiar to its vendor first (moderation codes, odd statuses) and hands the
rest to it.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from hermes_nb.errors import (
    HermesError,
    InvalidInputError,
    ParseError,
    ProviderAuthError,
    ProviderError,
    RateLimitedError,
)
from hermes_nb.plugins.provider_keys import KeyEnv, key_names

if TYPE_CHECKING:
    import httpx

__all__ = ["json_object", "json_or_none", "retry_after_s", "vendor_message", "vendor_error", "REFUSED"]

#: Statuses a vendor uses for a request it will not serve as sent (the caller's input to fix).
REFUSED = (400, 404, 422)


def json_object(response: httpx.Response, provider: str, vendor: str = "") -> dict[str, Any]:
    """The answer's JSON object; invalid JSON or another JSON type is a ``ParseError`` of ``provider``."""
    who = vendor or provider
    try:
        body = response.json()
    except ValueError as exc:  # UnicodeDecodeError is a ValueError too
        raise ParseError(f"{who} answered with invalid JSON; try again", provider=provider) from exc
    if not isinstance(body, dict):
        raise ParseError(f"{who} answered with JSON that is not an object", provider=provider)
    return body


def json_or_none(response: httpx.Response) -> Any:
    """The answer's JSON, or ``None`` when it is not JSON (error bodies are often HTML or empty)."""
    try:
        return response.json()
    except ValueError:
        return None


def retry_after_s(response: httpx.Response) -> float | None:
    """``Retry-After`` in seconds when it is a number (an HTTP date is left to the client's retry)."""
    value = (response.headers.get("retry-after") or "").strip()
    return float(value) if value and value.replace(".", "", 1).isdigit() else None


def vendor_message(body: Any, status: int) -> str:
    """What an error body says: FastAPI's ``detail`` (a field list becomes ``field: problem; …``),
    ``message``, ``error`` (text or ``{"message"}``) or RFC 7807's ``title``; else ``HTTP <status>``."""
    body = body if isinstance(body, dict) else {}
    detail = body.get("detail")
    if isinstance(detail, list):
        return "; ".join(
            f"{'.'.join(str(p) for p in d.get('loc', [])[1:])}: {d.get('msg')}"
            for d in detail
            if isinstance(d, dict)
        )
    error = body.get("error")
    if isinstance(error, dict):
        error = error.get("message")
    return str(detail or body.get("message") or error or body.get("title") or f"HTTP {status}")


def vendor_error(
    response: httpx.Response,
    message: str,
    *,
    provider: str,
    vendor: str = "",
    key_env: KeyEnv = "",
    billing: str = "",
    refused: Collection[int] = REFUSED,
    retry_after: float | None = None,
) -> HermesError | None:
    """The usual error for ``response``'s status, ``message`` being what the vendor said; ``None`` for
    other statuses (the shared client's default mapping: 5xx unavailable, …).

    ``key_env`` is named in the bad-key message, ``billing`` (where to add credit) makes 402 an error
    that says so, ``refused`` lists the statuses that mean "fix the request". ``retry_after`` defaults
    to the ``Retry-After`` header.
    """
    status, who = response.status_code, vendor or provider
    kw: dict[str, Any] = {"provider": provider, "status": status}
    if status in (401, 403):
        check = " or ".join(key_names(key_env)) or "the key"
        return ProviderAuthError(f"{who} rejected the key ({message}); check {check}", **kw)
    if status == 402 and billing:
        return ProviderError(f"{who} account is out of credits ({message}); top up at {billing}", **kw)
    if status == 429:
        wait = retry_after if retry_after is not None else retry_after_s(response)
        return RateLimitedError(f"{who} rate limit: {message}", retry_after=wait, **kw)
    if status in refused:
        return InvalidInputError(f"{who} refused the request: {message}", **kw)
    return None
