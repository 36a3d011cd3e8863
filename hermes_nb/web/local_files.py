"""Local files in ``hn.extract``: ``Path`` objects are read through the same converters as fetched pages.

Only ``pathlib.Path`` objects are files (the magic turns ``./report.pdf`` into one); strings stay
URLs. So the model-facing ``web_extract`` tool, which passes strings, stays http(s) only and can
never read the disk.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hermes_nb.errors import HermesError, InvalidInputError
from hermes_nb.net._sniff import detect_charset, detect_content_type
from hermes_nb.web import content, longtext
from hermes_nb.web.results import ExtractResult, Page

__all__ = ["PROVIDER", "MAX_FILE_BYTES", "has_paths", "extract_mixed"]

PROVIDER = "local-file"
#: Larger files are refused: a notebook cell is not the place to read a 100 MB dump.
MAX_FILE_BYTES = 50 * 1024 * 1024


def has_paths(items: object) -> bool:
    """True when ``items`` is a ``Path`` or a sequence holding one."""
    if isinstance(items, os.PathLike):
        return True
    return isinstance(items, (list, tuple)) and any(isinstance(i, os.PathLike) for i in items)


def read(path: Path, max_chars: int | None = None, fmt: str = "markdown", *, images: bool = False) -> Page:
    """One local file as a ``Page`` (an unreadable or unsupported file is a per-file error).

    ``fmt``: ``markdown``, ``text`` or ``html`` (``hermes_nb.web.extraction.formats``); ``images``: an
    HTML file's figures in the Markdown (``hermes_nb.web.extraction.images``).
    """
    full = Path(path).expanduser().resolve()
    url = full.as_uri()
    try:
        if not full.is_file():
            return Page(url=url, error=f"no such file: {path}", error_code=InvalidInputError.code)
        size = full.stat().st_size
        if size > MAX_FILE_BYTES:
            return Page(url=url, error=f"{path} is {size:,} bytes; the limit is {MAX_FILE_BYTES:,}",
                        error_code=InvalidInputError.code)  # fmt: skip
        data = full.read_bytes()
        kind = detect_content_type(url, "", data)
        charset = detect_charset("", data, kind)
        doc = content.convert(data, kind, url=url, charset=charset, format=fmt, images=images)
    except HermesError as exc:
        return Page(url=url, error=exc.message, error_code=exc.code)
    except OSError as exc:
        message = f"cannot read {path}: {exc.strerror or exc}"
        return Page(url=url, error=message, error_code=InvalidInputError.code)
    metadata = {**doc.metadata, "source": "local file", "path": str(full)}
    page = Page(url=url, title=doc.title or full.name, content=doc.content, metadata=metadata)
    return longtext.apply(page, max_chars)


def extract_mixed(
    items: Sequence[Any] | os.PathLike[str],
    remote: Callable[[list[str]], ExtractResult],
    max_chars: int | None = None,
    fmt: str = "markdown",
    *,
    images: bool = False,
) -> ExtractResult:
    """Files read here (in ``fmt``, with their figures when ``images``), everything else extracted by
    ``remote``; pages in input order."""
    start = time.perf_counter()
    listed = [items] if isinstance(items, os.PathLike) else list(items)
    urls = [item for item in listed if not isinstance(item, os.PathLike)]
    web = remote(urls) if urls else None
    answers = iter(web.pages if web is not None else [])
    pages = [
        read(Path(item), max_chars, fmt, images=images) if isinstance(item, os.PathLike) else next(answers)
        for item in listed
    ]
    provider = PROVIDER if web is None else f"{web.provider}+{PROVIDER}"
    return ExtractResult(
        pages=pages,
        provider=provider,
        attempts=list(web.attempts) if web is not None else [],
        duration_s=time.perf_counter() - start,
    )
