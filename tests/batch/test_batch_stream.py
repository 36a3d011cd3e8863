"""Streamed batches: completion order, each item once, rate limits requeued, async engine, live view."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import hermes_nb as hn
from hermes_nb import batch, config
from hermes_nb.batch.live import BatchView
from hermes_nb.errors import RateLimitedError
from hermes_nb.plugins.registry import web_providers
from hermes_nb.plugins.web_provider import WebSearchProvider
from hermes_nb.testing import Emulator, use_emulator
from hermes_nb.web.results import SearchResult


def test_items_stream_in_completion_order_each_once() -> None:
    second_done = threading.Event()

    def work(x: int) -> int:
        if x == 0:
            assert second_done.wait(30)  # item 0 finishes only after item 1 has
        if x == 1:
            second_done.set()
        return x * 10

    pairs = list(batch.stream_batch(work, [0, 1, 2, 3], concurrency=2, progress=False))
    assert sorted(pairs) == [(0, 0), (1, 10), (2, 20), (3, 30)]
    order = [index for index, _ in pairs]
    assert order.index(1) < order.index(0)


def test_rate_limited_items_go_back_to_the_queue_and_come_out_once() -> None:
    tries: dict[int, int] = {}
    lock = threading.Lock()

    def work(x: int) -> int:
        with lock:
            tries[x] = tries.get(x, 0) + 1
            first = tries[x] == 1
        if first and x % 2 == 0:
            raise RateLimitedError("slow down", provider="p")
        return x

    pairs = list(batch.stream_batch(work, range(10), concurrency=3, progress=False))
    assert sorted(pairs) == [(i, i) for i in range(10)]
    assert [tries[i] for i in range(10)] == [2, 1] * 5
    quota = batch.run_batch(lambda x: (_ for _ in ()).throw(RateLimitedError("quota", retryable=False)), [1],
                            progress=False)  # fmt: skip
    assert quota[0].code == "PROVIDER_RATE_LIMITED"  # a quota is not retried


def test_an_item_that_stays_rate_limited_becomes_an_error_row() -> None:
    calls = []

    def work(x: int) -> int:
        calls.append(x)
        raise RateLimitedError("still limited", provider="p")

    rows = batch.run_batch(work, [7], progress=False)
    assert rows[0].code == "PROVIDER_RATE_LIMITED" and len(calls) == batch.runner.REQUEUES + 1


def test_a_resumed_job_streams_the_done_items_first_and_nothing_twice() -> None:
    batch.run_batch(lambda x: x, [0, 1, 2], job="s", progress=False)
    pairs = list(batch.stream_batch(lambda x: x, [0, 1, 2, 3, 4], job="s", progress=False))
    assert pairs[:3] == [(0, 0), (1, 1), (2, 2)] and sorted(pairs[3:]) == [(3, 3), (4, 4)]


def test_closing_the_stream_early_stops_the_batch() -> None:
    calls: list[int] = []
    go = threading.Event()

    def work(x: int) -> int:
        calls.append(x)
        if x > 0:
            assert go.wait(30)
        return x

    stream = batch.stream_batch(work, range(50), concurrency=1, progress=False)
    assert next(stream) == (0, 0)
    stream.close()
    go.set()
    assert calls in ([0], [0, 1])  # the item in flight (if any) ends; no other starts


class Engine(WebSearchProvider):
    """A sync provider and, with ``asynchronous``, an ``async def`` one (run on the event loop)."""

    tier = "keyless"

    def __init__(self, name: str = "engine") -> None:
        self._name = name
        self.threads: set[str] = set()

    @property
    def name(self) -> str:
        return self._name

    def is_available(self) -> bool:
        return True

    def _answer(self, query: str, limit: int) -> Any:
        self.threads.add(threading.current_thread().name)
        return {"success": True, "data": {"web": [{"title": query, "url": f"https://{query}.test/"}]}}

    def search(self, query: str, limit: int = 5) -> Any:
        return self._answer(query, limit)


class AsyncEngine(Engine):
    async def search(self, query: str, limit: int = 5) -> Any:  # type: ignore[override]
        await asyncio.sleep(0)
        return self._answer(query, limit)


@pytest.fixture
def engines(hermetic: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Engine, Engine]]:
    import hermes_nb.plugins.loader  # noqa: F401 - imported first so its hook install cannot undo the patch

    monkeypatch.setattr(web_providers, "loader", None)
    sync, asynchronous = Engine(), AsyncEngine("aengine")
    web_providers.register(sync)
    web_providers.register(asynchronous)
    yield sync, asynchronous


def test_search_many_streams_pairs(engines: tuple[Engine, Engine]) -> None:
    queries = [f"q{i}" for i in range(12)]
    pairs = list(hn.search_many(queries, backend="engine", concurrency=4, stream=True, progress=False))
    assert sorted(index for index, _ in pairs) == list(range(12))
    assert all(isinstance(r, SearchResult) and r.query == queries[i] for i, r in pairs)


def test_async_twin_streams_and_awaits(engines: tuple[Engine, Engine]) -> None:
    sync, asynchronous = engines
    queries = [f"q{i}" for i in range(10)]

    async def run() -> tuple[list[tuple[int, Any]], Any, Any]:
        streamed = [pair async for pair in hn.asearch_many(queries, backend="engine", concurrency=3)]
        awaited = await hn.asearch_many(queries, backend="aengine", concurrency=3, no_cache=True)
        frame = await hn.asearch_many(queries[:2], backend="aengine", as_frame=True)
        return streamed, awaited, frame

    streamed, awaited, frame = asyncio.run(run())
    assert sorted(i for i, _ in streamed) == list(range(10))
    assert isinstance(awaited, batch.BatchResult) and [r.query for r in awaited] == queries
    assert list(frame.columns) == batch.SEARCH_COLUMNS
    assert all(name.startswith("hermes_nb-provider") for name in sync.threads)  # sync path: pooled threads
    assert asynchronous.threads == {"MainThread"}  # async path: on the event loop itself


def test_an_async_batch_runs_once(engines: tuple[Engine, Engine]) -> None:
    run = hn.asearch_many(["a"], backend="aengine")
    assert "not started" in repr(run)
    assert asyncio.run(_drain(run))[0][0] == 0
    with pytest.raises(RuntimeError, match="already run"):
        asyncio.run(_drain(run))


async def _drain(run: Any) -> list[Any]:
    return [pair async for pair in run]


# -- the live view --------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_live_view_grows_then_saves_as_one_summary_line() -> None:
    clock = Clock()
    outputs: dict[str, dict[str, str]] = {}  # display id → the bundle a notebook would save
    updates: list[bool] = []

    def publish(bundle: dict[str, str], display_id: str, update: bool) -> None:
        assert update == (display_id in outputs)
        outputs[display_id] = bundle
        updates.append(update)

    items = [f"query {i}" for i in range(200)]
    def rows(queries: list[Any], results: list[Any]) -> list[dict[str, Any]]:
        return [{"query": q, "title": f"<b>{r}</b>"} for q, r in zip(queries, results, strict=True)]

    view = BatchView(len(items), "search", enabled=True, items=items, columns=["query", "title"], rows=rows,
                     publish=publish, clock=clock)  # fmt: skip
    sizes = []
    for i in range(200):
        clock.now += 0.05
        view.item(i, batch.BatchError(i, items[i], "TIMEOUT", "slow") if i % 50 == 0 else f"r{i}")
        view.tick()
        if outputs:
            sizes.append(len(next(iter(outputs.values()))["text/html"]))
    live = next(iter(outputs.values()))
    assert "&lt;b&gt;r196&lt;/b&gt;" in live["text/html"] and "<table>" in live["text/html"]  # rows, escaped
    assert "TIMEOUT 4" in live["text/plain"] and "197/200" in live["text/plain"]
    assert "ETA" in live["text/plain"]
    assert sizes[-1] > sizes[0]  # the table grew
    assert updates[0] is False and all(updates[1:]) and 30 <= len(updates) <= 45  # at most every 0.25 s
    view.close()
    saved = next(iter(outputs.values()))
    assert "<table>" not in saved["text/html"] and "4 error(s): TIMEOUT 4" in saved["text/plain"]
    assert len(json.dumps(saved)) < 600 and len(outputs) == 1


def test_a_quick_detected_batch_shows_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    shown: list[Any] = []
    monkeypatch.setenv("HERMES_NB_PROGRESS", "1")
    view = BatchView(3, "search", publish=lambda *a: shown.append(a), clock=clock)
    for i in range(3):
        clock.now += 0.1
        view.item(i, i)
        view.tick()
    view.close()
    assert shown == []  # finished before AUTO_DELAY_S: no output at all


# -- a 429 storm against the emulator --------------------------------------------------------------


def test_a_batch_through_a_429_storm_loses_no_item_and_keeps_the_rate(hermetic: Path) -> None:
    rps = 20
    with Emulator(seed=3) as emu, use_emulator(emu, ["serper"]):
        config.set("web.search_backend", "serper")
        config.set("batch.serper.rps", rps)
        emu.fail("serper", "429", times=None, fraction=0.3, retry_after=0, headers={"retry-after-ms": "50"})
        queries = [f"storm {i}" for i in range(16)]
        result = hn.search_many(queries, concurrency=8, no_cache=True, progress=False)
        arrivals = sorted(r.at for r in emu.requests_for("serper"))
    assert result.errors == [] and [r.query for r in result] == queries
    state = hn.batch.limits()["serper"]
    assert state.throttled == len(arrivals) - len(queries) > 0 and state.backoffs >= 1
    busiest = max(sum(1 for t in arrivals if start <= t < start + 1.0) for start in arrivals)
    assert busiest <= rps + 3  # slots are 1/rps apart; a loaded machine may bunch a few arrivals


def test_a_failing_display_never_fails_the_batch() -> None:
    def publish(bundle: dict[str, str], display_id: str, update: bool) -> None:
        raise RuntimeError("frontend went away")

    make = lambda total: BatchView(total, "x", enabled=True, publish=publish)  # noqa: E731
    assert batch.run_batch(lambda x: x, range(5), view=make) == list(range(5))


def test_the_terminal_bar_shows_the_limiter_once_it_acted(capsys: pytest.CaptureFixture[str]) -> None:
    from hermes_nb.net import rate_limits

    limit = rate_limits.limit_for("barred")
    _, slot = limit.reserve()
    limit.on_throttle(slot, None)
    view = BatchView(2, "search", enabled=True, provider="barred")
    view.item(0, 0)
    view.tick()
    view.item(1, 1)
    view.close()
    assert "barred" in capsys.readouterr().err and "1×429" in limit.state().summary()


def test_leaving_a_bridged_stream_early_stops_its_threads() -> None:
    from hermes_nb.batch.tasks import bridge

    calls: list[int] = []
    go, third = threading.Event(), threading.Event()

    def work(x: int) -> int:
        calls.append(x)
        if x >= 2:
            third.set()
        if x > 0:
            assert go.wait(30)
        return x

    async def first() -> tuple[int, Any]:
        pairs = bridge(batch.stream_batch(work, range(50), concurrency=1, progress=False))
        async for pair in pairs:
            await pairs.aclose()  # type: ignore[attr-defined]
            return pair
        raise AssertionError("nothing came")

    assert asyncio.run(first()) == (0, 0)
    go.set()
    assert not third.wait(1.0) and len(calls) <= 2  # the item in flight (if any) ends; no other starts


def test_an_alias_shares_the_providers_limiter(hermetic: Path) -> None:
    with Emulator(seed=0) as emu, use_emulator(emu, ["brave"]):
        config.set("batch.brave.rps", 1000)
        result = hn.search_many(["a", "b"], backend="brave-free", no_cache=True, progress=False)
        assert result.errors == []
    assert list(hn.batch.limits()) == ["brave"]  # one limiter: the batch's slots were its requests'
    assert hn.batch.limits()["brave"].requests == 2
