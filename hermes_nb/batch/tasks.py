"""The asyncio batch engine: a batch's items as tasks on one event loop (the kernel's, in Jupyter).

``AsyncBatch`` is what the async twins (``asearch_many``, ``aextract_many``, ``aimagine_many``)
return: ``await`` it for the ``BatchResult`` in input order, or ``async for index, result in …``
to take the results as they finish. ``concurrency`` worker tasks take the items in turn; each item
awaits the SDK's async call, which awaits a provider's ``async def`` path and runs a provider
that has only a sync path on the pooled threads (``plugins.deadline``), under the same limits:
``batch.<name>.in_flight`` bounds the workers and every start takes its slot from the provider's
adaptive rate limiter. Jobs, requeues of rate-limited items and ``BatchError`` rows work as in
``batch.runner``. When the provider has only a sync path, tasks would only hand each item to a
pooled thread and back (slower, ``benchmarks/RESULTS.md``), so the twin passes
``sync_func`` and the items run on the pooled-thread engine (``runner.stream_batch``), whose
finished pairs are handed to the loop as they come. In a notebook,
``task = asyncio.ensure_future(hn.asearch_many(…))`` lets the cell return while the batch runs on
the kernel's loop.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import threading
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Iterable
from typing import Any

from hermes_nb.batch.limits import RateLimit
from hermes_nb.batch.live import BatchView
from hermes_nb.batch.result import BatchResult
from hermes_nb.batch.runner import BatchStream, Plan, check_concurrency, default_encode, stream_batch
from hermes_nb.net.rate_limits import prepaid_slot
from hermes_nb.plugins.call_threads import run_in_thread
from hermes_nb.progress import batch_item

__all__ = ["AsyncBatch", "astream_batch", "bridge"]

_END = object()


async def _acall(func: Callable[[Any], Any], item: Any, provider: str | None, slot: float | None) -> Any:
    with prepaid_slot(provider, slot), batch_item():
        result = func(item)
        if inspect.isawaitable(result):
            result = await result
        return result


async def astream_batch(
    func: Callable[[Any], Awaitable[Any] | Any],
    plan: Plan,
    *,
    concurrency: int = 4,
    rate: RateLimit | None = None,
    shown: BatchView | None = None,
) -> AsyncIterator[tuple[int, Any]]:
    """``(index, result)`` for every item of ``plan`` as it finishes (resumed items first)."""
    limit = check_concurrency(concurrency)
    upcoming = deque(plan.pending)
    finished: asyncio.Queue[tuple[int, Any]] = asyncio.Queue()
    changed = asyncio.Condition()
    in_flight = 0
    provider = rate.provider if rate is not None else None

    def ready() -> bool:
        # A worker stays while others still run: an item of theirs may come back rate-limited.
        return bool(upcoming) or in_flight == 0

    async def worker() -> None:
        nonlocal in_flight
        while True:
            async with changed:
                await changed.wait_for(ready)
                if not upcoming:
                    return
                index = upcoming.popleft()
                in_flight += 1
            slot = await rate.atake_slot() if rate is not None else None
            try:
                outcome, failed = await _acall(func, plan.todo[index], provider, slot), None
            except Exception as exc:
                outcome, failed = None, exc
            again = plan.requeue(index, failed)
            if not again:
                finished.put_nowait((index, plan.record(index, outcome, failed)))
            async with changed:
                in_flight -= 1
                if again:
                    upcoming.append(index)
                changed.notify_all()

    try:
        if shown is not None:
            shown.resumed(len(plan.resumed))
        for pair in plan.resumed:
            yield pair
        workers: list[asyncio.Future[Any]] = [
            asyncio.ensure_future(worker()) for _ in range(min(limit, len(upcoming)))
        ]
        getter: asyncio.Future[tuple[int, Any]] | None = None
        try:
            for _ in range(len(plan.pending)):
                getter = asyncio.ensure_future(finished.get())
                while True:
                    done, _ = await asyncio.wait({getter, *workers}, return_when=asyncio.FIRST_COMPLETED,
                                                 timeout=None if shown is None else 0.25)
                    if shown is not None:
                        shown.tick()
                    if getter in done:
                        break
                    for task in done - {getter}:
                        workers.remove(task)
                        task.result()  # a worker that died re-raises here (cancellation and the like)
                index, value = getter.result()
                getter = None
                if shown is not None:
                    shown.item(index, value)
                    shown.tick()
                yield index, value
        finally:
            for task in workers:
                task.cancel()
            if getter is not None:
                getter.cancel()
    finally:
        if shown is not None:
            shown.close()


async def bridge(pairs: BatchStream) -> AsyncIterator[tuple[int, Any]]:
    """The pairs of a thread-engine stream, taken in a pooled thread and yielded on this loop."""
    loop = asyncio.get_running_loop()
    arrived: asyncio.Queue[Any] = asyncio.Queue()
    stop = threading.Event()

    def hand(value: Any) -> None:
        try:
            loop.call_soon_threadsafe(arrived.put_nowait, value)
        except RuntimeError:  # the loop has closed: nobody is waiting any more
            stop.set()

    def pump() -> None:
        end: Any = _END
        try:
            for pair in pairs:
                hand(pair)
                if stop.is_set():
                    break
        except BaseException as exc:  # handed to the awaiting side, whatever it is
            end = exc
        finally:
            pairs.close()
        hand(end)

    run_in_thread(_in_context(pump), "batch")
    try:
        while True:
            got = await arrived.get()
            if got is _END:
                return
            if isinstance(got, BaseException):
                raise got
            yield got
    finally:
        stop.set()
        pairs.stop()  # at once, from this thread: no further item starts


def _in_context(func: Callable[[], None]) -> Callable[[], None]:
    context = contextvars.copy_context()  # the caller's config overrides and emulator go along
    return lambda: context.run(func)


class AsyncBatch:
    """A batch on the running event loop: ``await`` it for the ``BatchResult``, or ``async for`` it.

    ``async for index, result in batch`` yields in completion order, every item exactly once.
    """

    def __init__(
        self,
        func: Callable[[Any], Awaitable[Any] | Any],
        items: Iterable[Any],
        *,
        concurrency: int = 4,
        rate: RateLimit | None = None,
        view: Callable[[int], BatchView] | None = None,
        job: str | None = None,
        encode: Callable[[Any], Any] = default_encode,
        decode: Callable[[Any], Any] | None = None,
        result: Callable[[list[Any]], Any] = BatchResult,
        sync_func: Callable[[Any], Any] | None = None,
    ) -> None:
        self._func = func
        self._sync_func = sync_func
        self._items = list(items)
        self._concurrency = check_concurrency(concurrency)
        self._rate = rate
        self._view = view
        self._job = job
        self._encode = encode
        self._decode = decode
        self._result = result
        self._started = False

    def _claim(self) -> None:
        if self._started:
            raise RuntimeError("this batch has already run; call the *_many function again")
        self._started = True

    def _plan(self) -> Plan:
        self._claim()
        return Plan(self._items, self._job, self._encode, self._decode)

    def __aiter__(self) -> AsyncIterator[tuple[int, Any]]:
        if self._sync_func is not None:
            self._claim()
            pairs = stream_batch(
                self._sync_func, self._items, concurrency=self._concurrency, rate=self._rate, view=self._view,
                job=self._job, encode=self._encode, decode=self._decode,
            )  # fmt: skip
            return bridge(pairs)
        plan = self._plan()
        shown = self._view(len(plan.todo)) if self._view is not None else None
        return astream_batch(self._func, plan, concurrency=self._concurrency, rate=self._rate, shown=shown)

    async def _collect(self) -> Any:
        results: list[Any] = [None] * len(self._items)
        async for index, value in self:
            results[index] = value
        return self._result(results)

    def __await__(self) -> Generator[Any, None, Any]:
        return self._collect().__await__()

    def __repr__(self) -> str:
        state = "ran" if self._started else "not started: await it or iterate with async for"
        return f"AsyncBatch({len(self._items)} item(s), {state})"
