"""The batch runner: many items with bounded concurrency, resumable, streamed as they finish.

``stream_batch`` yields ``(index, result)`` pairs in completion order, every item exactly once
(items a resumed job had already finished come first); ``run_batch`` collects the same pairs into
input order. Without an executor, ``concurrency`` pooled threads (``plugins.call_threads``) take the
items in turn; with any ``Executor`` (only ``submit`` is used, so a Dask ``Client.get_executor()``
runs items on a cluster) at most ``concurrency`` items are submitted at a time. The asyncio engine
(``batch.tasks``) shares the plan below.

A failing item becomes a ``BatchError`` row instead of stopping the batch, except when the
provider rate-limited it (``PROVIDER_RATE_LIMITED``, retryable): such an item goes back to the end
of the queue, up to ``REQUEUES`` times, while the provider's adaptive limiter slows every start
down (``hermes_nb.net.rate_limits``). With ``job="name"`` every finished item is written to the
store as it completes; running the same job again skips the items already done (failed items are
tried again), so an interrupted batch resumes.
"""

from __future__ import annotations

import contextvars
import functools
import hashlib
import json
import queue
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, Future
from dataclasses import asdict, dataclass, field, is_dataclass
from typing import Any

from hermes_nb._async import call_maybe_async
from hermes_nb.batch.limits import RateLimit
from hermes_nb.batch.live import BatchView
from hermes_nb.batch.result import BatchError, collected
from hermes_nb.errors import HermesError, InvalidInputError
from hermes_nb.net.rate_limits import prepaid_slot
from hermes_nb.plugins.call_threads import run_in_thread
from hermes_nb.progress import batch_item
from hermes_nb.redaction import redact
from hermes_nb.store import get_store

__all__ = ["REQUEUES", "BatchError", "BatchStream", "Plan", "default_encode", "run_batch", "stream_batch"]

#: How often the waiting thread collects finished items and redraws the view.
_PROGRESS_EVERY_S = 0.1
#: Times one rate-limited item goes back to the queue before it becomes an error row.
REQUEUES = 8
_DONE = "done"
_FAILED = "error"


def _call(func: Callable[[Any], Any], item: Any) -> Any:
    # Module level so that process/cluster executors can pickle it.
    return call_maybe_async(func, item)


