"""SQLite write transactions that wait out other writers: ``BEGIN IMMEDIATE`` and bounded busy retries."""

from __future__ import annotations

import random
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

__all__ = ["BUSY_DEADLINE_S", "BUSY_TIMEOUT_MS", "immediate", "probe_write", "while_busy"]

#: How long a write waits, in all, for another connection's lock before it fails with ``StoreError``.
BUSY_DEADLINE_S = 120.0
#: SQLite's own wait per attempt (``busy_timeout``), in milliseconds; attempts repeat to the deadline.
BUSY_TIMEOUT_MS = 5000
_T = TypeVar("_T")


def _is_busy(exc: BaseException) -> bool:
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)  # Python 3.11+
    if code is not None:
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    return "locked" in str(exc) or "busy" in str(exc)  # Python 3.10 gives only the message


def while_busy(action: Callable[[], _T]) -> _T:
    """Run ``action``, repeating it while SQLite answers BUSY/LOCKED, up to ``BUSY_DEADLINE_S``."""
    deadline = time.monotonic() + BUSY_DEADLINE_S
    pause = 0.005
    while True:
        try:
            return action()
        except sqlite3.OperationalError as exc:
            if not _is_busy(exc) or time.monotonic() >= deadline:
                raise
        time.sleep(random.uniform(0, pause))  # jitter: waiting writers do not retry in lockstep
        pause = min(pause * 2, 0.25)


@contextmanager
def immediate(conn: sqlite3.Connection) -> Iterator[None]:
    """One write transaction holding the write lock from its start; rolled back on any error."""
    while_busy(lambda: conn.execute("BEGIN IMMEDIATE"))
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    while_busy(lambda: conn.execute("COMMIT"))


def probe_write(conn: sqlite3.Connection) -> None:
    """Take the write lock and write a row, then roll back: proves the file is writable, changes nothing."""
    while_busy(lambda: conn.execute("BEGIN IMMEDIATE"))
    try:
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('write_probe', '1')")
    finally:
        conn.execute("ROLLBACK")
