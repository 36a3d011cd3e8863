"""The batch runner: many items with bounded concurrency, in input order, resumable through the store.

``run_batch`` works with any ``Executor`` (only ``submit`` is used, so a Dask
``Client.get_executor()`` runs items on a cluster); without one, ``concurrency`` pooled threads
(``plugins.call_threads``) take the items in turn. At most ``concurrency`` items are in flight.
A failing item becomes a ``BatchError`` row instead of stopping the batch. With ``job="name"``
every finished item is written to the store as it completes; running the same job again skips
the items already done (failed items are tried again), so an interrupted batch resumes.
"""

from __future__ import annotations

import contextvars
import functools
import hashlib
import json
import queue
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, Future
from dataclasses import asdict, dataclass, is_dataclass
from typing import Any

from hermes_nb._async import call_maybe_async
from hermes_nb.batch.limits import RateLimit
from hermes_nb.errors import HermesError, InvalidInputError
from hermes_nb.plugins.call_threads import run_in_thread
from hermes_nb.progress import progress as _progress
from hermes_nb.redaction import redact
from hermes_nb.store import get_store

__all__ = ["BatchError", "run_batch"]

#: How often the waiting thread updates the progress bar while its own threads run a batch.
_PROGRESS_EVERY_S = 0.1
_DONE = "done"
_FAILED = "error"


@dataclass
class BatchError:
    """The row of an item that failed: its position, the item, and the error code and message."""

    index: int
    item: Any
    code: str
    message: str

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"BatchError(index={self.index}, item={self.item!r}, code={self.code!r})"


def _call(func: Callable[[Any], Any], item: Any) -> Any:
    # Module level so that process/cluster executors can pickle it.
    return call_maybe_async(func, item)


