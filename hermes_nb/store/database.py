"""The embedded SQLite store under ``$HERMES_HOME``: cache, pages (FTS5), image provenance, batch jobs.

One file, ``$HERMES_HOME/hermes_nb.sqlite3``, in WAL mode. Each thread gets its own connection;
writes take SQLite's write lock up front (``BEGIN IMMEDIATE``: no read-then-upgrade deadlock) and a
busy database is waited for up to ``BUSY_DEADLINE_S``, never surfaced as "database is locked". A
damaged file, or one locked for longer, raises ``StoreError`` naming the file and the fix. Nothing
secret is written: secret-looking image parameters are dropped, every string is ``redaction.redact``-ed.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hermes_nb import config
from hermes_nb._state import on_reset
from hermes_nb.errors import InvalidInputError, StoreError
from hermes_nb.redaction import is_secret_name, mask_known, redact
from hermes_nb.store._transactions import BUSY_DEADLINE_S, BUSY_TIMEOUT_MS, immediate, probe_write, while_busy
from hermes_nb.store.file_text import INDEXED_TYPES
from hermes_nb.store.pages import PageHit, PageIndex

log = logging.getLogger(__name__)

__all__ = [
    "SCHEMA_VERSION",
    "BUSY_DEADLINE_S",
    "FILENAME",
    "KINDS",
    "StoreError",
    "Store",
    "get_store",
    "close_store",
    "record_image",
    "search_pages",
    "index_folder",
    "index",
]

SCHEMA_VERSION = 1
FILENAME = "hermes_nb.sqlite3"
#: What ``clear(kind)`` accepts.
KINDS = ("cache", "pages", "images", "videos", "batch")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cache (
    key TEXT PRIMARY KEY, kind TEXT NOT NULL, provider TEXT NOT NULL, value TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS pages (
    id INTEGER PRIMARY KEY, url TEXT NOT NULL UNIQUE, title TEXT NOT NULL DEFAULT '',
    content TEXT NOT NULL DEFAULT '', metadata TEXT NOT NULL DEFAULT '{}', provider TEXT NOT NULL DEFAULT '',
    source TEXT NOT NULL DEFAULT 'web', fetched REAL NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS pages_fts USING fts5(
    title, content, content='pages', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS pages_ai AFTER INSERT ON pages BEGIN
    INSERT INTO pages_fts(rowid, title, content) VALUES (new.id, new.title, new.content);
END;
CREATE TRIGGER IF NOT EXISTS pages_ad AFTER DELETE ON pages BEGIN
    INSERT INTO pages_fts(pages_fts, rowid, title, content) VALUES ('delete', old.id, old.title, old.content);
END;
CREATE TRIGGER IF NOT EXISTS pages_au AFTER UPDATE ON pages BEGIN
    INSERT INTO pages_fts(pages_fts, rowid, title, content) VALUES ('delete', old.id, old.title, old.content);
    INSERT INTO pages_fts(rowid, title, content) VALUES (new.id, new.title, new.content);
END;
CREATE TABLE IF NOT EXISTS images (
    id INTEGER PRIMARY KEY, created REAL NOT NULL, provider TEXT, model TEXT, prompt TEXT, seed INTEGER,
    aspect_ratio TEXT, n INTEGER, path TEXT, duration_s REAL, params TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS images_lookup ON images(provider, model, prompt);
CREATE TABLE IF NOT EXISTS videos (
    id INTEGER PRIMARY KEY, created REAL NOT NULL, provider TEXT, model TEXT, prompt TEXT, seed INTEGER,
    aspect_ratio TEXT, n INTEGER, path TEXT, duration_s REAL, params TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS videos_lookup ON videos(provider, model, prompt);
CREATE TABLE IF NOT EXISTS batch_items (
    job TEXT NOT NULL, idx INTEGER NOT NULL, item_key TEXT NOT NULL, status TEXT NOT NULL,
    result TEXT, error TEXT, updated REAL NOT NULL, PRIMARY KEY (job, idx)
);
"""

_IMAGE_COLUMNS = ("provider", "model", "prompt", "seed", "aspect_ratio", "n", "path", "duration_s")


