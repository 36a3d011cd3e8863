"""Adaptive per-provider rate limits on a fake clock: ceilings, AIMD, holds, vendor headers, sharing."""

from __future__ import annotations

import asyncio
import random
import threading
from pathlib import Path

import httpx
import pytest

import hermes_nb as hn
from hermes_nb import config
from hermes_nb.errors import RateLimitedError
from hermes_nb.net import rate_limits
from hermes_nb.net.http_client import HttpClient, get_client
from hermes_nb.net.rate_limits import (
    DECREASE,
    DECREASE_EVERY_S,
    MIN_RPS,
    RECOVERY,
    AdaptiveLimit,
    prepaid_slot,
    vendor_wait,
)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    async def asleep(self, seconds: float) -> None:
        self.sleep(seconds)


def limiter(clock: Clock, *, configured: float | None = None, documented: float | None = None
            ) -> AdaptiveLimit:  # fmt: skip
    return AdaptiveLimit("p", configured=lambda: configured, documented=documented, clock=clock,
                         wall_clock=lambda: 1_700_000_000.0)  # fmt: skip


def waits(limit: AdaptiveLimit, n: int) -> list[float]:
    return [round(limit.reserve()[0], 6) for _ in range(n)]


def test_without_a_ceiling_requests_start_unpaced() -> None:
    clock = Clock()
    limit = limiter(clock)
    assert waits(limit, 5) == [0.0] * 5
    state = limit.state()
    assert state.rate is None and state.ceiling is None and state.requests == 5 and state.tokens == 1.0


def test_the_ceiling_spaces_starts_and_its_source_is_named() -> None:
    clock = Clock()
    assert limiter(clock, documented=10).ceiling() == (10, "documented")
    assert limiter(clock, configured=4, documented=10).ceiling() == (4, "configured")
    limit = limiter(clock, configured=4)
    assert waits(limit, 4) == [0.0, 0.25, 0.5, 0.75]  # a burst of one, then one start per 1/rate
    assert limit.state().tokens == 0.0
    clock.now += 10  # idle time gives back one slot, not a burst
    assert waits(limit, 2) == [0.0, 0.25]


def test_a_throttle_halves_the_rate_holds_for_retry_after_and_recovers_additively() -> None:
    clock = Clock()
    limit = limiter(clock, configured=10)
    for _ in range(10):  # one second at the ceiling: the measured rate is 10/s
        _, slot = limit.reserve()
        clock.now = slot
    limit.on_throttle(slot, 2.0)
    state = limit.state()
    assert state.rate == pytest.approx(10 * DECREASE) and state.backoffs == 1 and state.throttled == 1
    assert state.held_s == pytest.approx(2.0) and state.last_429 == 1_700_000_000.0
    wait, _ = limit.reserve()
    assert wait == pytest.approx(2.0)  # every new request waits for the server's pause
    # an answer to a request sent before that decrease is stale: counted, not decreased again
    limit.on_throttle(slot - 0.5, None)
    assert limit.state().backoffs == 1 and limit.state().throttled == 2
    clock.now += 1.0
    assert limit.state().rate == pytest.approx(10 * DECREASE + RECOVERY * 10 * 1.0)
    clock.now += 10.0
    assert limit.state().rate == 10  # back at the ceiling, never above it


def test_repeated_throttles_never_go_below_the_floor() -> None:
    clock = Clock()
    limit = limiter(clock, configured=1)
    for _ in range(20):  # throttled every second
        clock.now += DECREASE_EVERY_S
        _, slot = limit.reserve()
        limit.on_throttle(slot, None)
        assert limit.state().rate >= MIN_RPS
    state = limit.state()
    assert state.rate < 0.5 and state.backoffs == 20
    limit.on_throttle(slot, 3.0)  # a second throttle in the same round: the hold, not another decrease
    assert limit.state().backoffs == 20 and limit.state().held_s == 3.0


def test_without_a_ceiling_a_throttle_paces_until_twice_the_throttled_rate() -> None:
    clock = Clock()
    limit = limiter(clock)
    for _ in range(20):  # 20 starts within the last second
        limit.reserve()
        clock.now += 0.05
    limit.on_throttle(clock.now - 0.01, None)
    assert limit.state().rate == pytest.approx(20 * DECREASE)
    clock.now += (2 * 20 - 20 * DECREASE) / (RECOVERY * 20) + 0.01
    assert limit.state().rate is None  # unpaced again


