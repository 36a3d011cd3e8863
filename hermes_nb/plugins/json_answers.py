"""Reading a vendor's JSON answer: the body as an object (or ``PARSE_ERROR``), error bodies, Retry-After."""

from __future__ import annotations

from typing import Any

import httpx

from hermes_nb.errors import ParseError

__all__ = ["json_object", "json_or_none", "retry_after_s"]


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
