"""Local files as searchable text: Markdown, text, HTML, notebooks (cells and outputs), PDF and Python.

``file_text(path)`` returns ``(title, text)``; a file that cannot be read as its type raises
``InvalidInputError`` naming the file (the indexer skips it and goes on). HTML and PDF go through
the web layer's converters (``hermes_nb.web.content``, reached through ``_services``), so a page in
the index reads as it does in ``hn.extract``.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

from hermes_nb._services import services
from hermes_nb.errors import HermesError, InvalidInputError

__all__ = ["INDEXED_TYPES", "file_text"]

#: The patterns ``hn.index`` reads by default.
INDEXED_TYPES = ("*.md", "*.txt", "*.html", "*.htm", "*.ipynb", "*.pdf", "*.py")


def _heading(text: str, fallback: str) -> str:
    for line in text.splitlines():
        if line.startswith("#"):
            return line.lstrip("#").strip() or fallback
    return fallback


def _converted(path: Path, content_type: str) -> tuple[str, str]:
    """HTML and PDF through the converters ``hn.extract`` uses (readable text, never markup)."""
    try:
        title, text = services.convert_document(path.read_bytes(), content_type, path.as_uri())
    except HermesError as exc:
        raise InvalidInputError(exc.message) from exc
    return title or path.stem, text


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
        return _converted(path, "application/pdf")
    if suffix in (".html", ".htm"):
        return _converted(path, "text/html")
    raw = path.read_bytes().decode("utf-8", errors="replace")
    if suffix == ".ipynb":
        return _notebook(raw, path.stem)
    if suffix == ".py":
        return _python(raw, path.name)
    return _heading(raw, path.stem), raw
