"""What the client sends and quotes besides bodies: the User-Agent, secrets given in headers or
parameters (registered for redaction), and redacted excerpts of error bodies."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import httpx

from hermes_nb.redaction import is_secret_name, redact, register_secret

__all__ = ["user_agent", "body_excerpt", "register_request_secrets"]


@functools.cache  # the installed version does not change while the process runs
def user_agent() -> str:
    """``hermes_nb/<version> (+https://github.com/hermes-nb/hermes_nb)``."""
    try:
        from importlib.metadata import version

        ver = version("hermes_nb")
    except Exception:  # not installed (source checkout): still name the project
        ver = "0+unknown"
    return f"hermes_nb/{ver} (+https://github.com/hermes-nb/hermes_nb)"


def body_excerpt(resp: httpx.Response, limit: int = 200) -> str:
    """The start of a response body on one line, redacted (for error messages)."""
    try:
        text = resp.content[: limit * 4].decode(resp.encoding or "utf-8", errors="replace")
    except (LookupError, httpx.HTTPError):
        return ""
    text = " ".join(text.split())
    return redact(text[:limit] + ("…" if len(text) > limit else ""))


def _pairs(values: Any) -> list[tuple[str, Any]]:
    if not values:
        return []
    if isinstance(values, (Mapping, httpx.Headers, httpx.QueryParams)):
        return [(str(k), v) for k, v in values.items()]
    if isinstance(values, (list, tuple)):
        return [(str(p[0]), p[1]) for p in values if isinstance(p, (list, tuple)) and len(p) == 2]
    return []


def register_request_secrets(*groups: Any) -> None:
    """Remember credential values a caller passes directly, so no error or log can show them."""
    for group in groups:
        for name, value in _pairs(group):
            if not isinstance(value, str) or len(value) < 6 or not is_secret_name(name):
                continue
            register_secret(value)
            scheme, _, token = value.partition(" ")
            if token and scheme.lower() in ("bearer", "key", "basic", "token"):
                register_secret(token.strip())