class Store(PageIndex):
    """Access to one store file; safe to share between threads."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else config.get_hermes_home() / FILENAME
        self._local = threading.local()
        self._write_lock = threading.RLock()
        self._connections: list[sqlite3.Connection] = []
        self._schema_ready = False

    # -- connections ---------------------------------------------------------------------

    def _fail(self, exc: BaseException) -> StoreError:
        reason = getattr(exc, "sqlite_errorname", "") or type(exc).__name__
        return StoreError(
            f"the hermes_nb store {self.path} cannot be used ({reason}). If another process holds it, "
            "close that process; if the file is damaged, move it away or delete it "
            "(it only holds caches and history) and run again",
        )

    def _connect(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = self._open()
        except (sqlite3.Error, OSError) as exc:
            raise self._fail(exc) from exc
        self._local.conn = conn
        with self._write_lock:
            self._connections.append(conn)
        return conn

    def _open(self) -> sqlite3.Connection:
        # isolation_level=None: transactions are begun here (BEGIN IMMEDIATE), never implicitly.
        conn = sqlite3.connect(
            self.path, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False, isolation_level=None
        )
        try:
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            while_busy(lambda: conn.execute("PRAGMA journal_mode = WAL"))
            conn.execute("PRAGMA synchronous = NORMAL")
            if not self._schema_ready:
                with self._write_lock:
                    while_busy(lambda: self._migrate(conn))
        except BaseException:
            conn.close()
            raise
        return conn

    def _migrate(self, conn: sqlite3.Connection) -> None:
        conn.executescript(_SCHEMA)  # idempotent (IF NOT EXISTS), each statement its own transaction
        with immediate(conn):
            row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            if row is None:
                conn.execute(
                    "INSERT INTO meta(key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
                )
            elif int(row[0]) > SCHEMA_VERSION:
                raise StoreError(
                    f"the hermes_nb store {self.path} was written by a newer hermes_nb "
                    f"(schema {row[0]} > {SCHEMA_VERSION}); upgrade hermes_nb or move the file away"
                )
        self._schema_ready = True

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        conn = self._connect()
        try:
            yield conn
        except sqlite3.Error as exc:
            raise self._fail(exc) from exc

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        conn = self._connect()
        with self._write_lock:
            try:
                with immediate(conn):
                    yield conn
            except sqlite3.Error as exc:
                raise self._fail(exc) from exc

    def close(self) -> None:
        """Close every connection this store opened (any thread)."""
        with self._write_lock:
            for conn in self._connections:
                try:
                    conn.close()
                except sqlite3.Error:
                    pass
            self._connections.clear()
        self._local = threading.local()

    def check_writable(self) -> None:
        """Write a probe row and roll it back; ``StoreError`` says why that failed."""
        with self._write_lock, self._read() as conn:
            probe_write(conn)

    @property
    def schema_version(self) -> int:
        with self._read() as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        return int(row[0])

    # -- cache of searches and crawls ----------------------------------------------------

    def cache_get(self, key: str, *, max_age: float | None = None) -> tuple[Any, str, float] | None:
        """``(value, provider, created)`` for ``key``, or None when missing or older than ``max_age``."""
        with self._read() as conn:
            row = conn.execute("SELECT value, provider, created FROM cache WHERE key = ?", (key,)).fetchone()
        if row is None or (max_age is not None and time.time() - row["created"] > max_age):
            return None
        return json.loads(row["value"]), row["provider"], row["created"]

    def cache_put(self, key: str, kind: str, provider: str, value: Any, created: float | None = None) -> None:
        if mask_known(key) != key:  # the request itself holds a secret: it is never written down
            log.info("%s request not cached: it contains a secret or a plugin's redaction pattern", kind)
            return
        text = redact(json.dumps(value, ensure_ascii=False, default=str))
        with self._write() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO cache(key, kind, provider, value, created) VALUES (?, ?, ?, ?, ?)",
                (key, kind, provider, text, time.time() if created is None else created),
            )

    def cache_entries(self, kind: str | None = None, since: float = 0.0) -> list[dict[str, Any]]:
        """Cached answers, oldest first: ``{"key", "kind", "provider", "created", "value"}``."""
        with self._read() as conn:
            rows = conn.execute(
                "SELECT key, kind, provider, created, value FROM cache WHERE created >= ? AND kind = "
                "COALESCE(?, kind) ORDER BY created, key",
                (since, kind),
            ).fetchall()
        return [{**dict(row), "value": json.loads(row["value"])} for row in rows]

    # -- images --------------------------------------------------------------------------

    def record_image(self, provenance: dict[str, Any]) -> None:
        """Keep one generated image's provenance (never a secret: secret-named keys are dropped)."""
        self._record_media("images", provenance)

    def find_images(self, limit: int = 50, **criteria: Any) -> list[dict[str, Any]]:
        """Recorded images, newest first, filtered by equality on provenance columns."""
        return self._find_media("images", limit, criteria)

    def record_video(self, provenance: dict[str, Any]) -> None:
        """Keep one generated video's provenance (the same columns as images; never a secret)."""
        self._record_media("videos", provenance)

    def find_videos(self, limit: int = 50, **criteria: Any) -> list[dict[str, Any]]:
        """Recorded videos, newest first, filtered by equality on provenance columns."""
        return self._find_media("videos", limit, criteria)

    def _record_media(self, table: str, provenance: dict[str, Any]) -> None:
        clean = _scrub(provenance)
        columns = {name: clean.pop(name, None) for name in _IMAGE_COLUMNS}
        if provenance.get("path") is not None:
            # a file hermes_nb wrote in its cache, never a secret; redacting it would lose the file
            # (``xai_20261125_….mp4`` looks like an xAI key to the redactor)
            columns["path"] = str(provenance["path"])
        created = clean.pop("created", None)
        created_ts = created if isinstance(created, (int, float)) else time.time()
        if created is not None and not isinstance(created, (int, float)):
            clean["created"] = created
        with self._write() as conn:
            conn.execute(
                f"INSERT INTO {table}(created, provider, model, prompt, seed, aspect_ratio, n, path, "
                "duration_s, params) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (created_ts, *[columns[name] for name in _IMAGE_COLUMNS], json.dumps(clean, default=str)),
            )

    def _find_media(self, table: str, limit: int, criteria: dict[str, Any]) -> list[dict[str, Any]]:
        unknown = set(criteria) - set(_IMAGE_COLUMNS)
        if unknown:
            raise InvalidInputError(
                f"find_{table}: unknown field(s) {sorted(unknown)}; use {list(_IMAGE_COLUMNS)}"
            )
        where = " AND ".join(f"{name} IS ?" for name in criteria) or "1"
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT * FROM {table} WHERE {where} ORDER BY created DESC, id DESC LIMIT ?",
                (*criteria.values(), int(limit)),
            ).fetchall()
        out = []
        for row in rows:
            item = dict(row)
            item["params"] = json.loads(item["params"] or "{}")
            out.append(item)
        return out

    # -- batch jobs ----------------------------------------------------------------------

    def batch_done(self, job: str) -> dict[int, dict[str, Any]]:
        """Finished items of ``job`` by index: ``{"item_key", "status", "result", "error"}``."""
        with self._read() as conn:
            rows = conn.execute(
                "SELECT idx, item_key, status, result, error FROM batch_items WHERE job = ?", (job,)
            ).fetchall()
        return {
            r["idx"]: {
                "item_key": r["item_key"],
                "status": r["status"],
                "result": json.loads(r["result"]) if r["result"] is not None else None,
                "error": json.loads(r["error"]) if r["error"] is not None else None,
            }
            for r in rows
        }

    def batch_put(
        self, job: str, idx: int, item_key: str, status: str, result: Any = None, error: Any = None
    ) -> None:
        result_text = None if result is None else redact(json.dumps(result, ensure_ascii=False, default=str))
        error_text = None if error is None else redact(json.dumps(error, ensure_ascii=False, default=str))
        with self._write() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO batch_items(job, idx, item_key, status, result, error, updated) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (job, idx, item_key, status, result_text, error_text, time.time()),
            )

    def batch_jobs(self) -> dict[str, dict[str, int]]:
        """``{job: {status: count}}`` for every persisted batch job."""
        with self._read() as conn:
            rows = conn.execute(
                "SELECT job, status, COUNT(*) AS n FROM batch_items GROUP BY job, status"
            ).fetchall()
        jobs: dict[str, dict[str, int]] = {}
        for r in rows:
            jobs.setdefault(r["job"], {})[r["status"]] = r["n"]
        return jobs

    # -- housekeeping --------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        """Row counts per table, the file path and its size in bytes."""
        with self._read() as conn:
            counts = {
                "searches": conn.execute("SELECT COUNT(*) FROM cache WHERE kind = 'search'").fetchone()[0],
                "cache_entries": conn.execute("SELECT COUNT(*) FROM cache").fetchone()[0],
                "pages": conn.execute("SELECT COUNT(*) FROM pages").fetchone()[0],
                "images": conn.execute("SELECT COUNT(*) FROM images").fetchone()[0],
                "videos": conn.execute("SELECT COUNT(*) FROM videos").fetchone()[0],
                "batch_items": conn.execute("SELECT COUNT(*) FROM batch_items").fetchone()[0],
            }
        size = sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file())
        return {"path": str(self.path), "bytes": size, **counts}

    def clear(self, kind: str | None = None) -> None:
        """Forget ``kind`` (one of ``KINDS``) or everything."""
        if kind is not None and kind not in KINDS:
            raise InvalidInputError(
                f"clear(kind={kind!r}): use one of {', '.join(KINDS)} or None for everything"
            )
        tables = {"cache": "cache", "pages": "pages", "images": "images", "videos": "videos",
                  "batch": "batch_items"}  # fmt: skip
        with self._write() as conn:
            for name in [kind] if kind else list(KINDS):
                conn.execute(f"DELETE FROM {tables[name]}")


