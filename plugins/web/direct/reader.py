"""Jina Reader fallback for HTML pages whose local extraction is near-empty or JavaScript-only.

Opt-in (``web.jina_fallback``): the page's address goes to a third party, so it is only sent when
the final URL is public. A private URL the guard lets through (``security.allow_private_urls`` on for
intranets, or its origin listed in ``security.private_origins`` as the emulator does) may go to a Jina
endpoint that is itself private — nothing leaves the local network then.
"""

from __future__ import annotations

import re

from hermes_nb.provider_api import (
    ContentBlockedError,
    ContentFetchError,
    Document,
    HermesError,
    check_url,
    config,
    get_client,
    html_signals,
)

DEFAULT_BASE_URL = "https://r.jina.ai"
KEY_ENV = "JINA_API_KEY"
SHORT_TEXT = 200  # characters of extracted text below which a page counts as near-empty
JS_SCRIPTS = 3  # more script tags than this, with little visible text, marks a JavaScript shell
TIMEOUT_S = 8.0
_TITLE_LINE = re.compile(r"^Title:\s*(.+)$", re.M)
_HEADING = re.compile(r"^\s{0,3}#{1,2}\s+(.+?)\s*#*\s*$", re.M)


def trigger(html: str, extracted: str) -> str | None:
    """Why the local extraction needs help (``short-html`` / ``js-heavy-html``), or None."""
    if len(extracted.strip()) >= SHORT_TEXT:
        return None
    scripts, visible = html_signals(html)
    return "js-heavy-html" if scripts > JS_SCRIPTS and visible < SHORT_TEXT else "short-html"


def base_url() -> str:
    return str(config.get("web.jina.base_url") or DEFAULT_BASE_URL).rstrip("/")


def _public(url: str) -> bool:
    try:
        check_url(url, allow_private=False)
    except HermesError:  # blocked, unresolvable or malformed: never forwarded
        return False
    return True


def _private(url: str) -> bool:
    """True only when the guard positively finds a private address (unresolvable is not private)."""
    try:
        check_url(url, allow_private=False)
    except ContentBlockedError:
        return True
    except HermesError:
        return False
    return False


def may_forward(final_url: str) -> bool:
    """True when ``final_url`` may be sent to the configured Jina endpoint."""
    if _public(final_url):
        return True
    return _private(base_url()) and _allowed(final_url)


def _allowed(url: str) -> bool:
    """True when the guard, with the configured exemptions, lets ``url`` be fetched."""
    try:
        check_url(url)
    except HermesError:
        return False
    return True


def read(final_url: str) -> Document:
    """Fetch ``final_url`` through Jina Reader; raises a ``HermesError`` on any failure or empty body."""
    headers = {"Accept": "text/plain,text/markdown;q=0.9,*/*;q=0.1", "X-No-Cache": "true"}
    key = config.resolve_key(KEY_ENV)
    if key:
        headers["Authorization"] = f"Bearer {key}"
    resp = get_client("jina").request(
        "GET", f"{base_url()}/{final_url}", headers=headers, timeout=TIMEOUT_S, retry=False
    )
    text = resp.text
    head, marker, body = text.partition("Markdown Content:")
    body = (body if marker else text).strip()
    if not body:
        raise ContentFetchError(f"Jina Reader returned an empty page for {final_url}", provider="jina")
    found = _TITLE_LINE.search(head) if marker else None
    heading = _HEADING.search(body)
    title = found.group(1).strip() if found else (heading.group(1) if heading else "")
    return Document(
        title=title,
        content=body,
        metadata={"content_type": "text/markdown; source=jina"},
    )