def test_vendor_headers_give_the_wait_and_the_rate() -> None:
    brave = {"x-ratelimit-remaining": "0, 14000", "x-ratelimit-reset": "1, 2592000"}
    assert vendor_wait(brave) == 1.0
    assert vendor_wait({"x-ratelimit-remaining": "3, 14000", "x-ratelimit-reset": "1, 2592000"}) is None
    openai = {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1m30s"}
    assert vendor_wait(openai) is None  # beyond the cap: a quota, not a wait
    assert vendor_wait({"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "20ms"}) == 0.02
    epoch = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1700000005"}
    assert vendor_wait(epoch, now_wall=1_700_000_000.0) == pytest.approx(5.0)
    assert vendor_wait({"x-ratelimit-remaining": "0", "x-ratelimit-reset": "soon"}) is None

    clock = Clock()
    limit = limiter(clock)
    _, slot = limit.reserve()
    limit.on_throttle(slot, None, {**brave, "x-ratelimit-policy": "1;w=1, 15000;w=2592000"})
    state = limit.state()
    assert (state.ceiling, state.ceiling_source) == (1.0, "vendor headers") and state.held_s == 1.0


def test_slots_from_many_threads_are_distinct_and_spaced() -> None:
    clock = Clock()
    limit = limiter(clock, configured=50)
    slots: list[float] = []
    lock = threading.Lock()

    def take() -> None:
        for _ in range(25):
            _, slot = limit.reserve()
            with lock:
                slots.append(slot)

    threads = [threading.Thread(target=take) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ordered = sorted(slots)
    assert len(set(ordered)) == 200
    assert all(b - a == pytest.approx(0.02) for a, b in zip(ordered, ordered[1:], strict=False))


# -- on the shared HTTP client ----------------------------------------------------------------------


def client_with(handler, clock: Clock, limit: AdaptiveLimit) -> HttpClient:
    return HttpClient("p", transport=httpx.MockTransport(handler), clock=clock, sleep=clock.sleep,
                      asleep=clock.asleep, rng=random.Random(3), adaptive=limit)  # fmt: skip


def test_a_429_slows_every_later_request_of_the_provider() -> None:
    clock = Clock()
    limit = limiter(clock, configured=10)
    answers = iter([429] + [200] * 5)

    def handler(request: httpx.Request) -> httpx.Response:
        status = next(answers)
        return httpx.Response(status, json={}, headers={"Retry-After": "1"} if status == 429 else {})

    client = client_with(handler, clock, limit)
    client.get_json("https://api.test/")  # 429, waits the server's 1 s, then succeeds
    assert limit.state().backoffs == 1 and clock.sleeps[0] == pytest.approx(1.0)
    start = clock.now
    for _ in range(4):
        client.get_json("https://api.test/")
    assert clock.now - start >= 3 / 10 - 1e-9  # paced by the lowered rate, not bursting


def test_a_quota_answer_is_not_a_rate_signal() -> None:
    clock = Clock()
    limit = limiter(clock)
    client = client_with(lambda request: httpx.Response(429, json={}), clock, limit)
    with pytest.raises(RateLimitedError):
        client.get_json("https://api.test/", error_map=lambda r: RateLimitedError("quota", retryable=False))
    assert limit.state().throttled == 0


def test_a_hold_past_the_deadline_is_a_rate_limit_error() -> None:
    clock = Clock()
    limit = limiter(clock, configured=0.01)  # one start every 100 s
    client = client_with(lambda request: httpx.Response(200, json={}), clock, limit)
    client.get_json("https://api.test/")
    with pytest.raises(RateLimitedError, match="adaptive rate limit") as info:
        client.get_json("https://api.test/", deadline=5)
    assert info.value.retryable and limit.state().requests == 1  # the unused slot was given back


def test_the_async_path_waits_on_the_same_limiter() -> None:
    clock = Clock()
    limit = limiter(clock, configured=4)
    client = client_with(lambda request: httpx.Response(200, json={}), clock, limit)

    async def three() -> None:
        for _ in range(3):
            await client.aget_json("https://api.test/")

    asyncio.run(three())
    assert clock.sleeps == [pytest.approx(0.25)] * 2 and limit.state().requests == 3


def test_a_prepaid_slot_is_used_once_by_the_first_request() -> None:
    clock = Clock()
    limit = limiter(clock, configured=1)
    _, slot = limit.reserve()
    client = client_with(lambda request: httpx.Response(200, json={}), clock, limit)
    with prepaid_slot("p", slot):
        client.get_json("https://api.test/")  # no second slot taken, no wait
        assert clock.sleeps == [] and limit.state().requests == 1
        client.get_json("https://api.test/")  # the next one takes its own
    assert clock.sleeps == [pytest.approx(1.0)] and limit.state().requests == 2


def test_one_limiter_per_provider_is_shared_and_listed(hermetic: Path) -> None:
    assert get_client("brave")._adaptive is rate_limits.limit_for("brave")
    config.set("batch.brave.rps", 3)
    state = hn.batch.limits()["brave"]
    assert (state.ceiling, state.ceiling_source, state.rate) == (3.0, "configured", 3.0)
    assert "brave 3/s" in state.summary()
    assert rate_limits.limit_for("exa").ceiling() == (10.0, "documented")
