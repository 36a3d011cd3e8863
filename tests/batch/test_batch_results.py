"""Batch results against the emulator: BatchResult, per-call cache flags, rate limits, resume after a kill."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import hermes_nb as hn
from hermes_nb import batch, config, errors
from hermes_nb.batch.limits import RateLimit, limits_for
from hermes_nb.testing import Emulator, use_emulator


@pytest.fixture
def emu(hermetic: Path) -> Iterator[Emulator]:
    with Emulator(seed=0) as server, use_emulator(server, ["brave"]):
        config.set("web.search_backend", "brave")
        yield server


def _queries(emu: Emulator) -> list[str]:
    return [str(r.param("q")) for r in emu.requests_for("brave")]


def test_batch_result_is_a_list_with_ok_errors_and_a_frame(emu: Emulator) -> None:
    emu.fail("brave", "401", times=None)
    failed = hn.search_many(["a"], progress=False)
    emu.clear_faults()
    result = hn.search_many(["alpha", "beta", "gamma"], limit=2, progress=False)
    assert isinstance(result, list) and [r.query for r in result] == ["alpha", "beta", "gamma"]
    assert len(result.ok) == 3 and result.errors == []
    assert failed.errors[0].code == "PROVIDER_AUTH_FAILED" and failed.ok == []
    frame = result.to_pandas()
    assert list(frame.columns) == batch.SEARCH_COLUMNS and len(frame) == 6
    assert repr(result) == "BatchResult(3 item(s), 0 error(s))"


def test_per_call_cache_flags_reach_every_item(emu: Emulator) -> None:
    hn.search_many(["one", "two"], progress=False)
    assert all(r.cached for r in hn.search_many(["one", "two"], progress=False))
    assert not any(r.cached for r in hn.search_many(["one", "two"], progress=False, no_cache=True))
    assert not any(r.cached for r in hn.search_many(["one", "two"], progress=False, refresh=True))
    assert len(_queries(emu)) == 6


class KilledAfter(ThreadPoolExecutor):
    """An executor that dies (KeyboardInterrupt) at its ``n + 1``-th submission, like a kernel interrupt."""

    def __init__(self, n: int) -> None:
        super().__init__(1)
        self.left = n

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        if self.left == 0:
            raise KeyboardInterrupt
        self.left -= 1
        return super().submit(fn, *args, **kwargs)


def test_killed_batch_resumes_without_requesting_finished_items_again(emu: Emulator) -> None:
    queries = [f"query {i}" for i in range(6)]
    pool = KilledAfter(3)
    with pytest.raises(KeyboardInterrupt):
        hn.search_many(queries, job="kill", executor=pool, concurrency=1, progress=False, no_cache=True)
    pool.shutdown()
    assert _queries(emu) == queries[:3]
    resumed = hn.search_many(queries, job="kill", progress=False, no_cache=True)
    assert [r.query for r in resumed] == queries and not resumed.errors
    assert sorted(_queries(emu)) == sorted(queries)  # every query requested exactly once


def test_rate_limit_spaces_starts_on_a_fake_clock() -> None:
    now = [0.0]
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(round(seconds, 6))
        now[0] += seconds

    limit = RateLimit(2.0, clock=lambda: now[0], sleep=sleep)
    for _ in range(4):
        limit.acquire()
    assert waits == [0.5, 0.5]  # a burst of two, then one start every half second
    unlimited = RateLimit(None, clock=lambda: now[0], sleep=sleep)
    unlimited.acquire()
    assert waits == [0.5, 0.5]


def test_limits_come_from_config(hermetic: Path) -> None:
    assert limits_for("brave", 8)[1] == 8
    config.set("batch.brave.in_flight", 2)
    config.set("batch.brave.rps", 5)
    rate, bound = limits_for("brave", 8)
    assert bound == 2 and rate.rps == 5.0
    config.set("batch.brave.rps", -1)
    with pytest.raises(errors.InvalidInputError, match=r"batch\.brave\.rps"):
        limits_for("brave", 8)


def test_in_flight_cap_bounds_a_real_batch(emu: Emulator) -> None:
    config.set("batch.brave.in_flight", 1)
    config.set("batch.brave.rps", 1000)
    result = hn.search_many([f"q{i}" for i in range(5)], concurrency=8, progress=False)
    assert len(result.ok) == 5 and _queries(emu) == [f"q{i}" for i in range(5)]  # one at a time: in order
