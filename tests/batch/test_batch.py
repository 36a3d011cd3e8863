"""Batches: executors, bounded concurrency, error rows, resume, DataFrames, quiet progress."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from hermes_nb import batch, progress
from hermes_nb.errors import TimeoutError_
from hermes_nb.plugins.registry import web_providers
from hermes_nb.plugins.web_provider import WebSearchProvider
from hermes_nb.web.results import ExtractResult, SearchResult


@pytest.fixture(autouse=True)
def no_bundled_plugins(hermetic: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    import hermes_nb.plugins.loader  # noqa: F401 - imported first so its hook install cannot undo the patch

    monkeypatch.setattr(web_providers, "loader", None)
    yield


class Engine(WebSearchProvider):
    tier = "keyless"

    def __init__(self) -> None:
        self.calls: list[Any] = []
        self.lock = threading.Lock()

    @property
    def name(self) -> str:
        return "engine"

    def is_available(self) -> bool:
        return True

    def supports_extract(self) -> bool:
        return True

    def search(self, query: str, limit: int = 5) -> Any:
        with self.lock:
            self.calls.append(query)
        if query == "slow":
            raise TimeoutError_("provider timed out", provider="engine")
        if query == "empty":
            return {"success": True, "data": {"web": []}}
        return {
            "success": True,
            "data": {"web": [{"title": query, "url": f"https://{query}.test/{i}"} for i in range(limit)]},
        }

    def extract(self, urls: list[str], **kwargs: Any) -> Any:
        with self.lock:
            self.calls.extend(urls)
        return [{"url": u, "title": "T", "content": f"body {u}"} for u in urls]


@pytest.fixture
def engine() -> Engine:
    provider = Engine()
    web_providers.register(provider)
    return provider


class InlineExecutor(Executor):
    """A minimal custom executor (runs at submit time), the way a cluster executor is used: submit only."""

    def __init__(self) -> None:
        self.submitted = 0

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.submitted += 1
        future: Future[Any] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:
            future.set_exception(exc)
        return future


def test_results_keep_input_order_with_error_rows() -> None:
    def work(x: int) -> int:
        if x == 3:
            raise ValueError("three is bad")
        time.sleep(0.001 * (5 - x))
        return x * 10

    rows = batch.run_batch(work, range(6), concurrency=3, progress=False)
    assert rows[:3] == [0, 10, 20] and rows[4:] == [40, 50]
    assert isinstance(rows[3], batch.BatchError)
    assert (rows[3].index, rows[3].item, rows[3].code) == (3, 3, "ValueError") and not rows[3]


def test_concurrency_is_bounded() -> None:
    active = 0
    peak = 0
    lock = threading.Lock()

    def work(x: int) -> int:
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        time.sleep(0.01)
        with lock:
            active -= 1
        return x

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert batch.run_batch(work, range(12), executor=pool, concurrency=2, progress=False) == list(
            range(12)
        )
    assert peak == 2


def test_custom_executor_needs_only_submit() -> None:
    executor = InlineExecutor()
    assert batch.run_batch(lambda x: x + 1, [1, 2, 3], executor=executor, progress=False) == [2, 3, 4]
    assert executor.submitted == 3


def test_async_functions_are_awaited() -> None:
    async def work(x: int) -> int:
        return x * 2

    assert batch.run_batch(work, [1, 2], progress=False) == [2, 4]


@pytest.mark.parametrize("bad", [0, -1, True, 1.5])
def test_bad_concurrency(bad: Any) -> None:
    with pytest.raises(ValueError, match="concurrency"):
        batch.run_batch(lambda x: x, [1], concurrency=bad)


class Interrupted(BaseException):
    """Stands in for a kernel interrupt in the middle of a batch."""


def test_interrupted_job_resumes_and_skips_done_items() -> None:
    seen: list[int] = []

    def first_run(x: int) -> dict[str, int]:
        if x == 4:
            raise Interrupted
        seen.append(x)
        return {"value": x}

    with pytest.raises(Interrupted):
        batch.run_batch(first_run, range(8), concurrency=1, job="nightly", progress=False)
    assert seen == [0, 1, 2, 3]

    again: list[int] = []

    def second_run(x: int) -> dict[str, int]:
        again.append(x)
        return {"value": x}

    rows = batch.run_batch(second_run, range(8), concurrency=1, job="nightly", progress=False)
    assert again == [4, 5, 6, 7]
    assert rows == [{"value": x} for x in range(8)]


def test_resume_retries_failed_items_and_changed_items() -> None:
    calls: list[str] = []
    failures_left = {"b": 1}

    def flaky(x: str) -> str:
        calls.append(x)
        if failures_left.get(x):
            failures_left[x] -= 1
            raise RuntimeError("transient")
        return x.upper()

    first = batch.run_batch(flaky, ["a", "b", "c"], job="j", progress=False)
    assert isinstance(first[1], batch.BatchError)
    calls.clear()
    assert batch.run_batch(flaky, ["a", "b", "z"], job="j", progress=False) == ["A", "B", "Z"]
    assert sorted(calls) == ["b", "z"]


def test_search_many_list_and_frame(engine: Engine) -> None:
    rows = batch.search_many(["alpha", "slow", "empty", "beta"], limit=2, concurrency=2, progress=False)
    assert isinstance(rows[0], SearchResult) and len(rows[0]) == 2
    assert isinstance(rows[1], batch.BatchError) and rows[1].code == "TIMEOUT"
    frame = batch.search_many(["alpha", "slow", "empty", "beta"], limit=2, as_frame=True, progress=False)
    assert list(frame.columns) == batch.SEARCH_COLUMNS
    assert frame["query"].tolist() == ["alpha", "alpha", "slow", "empty", "beta", "beta"]
    assert frame.loc[frame["query"] == "slow", "error_code"].tolist() == ["TIMEOUT"]
    assert frame.loc[frame["query"] == "alpha", "cached"].tolist() == [True, True]


def test_search_many_job_round_trips_results(engine: Engine) -> None:
    first = batch.search_many(["a", "b"], job="s", progress=False)
    engine.calls.clear()
    second = batch.search_many(["a", "b"], job="s", progress=False)
    assert engine.calls == []
    assert [r.urls for r in second] == [r.urls for r in first]
    assert all(isinstance(r, SearchResult) for r in second)


def test_extract_many(engine: Engine) -> None:
    urls = ["https://a.test/", "https://b.test/"]
    rows = batch.extract_many(urls, progress=False, executor=InlineExecutor())
    assert all(isinstance(r, ExtractResult) for r in rows)
    frame = batch.extract_many(urls, as_frame=True, progress=False, job="e")
    assert list(frame.columns) == batch.EXTRACT_COLUMNS
    assert frame["url"].tolist() == urls and frame["content"].tolist()[0] == "body https://a.test/"
    again = batch.extract_many(urls, progress=False, job="e")
    assert again[1].pages[0].content == "body https://b.test/"


def test_progress_is_silent_under_ci(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CI", "1")
    assert progress.is_interactive() is False
    batch.run_batch(lambda x: x, range(5))
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_progress_env_and_argument_override(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CI", "1")
    monkeypatch.setenv("HERMES_NB_PROGRESS", "1")
    assert progress.is_interactive() is True
    monkeypatch.setenv("HERMES_NB_PROGRESS", "0")
    monkeypatch.delenv("CI")
    assert progress.is_interactive() is False
    with progress.progress(3, "forced", enabled=True) as bar:
        bar.update(3)
        assert bar.visible and bar.done == 3
    assert "forced" in capsys.readouterr().err
    with progress.progress(3, "quiet", enabled=False) as bar:
        bar.update()
        assert not bar.visible and bar.done == 1


def test_an_items_own_bar_stays_hidden_inside_a_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HERMES_NB_PROGRESS", "1")  # "a person is watching", as in a local kernel

    def polls(_: int) -> tuple[bool, bool]:
        with (
            progress.progress(None, "polling") as detected,
            progress.progress(1, "asked", enabled=True) as forced,
        ):
            return detected.visible, forced.visible

    assert batch.run_batch(polls, range(3), concurrency=2, progress=False) == [(False, True)] * 3

    async def apolls(_: int) -> bool:  # an item with an async path: a task on the loop
        with progress.progress(None, "polling") as detected:
            return detected.visible

    async def run() -> Any:
        return await batch.AsyncBatch(apolls, range(2))

    assert list(asyncio.run(run())) == [False, False]
    with progress.progress(None, "alone") as bar:
        assert bar.visible  # outside a batch the same bar shows


def test_detected_bars_wait_before_drawing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HERMES_NB_PROGRESS", "1")  # "a person is watching", as in a local kernel
    with progress.progress(3, "quick") as bar:
        bar.update(3)
    assert bar.done == 3 and capsys.readouterr().err == ""  # finished before the delay: nothing drawn
    with progress.progress(3, "forced", enabled=True) as bar:
        bar.update(3)
    assert "forced" in capsys.readouterr().err
