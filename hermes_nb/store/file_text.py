"""Local files as searchable text: Markdown, text, HTML, notebooks (cells and outputs), PDF and Python.

``file_text(path)`` returns ``(title, text)``; a file that cannot be read as its type raises
``InvalidInputError`` naming the file (the indexer skips it and goes on).
"""

from __future__ import annotations

import ast
import html
import json
import re
from pathlib import Path
from typing import Any

from hermes_nb.errors import InvalidInputError

__all__ = ["INDEXED_TYPES", "file_text"]

#: The patterns ``hn.index`` reads by default.
INDEXED_TYPES = ("*.md", "*.txt", "*.html", "*.htm", "*.ipynb", "*.pdf", "*.py")

_TAG = re.compile(r"<[^>]+>")
_SCRIPT = re.compile(r"<(script|style)\b.*?</\1>", re.IGNORECASE | re.DOTALL)
_HTML_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


def _heading(text: str, fallback: str) -> str:
    for line in text.splitlines():
        if line.startswith("#"):
            return line.lstrip("#").strip() or fallback
    return fallback


def _html(raw: str, fallback: str) -> tuple[str, str]:
    match = _HTML_TITLE.search(raw)
    title = html.unescape(" ".join(_TAG.sub(" ", match.group(1)).split())) if match else ""
    text = html.unescape(re.sub(r"[ \t]+", " ", _TAG.sub(" ", _SCRIPT.sub(" ", raw))))
    return title or fallback, "\n".join(line.strip() for line in text.splitlines() if line.strip())


def _joined(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value or "")


def _notebook(raw: str, fallback: str) -> tuple[str, str]:
    """Every cell's source and the text of its outputs (streams, text/plain, text/markdown)."""
    try:
        cells = json.loads(raw).get("cells") or []
    except (ValueError, AttributeError) as exc:
        raise InvalidInputError(f"not a notebook (JSON): {exc}") from exc
    parts: list[str] = []
    title = ""
    for cell in cells:
        source = _joined(cell.get("source"))
        if cell.get("cell_type") == "markdown" and not title:
            title = _heading(source, "")
        parts.append(source)
        for output in cell.get("outputs") or []:
            if "text" in output:
                parts.append(_joined(output["text"]))
            data = output.get("data") or {}
            for mime in ("text/markdown", "text/plain"):
                if mime in data:
                    parts.append(_joined(data[mime]))
                    break
    return title or fallback, "\n\n".join(p.strip() for p in parts if p.strip())


def _pdf(path: Path, fallback: str) -> tuple[str, str]:
    try:
        from pypdf import PdfReader  # optional dependency: only PDFs need it
        from pypdf.errors import PdfReadError
    except ImportError as exc:
        raise InvalidInputError("indexing PDFs needs pypdf: pip install pypdf") from exc
    try:
        reader = PdfReader(path)
        text = "\n\n".join((page.extract_text() or "").strip() for page in reader.pages)
        title = str((reader.metadata.title if reader.metadata else "") or "").strip()
    except (PdfReadError, ValueError, KeyError, OSError) as exc:
        raise InvalidInputError(f"unreadable PDF: {exc}") from exc
    return title or fallback, text


def _python(raw: str, fallback: str) -> tuple[str, str]:
    try:
        doc = ast.get_docstring(ast.parse(raw)) or ""
    except (SyntaxError, ValueError):
        doc = ""
    return (doc.strip().splitlines()[0] if doc.strip() else fallback), raw


def file_text(path: Path, max_bytes: int = 5_000_000) -> tuple[str, str]:
    """``(title, text)`` of one local file by its type."""
    suffix = path.suffix.lower()
    if path.stat().st_size > max_bytes:
        raise InvalidInputError(f"{path} is larger than {max_bytes} bytes")
    if suffix == ".pdf":
        return _pdf(path, path.stem)
    raw = path.read_bytes().decode("utf-8", errors="replace")
    if suffix in (".html", ".htm"):
        return _html(raw, path.stem)
    if suffix == ".ipynb":
        return _notebook(raw, path.stem)
    if suffix == ".py":
        return _python(raw, path.name)
    return _heading(raw, path.stem), raw
