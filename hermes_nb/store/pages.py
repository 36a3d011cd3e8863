"""Pages in the store: full text of extracted pages and indexed files, searched with FTS5 (BM25)."""

from __future__ import annotations

import html
import json
import re
import sqlite3
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hermes_nb.errors import InvalidInputError
from hermes_nb.redaction import redact

__all__ = ["PageHit", "PageIndex"]

_WORD = re.compile(r"\w+", re.UNICODE)
_TAG = re.compile(r"<[^>]+>")
_SCRIPT = re.compile(r"<(script|style)\b.*?</\1>", re.IGNORECASE | re.DOTALL)
_HTML_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class PageHit:
    """One page found by ``search_pages``; ``to_dict()`` is a Hermes search hit."""

    title: str
    url: str
    description: str
    position: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title, "url": self.url, "description": self.description, "position": self.position,
        }


class PageIndex:
    """The page methods of ``Store`` (it provides the connections)."""

    def _read(self) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    def _write(self) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    def put_page(
        self,
        url: str,
        title: str,
        content: str,
        *,
        metadata: dict[str, Any] | None = None,
        provider: str = "",
        source: str = "web",
    ) -> None:
        """Insert or replace the full text of ``url`` (indexed for ``search_pages``)."""
        meta = redact(json.dumps(metadata or {}, ensure_ascii=False, default=str))
        with self._write() as conn:
            conn.execute(
                "INSERT INTO pages(url, title, content, metadata, provider, source, fetched) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(url) DO UPDATE SET title = excluded.title, "
                "content = excluded.content, metadata = excluded.metadata, provider = excluded.provider, "
                "source = excluded.source, fetched = excluded.fetched",
                (url, title, content, meta, provider, source, time.time()),
            )

    def get_page(self, url: str) -> dict[str, Any] | None:
        """The stored page ``{"url","title","content","metadata","provider","source","fetched"}``."""
        with self._read() as conn:
            row = conn.execute("SELECT * FROM pages WHERE url = ?", (url,)).fetchone()
        if row is None:
            return None
        page = dict(row)
        page.pop("id", None)
        page["metadata"] = json.loads(page["metadata"] or "{}")
        return page

    def has_pages(self) -> bool:
        with self._read() as conn:
            return conn.execute("SELECT 1 FROM pages LIMIT 1").fetchone() is not None

    def search_pages(self, query: str, limit: int = 10) -> list[PageHit]:
        """Full-text search (BM25) over stored pages: every word first, any word when that finds nothing."""
        words = _WORD.findall(query or "")
        if not words:
            return []
        quoted = ['"' + w.replace('"', '""') + '"' for w in words]
        sql = (
            "SELECT p.url, p.title, snippet(pages_fts, 1, '', '', ' … ', 24) AS snip "
            "FROM pages_fts JOIN pages p ON p.id = pages_fts.rowid WHERE pages_fts MATCH ? "
            "ORDER BY bm25(pages_fts, 5.0, 1.0), p.url LIMIT ?"
        )
        with self._read() as conn:
            rows = conn.execute(sql, (" AND ".join(quoted), int(limit))).fetchall()
            if not rows and len(quoted) > 1:
                rows = conn.execute(sql, (" OR ".join(quoted), int(limit))).fetchall()
        return [
            PageHit(
                title=r["title"] or r["url"],
                url=r["url"],
                description=" ".join(r["snip"].split()),
                position=i,
            )
            for i, r in enumerate(rows, start=1)
        ]

    def index_folder(
        self,
        path: str | Path,
        patterns: Sequence[str] = ("*.md", "*.txt", "*.html"),
        *,
        max_bytes: int = 5_000_000,
    ) -> int:
        """Add the files under ``path`` matching ``patterns`` to the page index; returns how many."""
        root = Path(path).expanduser()
        if not root.is_dir():
            raise InvalidInputError(f"index_folder: {root} is not a directory")
        count = 0
        seen: set[Path] = set()
        for pattern in patterns:
            for file in sorted(root.rglob(pattern)):
                real = file.resolve()
                if real in seen or not file.is_file() or file.stat().st_size > max_bytes:
                    continue
                seen.add(real)
                raw = file.read_bytes().decode("utf-8", errors="replace")
                title, text = _file_text(file, raw)
                self.put_page(
                    real.as_uri(),
                    title,
                    text,
                    metadata={"path": str(real)},
                    provider="local",
                    source="folder",
                )
                count += 1
        return count


def _file_text(file: Path, raw: str) -> tuple[str, str]:
    """Title and plain text of an indexed file (HTML tags stripped, Markdown kept as is)."""
    if file.suffix.lower() in (".html", ".htm"):
        match = _HTML_TITLE.search(raw)
        title = html.unescape(" ".join(_TAG.sub(" ", match.group(1)).split())) if match else ""
        text = _TAG.sub(" ", _SCRIPT.sub(" ", raw))
        text = html.unescape(re.sub(r"[ \t]+", " ", text))
        text = "\n".join(line.strip() for line in text.splitlines() if line.strip())
        return title or file.stem, text
    for line in raw.splitlines():
        if line.startswith("#"):
            return line.lstrip("#").strip() or file.stem, raw
    return file.stem, raw