def _scrub(provenance: dict[str, Any]) -> dict[str, Any]:
    def clean(value: Any) -> Any:
        if isinstance(value, str):
            return redact(value)
        if isinstance(value, dict):
            return {str(k): clean(v) for k, v in value.items() if not is_secret_name(str(k))}
        if isinstance(value, (list, tuple)):
            return [clean(v) for v in value]
        if isinstance(value, (int, float, bool)) or value is None:
            return value
        return redact(str(value))

    result = clean(dict(provenance))
    assert isinstance(result, dict)
    return result


_stores: dict[Path, Store] = {}
_stores_lock = threading.Lock()


def get_store() -> Store:
    """The store of the current ``$HERMES_HOME`` (one per file per process)."""
    path = config.get_hermes_home() / FILENAME
    with _stores_lock:
        store = _stores.get(path)
        if store is None:
            store = _stores[path] = Store(path)
        return store


def close_store(home: Path) -> None:
    """Close and forget the store of ``home`` (a temporary ``HERMES_HOME`` about to be deleted)."""
    with _stores_lock:
        store = _stores.pop(Path(home) / FILENAME, None)
    if store is not None:
        store.close()


def record_image(provenance: dict[str, Any]) -> None:
    """Keep a generated image's provenance in the store (called by ``hermes_nb.images``)."""
    get_store().record_image(provenance)


def search_pages(query: str, limit: int = 10) -> list[PageHit]:
    """FTS5 search over extracted pages and indexed folders."""
    return get_store().search_pages(query, limit)


def index_folder(path: str | Path, patterns: Sequence[str] = ("*.md", "*.txt", "*.html")) -> int:
    """Add local files to the page index so the ``local`` provider finds them offline."""
    return get_store().index_folder(path, patterns)


def index(path: str | Path, glob: str | Sequence[str] = INDEXED_TYPES) -> dict[str, int]:
    """``hn.index(folder)``: Markdown, text, HTML, notebooks, PDFs and Python files for ``local`` search.

    Incremental: unchanged files are not read again; removed files leave the index. Returns the
    counts ``indexed``, ``unchanged``, ``skipped`` and ``removed``.
    """
    return get_store().index_files(path, [glob] if isinstance(glob, str) else list(glob))


@on_reset
def _close_stores() -> None:
    with _stores_lock:
        for store in _stores.values():
            store.close()
        _stores.clear()