def _item_key(item: Any) -> str:
    text = json.dumps(item, sort_keys=True, default=repr, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _default_encode(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    return value


def _error_row(index: int, item: Any, exc: BaseException) -> BatchError:
    if isinstance(exc, HermesError):
        return BatchError(index, item, exc.code, exc.message)
    return BatchError(index, item, type(exc).__name__, redact(str(exc)))


def _check_concurrency(concurrency: object) -> int:
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise InvalidInputError(f"concurrency must be a positive integer, got {concurrency!r}")
    return concurrency


def run_batch(
    func: Callable[[Any], Any],
    items: Iterable[Any],
    *,
    executor: Executor | None = None,
    concurrency: int = 4,
    progress: bool | None = None,
    job: str | None = None,
    desc: str = "batch",
    encode: Callable[[Any], Any] = _default_encode,
    decode: Callable[[Any], Any] | None = None,
    rate: RateLimit | None = None,
) -> list[Any]:
    """``func(item)`` for every item, in input order; failures become ``BatchError`` rows.

    ``job`` names a persisted job: finished items are stored (via ``encode``, JSON-safe) and
    skipped when the job runs again (their stored value is returned through ``decode``).
    ``rate`` spaces the submissions (``hermes_nb.batch.limits``).
    """
    todo = list(items)
    limit = _check_concurrency(concurrency)
    results: list[Any] = [None] * len(todo)
    pending = list(range(len(todo)))
    store = None
    keys: list[str] = []
    if job is not None:
        store = get_store()
        keys = [_item_key(item) for item in todo]
        done = store.batch_done(job)
        pending = []
        for index, key in enumerate(keys):
            row = done.get(index)
            if row is not None and row["item_key"] == key and row["status"] == _DONE:
                results[index] = decode(row["result"]) if decode is not None else row["result"]
            else:
                pending.append(index)

    def record(index: int, outcome: Any, failed: BaseException | None) -> None:
        if failed is not None:
            err = _error_row(index, todo[index], failed)
            results[index] = err
            if store is not None and job is not None:
                store.batch_put(job, index, keys[index], _FAILED, error=[err.code, err.message])
            return
        results[index] = outcome
        if store is not None and job is not None:
            store.batch_put(job, index, keys[index], _DONE, result=encode(outcome))

    with _progress(len(todo), desc, enabled=progress) as bar:
        bar.update(len(todo) - len(pending))
        if executor is None:
            _on_own_threads(func, todo, pending, limit, rate, record, bar)
        else:
            _on_executor(executor, func, todo, pending, limit, rate, record, bar)
    return results


#: ``record(index, outcome, error)``: keep one finished item (its error, when it failed).
Record = Callable[[int, Any, "BaseException | None"], None]


@dataclass
class _Workers:
    running: int
    done: int = 0
    fatal: BaseException | None = None


def _on_own_threads(
    func: Callable[[Any], Any], todo: list[Any], pending: list[int], limit: int,
    rate: RateLimit | None, record: Record, bar: Any,
) -> None:
    """``limit`` pooled threads each take the next item until none is left; this thread only waits.

    Nothing is handed over per item (a hand-over between threads costs ~0.1 ms of system time on a
    small VM, several per item through an executor), and the threads are reused between batches.
    """
    upcoming = iter(pending)
    take = threading.Lock()
    stop = threading.Event()
    all_done = threading.Event()
    state = _Workers(running=min(limit, len(pending)))

    def worker(context: contextvars.Context) -> None:
        try:
            while not stop.is_set():
                with take:
                    index = next(upcoming, None)
                if index is None:
                    return
                if rate is not None:
                    rate.acquire()
                try:
                    outcome, failed = context.run(call_maybe_async, func, todo[index]), None
                except Exception as exc:
                    outcome, failed = None, exc
                if stop.is_set():
                    return  # the batch was interrupted: its caller has gone
                record(index, outcome, failed)
                with take:
                    state.done += 1
        except BaseException as exc:  # SystemExit and the like: the batch stops and re-raises it
            state.fatal = exc
            stop.set()
        finally:
            with take:
                state.running -= 1
                if state.running == 0:
                    all_done.set()

    if not pending:
        return
    for _ in range(state.running):
        run_in_thread(functools.partial(worker, contextvars.copy_context()), "batch")
    shown = 0
    try:
        while not all_done.wait(_PROGRESS_EVERY_S):
            shown = _show_progress(bar, state.done, shown)
    finally:
        stop.set()  # after KeyboardInterrupt too: no thread starts another item
    _show_progress(bar, state.done, shown)
    if state.fatal is not None:
        raise state.fatal


def _show_progress(bar: Any, done: int, shown: int) -> int:
    if done > shown:
        bar.update(done - shown)
    return done


def _on_executor(
    pool: Executor, func: Callable[[Any], Any], todo: list[Any], pending: list[int], limit: int,
    rate: RateLimit | None, record: Record, bar: Any,
) -> None:
    """At most ``limit`` items submitted to ``pool`` at a time (any executor: only ``submit`` is used)."""
    in_flight: dict[Future[Any], int] = {}
    finished: queue.SimpleQueue[Future[Any]] = queue.SimpleQueue()  # futures report here as they end
    upcoming = iter(pending)

    def fill() -> None:
        while len(in_flight) < limit:
            index = next(upcoming, None)
            if index is None:
                return
            if rate is not None:
                rate.acquire()
            future = pool.submit(_call, func, todo[index])
            in_flight[future] = index
            future.add_done_callback(finished.put)

    try:
        fill()
        while in_flight:
            # One wake-up per finished item: concurrent.futures.wait() would set up and tear down a
            # waiter on every in-flight future each time (a third of a 32-wide batch's CPU).
            future = finished.get()
            index = in_flight.pop(future)
            try:
                outcome, failed = future.result(), None
            except Exception as exc:
                outcome, failed = None, exc
            record(index, outcome, failed)
            bar.update()
            fill()
    finally:
        for future in in_flight:
            future.cancel()
