"""The store under contention: 32 threads and 2 processes write at once, both cores busy; nothing is lost."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from hermes_nb.store import database
from hermes_nb.store._transactions import immediate, while_busy

WRITES = 40  # per writer and per kind (cache entry, page, batch item)
THREADS = 32
PROCESSES = 2
PROCESS_THREADS = 4

_CHILD = """
import sys, threading
from hermes_nb.store.database import Store
db = Store(sys.argv[1])
name, threads, writes = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def writer(t):
    for i in range(writes):
        db.cache_put(f"{name}-{t}-{i}", "search", "p", {"i": i})
        db.put_page(f"https://{name}-{t}.test/{i}", f"title {i}", f"contended words {name} {t} {i}")
        db.batch_put(name, t * 1000 + i, "key", "done", result={"i": i})
workers = [threading.Thread(target=writer, args=(t,)) for t in range(threads)]
for w in workers: w.start()
for w in workers: w.join()
db.close()
"""


def _write_from_threads(db: database.Store, errors: list[BaseException]) -> None:
    def writer(t: int) -> None:
        try:
            for i in range(WRITES):
                db.cache_put(f"main-{t}-{i}", "search", "p", {"i": i})
                db.put_page(f"https://main-{t}.test/{i}", f"title {i}", f"contended words main {t} {i}")
                db.batch_put("main", t * 1000 + i, "key", "done", result={"i": i})
        except BaseException as exc:  # collected so the main thread can report it
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(t,)) for t in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(thread.is_alive() for thread in threads), "a writer thread hung"


@pytest.mark.usefixtures("busy_cores")
def test_threads_and_processes_write_at_once_on_busy_cores(tmp_path: Path) -> None:
    path = tmp_path / "contended.sqlite3"
    db = database.Store(path)
    db.stats()  # the schema exists before the children race for it too
    errors: list[BaseException] = []
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(path), f"proc{n}", str(PROCESS_THREADS), str(WRITES)],
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(PROCESSES)
    ]
    _write_from_threads(db, errors)
    outcomes = [(child.wait(timeout=300), child.stderr.read() if child.stderr else "") for child in children]
    assert errors == []
    assert outcomes == [(0, "")] * PROCESSES
    writers = THREADS + PROCESSES * PROCESS_THREADS
    stats = db.stats()
    assert (stats["cache_entries"], stats["pages"], stats["batch_items"]) == (writers * WRITES,) * 3
    assert len(db.search_pages("contended", limit=10_000)) == writers * WRITES
    db.close()


def test_a_write_waits_for_another_process_holding_the_lock(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "locked.sqlite3"
    db = database.Store(path)
    db.stats()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer holds the lock
    done = threading.Event()
    failure: list[BaseException] = []

    def write() -> None:
        try:
            db.cache_put("k", "search", "p", {"v": 1})
        except BaseException as exc:  # reported below
            failure.append(exc)
        done.set()

    thread = threading.Thread(target=write)
    thread.start()
    assert not done.wait(0.3)  # still waiting, not failed
    holder.execute("COMMIT")
    holder.close()
    thread.join(timeout=60)
    assert failure == [] and db.cache_get("k") is not None
    db.close()


def test_busy_past_the_deadline_is_a_store_error_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlite3

    from hermes_nb.errors import StoreError
    from hermes_nb.store import _transactions

    path = tmp_path / "held.sqlite3"
    db = database.Store(path)
    db.stats()
    monkeypatch.setattr(_transactions, "BUSY_DEADLINE_S", 0.0)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    conn = db._connect()
    conn.execute("PRAGMA busy_timeout = 1")
    try:
        with pytest.raises(StoreError, match="held.sqlite3"):
            db.cache_put("k", "search", "p", 1)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        db.close()


def test_a_failed_write_rolls_back(tmp_path: Path) -> None:
    db = database.Store(tmp_path / "s.sqlite3")
    conn = db._connect()
    with pytest.raises(RuntimeError), immediate(conn):
        conn.execute("INSERT INTO meta(key, value) VALUES ('x', 'y')")
        raise RuntimeError("boom")
    assert not conn.in_transaction
    assert while_busy(lambda: conn.execute("SELECT COUNT(*) FROM meta WHERE key = 'x'").fetchone()[0]) == 0
    db.close()
