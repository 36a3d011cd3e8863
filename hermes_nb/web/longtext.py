"""Hermes's truncate-and-store for long extracted pages: a bounded window inline, the full text on disk."""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

from hermes_nb import config
from hermes_nb.web.results import Page

__all__ = [
    "DEFAULT_CHAR_LIMIT",
    "MIN_CHAR_LIMIT",
    "MAX_CHAR_LIMIT",
    "MAX_STORED_CHARS",
    "OMITTED_MARKER",
    "char_budget",
    "cut_head",
    "strip_inline_images",
    "full_text_path",
    "truncate",
    "apply",
]

DEFAULT_CHAR_LIMIT = 15000
MIN_CHAR_LIMIT = 2000
MAX_CHAR_LIMIT = 500000
MAX_STORED_CHARS = 2_000_000
OMITTED_MARKER = "[... middle omitted — see footer ...]"

# Markdown images and HTML <img> whose source is an inline base64 data URI.
_MD_DATA_IMAGE = re.compile(r"!\[([^\]]*)\]\(\s*data:image/[^)]*\)")
_HTML_DATA_IMAGE = re.compile(r"<img\b[^>]*\bsrc\s*=\s*[\"']data:image/[^\"']*[\"'][^>]*>", re.IGNORECASE)
_ALT = re.compile(r"\balt\s*=\s*[\"']([^\"']*)[\"']", re.IGNORECASE)
_SLUG = re.compile(r"[^a-z0-9]+")


def char_budget(max_chars: int | None = None) -> int:
    """``max_chars`` or ``web.extract_char_limit``, clamped to [2000, 500000]."""
    value = max_chars if max_chars is not None else config.get("web.extract_char_limit", DEFAULT_CHAR_LIMIT)
    try:
        budget = int(value)
    except (TypeError, ValueError):
        budget = DEFAULT_CHAR_LIMIT
    return max(MIN_CHAR_LIMIT, min(MAX_CHAR_LIMIT, budget))


def _image_label(alt: str) -> str:
    alt = alt.strip()
    return f"[IMAGE: {alt}]" if alt else "[IMAGE]"


def strip_inline_images(text: str) -> str:
    """Replace base64 inline images with ``[IMAGE: alt]`` (they are huge and useless as text)."""
    text = _MD_DATA_IMAGE.sub(lambda m: _image_label(m.group(1)), text)

    def html(match: re.Match[str]) -> str:
        alt = _ALT.search(match.group(0))
        return _image_label(alt.group(1) if alt else "")

    return _HTML_DATA_IMAGE.sub(html, text)


def full_text_path(url: str) -> Path:
    """``$HERMES_HOME/cache/web/<host-slug>-<sha256(url)[:10]>.md``."""
    host = urlsplit(url).hostname or "page"
    slug = _SLUG.sub("-", host.lower()).strip("-")[:60] or "page"
    digest = hashlib.sha256(url.encode("utf-8")).hexdigest()[:10]
    return config.get_hermes_home() / "cache" / "web" / f"{slug}-{digest}.md"


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".md")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def cut_head(text: str, size: int) -> str:
    """At most ``size`` leading chars, ending at a newline when one is in the second half."""
    head = text[:size]
    newline = head.rfind("\n")
    return head[: newline + 1] if newline >= size // 2 else head


def _cut_tail(text: str, size: int) -> str:
    """At most ``size`` trailing chars, starting after a newline when one is in the first half."""
    tail = text[len(text) - size :] if size else ""
    newline = tail.find("\n")
    return tail[newline + 1 :] if 0 <= newline <= size // 2 else tail


def truncate(text: str, budget: int, path: Path | None) -> str:
    """Head 75 % / tail 25 % of ``budget`` (cut at newlines) plus the ``[TRUNCATED]`` footer."""
    head = cut_head(text, budget * 3 // 4)
    tail = _cut_tail(text, budget - budget * 3 // 4)
    kept = len(head) + len(tail)
    footer = [
        "",
        "---",
        f"[TRUNCATED] Showing {kept:,} of {len(text):,} characters "
        f"({len(text) - kept:,} omitted from the middle).",
    ]
    if path is not None:
        start_line = head.count("\n") + 1
        footer.append(f"Full text saved to: {path}")
        footer.append(f'Read more with: read_file path="{path}" offset={start_line} limit=200')
    return f"{head.rstrip()}\n\n{OMITTED_MARKER}\n\n{tail.lstrip()}\n" + "\n".join(footer)


def apply(page: Page, max_chars: int | None = None) -> Page:
    """Fill ``content``, ``truncated``, ``total_chars`` and ``full_text_path`` of ``page`` in place."""
    if page.error is not None:
        return page
    text = strip_inline_images(page.raw_content or page.content or "")
    page.total_chars = len(text)
    budget = char_budget(max_chars)
    if len(text) <= budget:
        page.content = text
        page.truncated = False
        return page
    target = full_text_path(page.url)
    path: Path | None = target
    try:
        _write_atomic(target, text[:MAX_STORED_CHARS])
    except OSError as exc:
        page.metadata["full_text_error"] = f"could not save the full text: {exc.strerror or exc}"
        path = None
    page.content = truncate(text, budget, path)
    page.truncated = True
    page.full_text_path = str(path) if path is not None else None
    return page
