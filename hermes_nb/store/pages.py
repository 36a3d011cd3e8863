"""Pages in the store: full text of extracted pages and indexed files, searched with FTS5 (BM25).

Folders are indexed incrementally: a file whose size and modification time are unchanged is not
read again, one whose content hash is unchanged is not re-indexed, and a file that is gone
leaves the index. Hits carry a ``highlight``: the snippet with matched words in ``**bold**``.
"""

from __future__ import annotations

import hashlib
import json
import logging
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
from hermes_nb.store.file_text import INDEXED_TYPES, file_text

__all__ = ["PageHit", "PageIndex"]

log = logging.getLogger(__name__)

_WORD = re.compile(r"\w+", re.UNICODE)
_FILES = (
    "CREATE TABLE IF NOT EXISTS indexed_files "
    "(path TEXT PRIMARY KEY, mtime REAL NOT NULL, size INTEGER NOT NULL, sha256 TEXT NOT NULL)"
)


@dataclass(frozen=True)
class PageHit:
    """One page found by ``search_pages``; ``to_dict()`` is a Hermes search hit."""

    title: str
    url: str
    description: str
    position: int
    #: the snippet with the matched words in ``**bold**``
    highlight: str = ""

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
            "SELECT p.url, p.title, snippet(pages_fts, 1, '\x02', '\x03', ' … ', 24) AS snip "
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
                description=" ".join(r["snip"].replace("\x02", "").replace("\x03", "").split()),
                position=i,
                highlight=" ".join(r["snip"].replace("\x02", "**").replace("\x03", "**").split()),
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
        """Add the files under ``path`` matching ``patterns`` to the page index; returns how many changed."""
        return self.index_files(path, patterns, max_bytes=max_bytes)["indexed"]

    def index_files(
        self, path: str | Path, patterns: Sequence[str] = INDEXED_TYPES, *, max_bytes: int = 5_000_000
    ) -> dict[str, int]:
        """Index the files under ``path`` incrementally; returns how many were (re)indexed, unchanged,
        skipped (unreadable or too large) and removed (gone from disk)."""
        root = Path(path).expanduser()
        if not root.is_dir():
            raise InvalidInputError(f"index: {root} is not a directory")
        base = str(root.resolve()).rstrip("/") + "/"
        with self._write() as conn:
            conn.execute(_FILES)
            rows = conn.execute(
                "SELECT path, mtime, size, sha256 FROM indexed_files WHERE substr(path, 1, ?) = ?",
                (len(base), base),
            ).fetchall()
        known = {r["path"]: (r["mtime"], r["size"], r["sha256"]) for r in rows}
        counts = {"indexed": 0, "unchanged": 0, "skipped": 0, "removed": 0}
        seen: set[str] = set()
        for pattern in patterns:
            for file in sorted(root.rglob(pattern)):
                real = file.resolve()
                if str(real) in seen or not real.is_file():
                    continue
                seen.add(str(real))
                counts[self._index_file(real, known.get(str(real)), max_bytes)] += 1
        for gone in sorted(set(known) - seen):
            if not Path(gone).exists():
                with self._write() as conn:
                    conn.execute("DELETE FROM pages WHERE url = ?", (Path(gone).as_uri(),))
                    conn.execute("DELETE FROM indexed_files WHERE path = ?", (gone,))
                counts["removed"] += 1
        return counts

    def _index_file(self, real: Path, known: tuple[float, int, str] | None, max_bytes: int) -> str:
        stat = real.stat()
        if known is not None and known[:2] == (stat.st_mtime, stat.st_size):
            return "unchanged"
        if stat.st_size > max_bytes:
            return "skipped"
        digest = hashlib.sha256(real.read_bytes()).hexdigest()
        if known is None or known[2] != digest:
            try:
                title, text = file_text(real, max_bytes)
            except (InvalidInputError, OSError) as exc:
                log.warning("not indexed: %s (%s)", real, exc)
                return "skipped"
            self.put_page(
                real.as_uri(), title, text, metadata={"path": str(real)}, provider="local", source="folder"
            )
        with self._write() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO indexed_files(path, mtime, size, sha256) VALUES (?, ?, ?, ?)",
                (str(real), stat.st_mtime, stat.st_size, digest),
            )
        return "indexed" if known is None or known[2] != digest else "unchanged"