def _item_key(item: Any) -> str:
    text = json.dumps(item, sort_keys=True, default=repr, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def default_encode(value: Any) -> Any:
    """A finished item's value as stored for a job: dataclasses as dicts, anything else as it is."""
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    return value


def _error_row(index: int, item: Any, exc: BaseException) -> BatchError:
    if isinstance(exc, HermesError):
        return BatchError(index, item, exc.code, exc.message)
    return BatchError(index, item, type(exc).__name__, redact(str(exc)))


def check_concurrency(concurrency: object) -> int:
    """``concurrency`` as a positive int, or ``InvalidInputError``."""
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise InvalidInputError(f"concurrency must be a positive integer, got {concurrency!r}")
    return concurrency


@dataclass
class Plan:
    """One batch's items, the ones a resumed job already has, and how finished items are kept."""

    todo: list[Any]
    job: str | None = None
    encode: Callable[[Any], Any] = default_encode
    decode: Callable[[Any], Any] | None = None
    pending: list[int] = field(default_factory=list)
    resumed: list[tuple[int, Any]] = field(default_factory=list)
    requeues: dict[int, int] = field(default_factory=dict)
    _store: Any = field(default=None, init=False, repr=False)
    _keys: list[str] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.job is None:
            self.pending = list(range(len(self.todo)))
            return
        self._store = get_store()
        self._keys = [_item_key(item) for item in self.todo]
        done = self._store.batch_done(self.job)
        for index, key in enumerate(self._keys):
            row = done.get(index)
            if row is not None and row["item_key"] == key and row["status"] == _DONE:
                value = self.decode(row["result"]) if self.decode is not None else row["result"]
                self.resumed.append((index, value))
            else:
                self.pending.append(index)

    def requeue(self, index: int, failed: BaseException | None) -> bool:
        """True when ``index`` failed on a provider's rate limit and may be tried again later."""
        limited = isinstance(failed, HermesError) and failed.code == "PROVIDER_RATE_LIMITED"
        if not (limited and getattr(failed, "retryable", False)):
            return False
        tries = self.requeues.get(index, 0)
        if tries >= REQUEUES:
            return False
        self.requeues[index] = tries + 1
        return True

    def record(self, index: int, outcome: Any, failed: BaseException | None) -> Any:
        """Keep one finished item (in the job's store); return its value or its ``BatchError`` row."""
        keep = self._store is not None and self.job is not None
        if failed is not None:
            err = _error_row(index, self.todo[index], failed)
            if keep:
                key = self._keys[index]
                self._store.batch_put(self.job, index, key, _FAILED, error=[err.code, err.message])
            return err
        if keep:
            self._store.batch_put(self.job, index, self._keys[index], _DONE, result=self.encode(outcome))
        return outcome


def _run_item(func: Callable[[Any], Any], item: Any, provider: str | None, slot: float | None) -> Any:
    with prepaid_slot(provider, slot), batch_item():
        return call_maybe_async(func, item)


def stream_batch(
    func: Callable[[Any], Any],
    items: Iterable[Any],
    *,
    executor: Executor | None = None,
    concurrency: int = 4,
    progress: bool | None = None,
    job: str | None = None,
    desc: str = "batch",
    encode: Callable[[Any], Any] = default_encode,
    decode: Callable[[Any], Any] | None = None,
    rate: RateLimit | None = None,
    view: Callable[[int], BatchView] | None = None,
) -> BatchStream:
    """``(index, result)`` for every item as it finishes; failures are ``BatchError`` rows.

    ``job`` names a persisted job: finished items are stored (via ``encode``, JSON-safe) and not
    run again when the job runs again (their stored value is yielded first, through ``decode``).
    ``rate`` spaces the starts (``hermes_nb.batch.limits``); ``view(total)`` builds what the batch
    shows (default: a progress bar). Closing the iterator early stops the batch.
    """
    limit = check_concurrency(concurrency)
    plan = Plan(list(items), job, encode, decode)
    make = view or functools.partial(BatchView, desc=desc, enabled=progress)
    return BatchStream(functools.partial(_stream, plan, func, executor, limit, rate, make))


class BatchStream(Iterator[tuple[int, Any]]):
    """The ``(index, result)`` pairs of a batch as its items finish.

    ``close()`` (from the iterating thread) ends the batch; ``stop()`` may be called from any
    thread: no further item starts, and the items in flight end.
    """

    def __init__(self, run: Callable[[threading.Event], Iterator[tuple[int, Any]]]) -> None:
        self._halt = threading.Event()
        self._pairs = run(self._halt)

    def __iter__(self) -> BatchStream:
        return self

    def __next__(self) -> tuple[int, Any]:
        return next(self._pairs)

    def stop(self) -> None:
        self._halt.set()

    def close(self) -> None:
        self._halt.set()
        close = getattr(self._pairs, "close", None)
        if close is not None:
            close()


def _stream(
    plan: Plan, func: Callable[[Any], Any], executor: Executor | None, limit: int, rate: RateLimit | None,
    make: Callable[[int], BatchView], halt: threading.Event,
) -> Iterator[tuple[int, Any]]:
    shown = make(len(plan.todo))
    try:
        shown.resumed(len(plan.resumed))
        yield from plan.resumed
        if executor is None:
            finished = _on_own_threads(func, plan, limit, rate, shown, halt)
        else:
            finished = _on_executor(executor, func, plan, limit, rate, halt)
        for index, value in finished:
            shown.item(index, value)
            shown.tick()
            yield index, value
    finally:
        shown.close()


def run_batch(
    func: Callable[[Any], Any],
    items: Iterable[Any],
    *,
    executor: Executor | None = None,
    concurrency: int = 4,
    progress: bool | None = None,
    job: str | None = None,
    desc: str = "batch",
    encode: Callable[[Any], Any] = default_encode,
    decode: Callable[[Any], Any] | None = None,
    rate: RateLimit | None = None,
    view: Callable[[int], BatchView] | None = None,
) -> list[Any]:
    """``func(item)`` for every item, in input order; failures become ``BatchError`` rows.

    The options are ``stream_batch``'s; this collects its pairs into input order.
    """
    todo = list(items)
    results: list[Any] = [None] * len(todo)
    pairs = stream_batch(func, todo, executor=executor, concurrency=concurrency, progress=progress, job=job,
                         desc=desc, encode=encode, decode=decode, rate=rate, view=view)  # fmt: skip
    for index, value in pairs:
        results[index] = value
    return results


def many(
    func: Callable[[Any], Any],
    items: list[Any],
    *,
    stream: bool,
    as_frame: bool,
    rows: Callable[[list[Any], list[Any]], list[dict[str, Any]]],
    columns: Sequence[str],
    **run: Any,
) -> Any:
    """How every ``*_many`` ends: the ``(index, result)`` stream with ``stream``, else a ``BatchResult``
    in input order (a pandas DataFrame, one row per ``rows`` entry, with ``as_frame``). ``run``: the
    options of ``stream_batch``."""
    if stream:
        return stream_batch(func, items, **run)
    values = run_batch(func, items, **run)
    return collected(values, items=items, rows=rows, columns=columns, as_frame=as_frame)


@dataclass
class _Workers:
    running: int
    in_flight: int = 0
    fatal: BaseException | None = None
    finished: list[tuple[int, Any]] = field(default_factory=list)


def _on_own_threads(
    func: Callable[[Any], Any], plan: Plan, limit: int, rate: RateLimit | None, shown: BatchView,
    stop: threading.Event,
) -> Iterator[tuple[int, Any]]:
    """``limit`` pooled threads each take the next item until none is left; this thread collects.

    Nothing is handed over per item (a hand-over between threads costs ~0.1 ms of system time on a
    small VM, several per item through an executor), and the threads are reused between batches:
    finished items wait in a list that this thread empties every ``_PROGRESS_EVERY_S``.
    """
    upcoming = deque(plan.pending)
    changed = threading.Condition()
    all_done = threading.Event()
    state = _Workers(running=min(limit, len(upcoming)))
    provider = rate.provider if rate is not None else None

    def next_index() -> int | None:
        with changed:
            # A worker stays while others still run: an item of theirs may come back rate-limited.
            while not upcoming and state.in_flight and not stop.is_set():
                changed.wait(0.1)
            if not upcoming or stop.is_set():
                return None
            state.in_flight += 1
            return upcoming.popleft()

    def worker(context: contextvars.Context) -> None:
        try:
            while True:
                index = next_index()
                if index is None:
                    return
                slot = rate.take_slot() if rate is not None else None
                try:
                    outcome, failed = context.run(_run_item, func, plan.todo[index], provider, slot), None
                except Exception as exc:
                    outcome, failed = None, exc
                if stop.is_set():
                    return  # the batch was interrupted: its caller has gone
                again = plan.requeue(index, failed)
                value = None if again else plan.record(index, outcome, failed)
                with changed:
                    state.in_flight -= 1
                    if again:
                        upcoming.append(index)
                    else:
                        state.finished.append((index, value))
                    changed.notify_all()
        except BaseException as exc:  # SystemExit and the like: the batch stops and re-raises it
            state.fatal = exc
            stop.set()
        finally:
            with changed:
                state.running -= 1
                if state.running == 0:
                    all_done.set()
                changed.notify_all()

    if not upcoming:
        return
    for _ in range(state.running):
        run_in_thread(functools.partial(worker, contextvars.copy_context()), "batch")
    try:
        while True:
            ended = all_done.wait(_PROGRESS_EVERY_S)
            with changed:
                finished, state.finished = state.finished, []
            yield from finished
            shown.tick()
            if ended:
                break
    finally:
        stop.set()  # after KeyboardInterrupt, or a caller that stopped iterating: no new item starts
    if state.fatal is not None:
        raise state.fatal


def _on_executor(
    pool: Executor, func: Callable[[Any], Any], plan: Plan, limit: int, rate: RateLimit | None,
    stop: threading.Event,
) -> Iterator[tuple[int, Any]]:
    """At most ``limit`` items submitted to ``pool`` at a time (any executor: only ``submit`` is used)."""
    in_flight: dict[Future[Any], int] = {}
    finished: queue.SimpleQueue[Future[Any]] = queue.SimpleQueue()  # futures report here as they end
    upcoming = deque(plan.pending)

    def fill() -> None:
        while len(in_flight) < limit and upcoming and not stop.is_set():
            index = upcoming.popleft()
            if rate is not None:
                rate.acquire()
            future = pool.submit(_call, func, plan.todo[index])
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
            if plan.requeue(index, failed):
                upcoming.append(index)
            else:
                yield index, plan.record(index, outcome, failed)
            fill()
    finally:
        for future in in_flight:
            future.cancel()
