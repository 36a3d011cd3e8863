"""PolledJob: poll with backoff until final, each poll given enough time, cancel once at the deadline."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from fixtures.clocks import FakeClock, fake_job_clock

from hermes_nb.errors import ProviderError, TimeoutError_
from hermes_nb.plugins.polled_job import MAX_POLL_TIMEOUT_S, MIN_POLL_TIMEOUT_S, Backoff, PolledJob


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    return fake_job_clock(monkeypatch)


class Vendor:
    """A job that is ``running`` for ``polls_needed`` polls, then ``done`` (or ``failed``)."""

    def __init__(self, polls_needed: int | None, final: str = "done") -> None:
        self.polls_needed, self.final = polls_needed, final
        self.polls: list[dict[str, float]] = []
        self.cancels = 0

    def poll(self, *, timeout: float, deadline: float) -> dict[str, Any]:
        self.polls.append({"timeout": timeout, "deadline": deadline})
        finished = self.polls_needed is not None and len(self.polls) >= self.polls_needed
        return {"state": self.final if finished else "running", "n": len(self.polls)}

    def cancel(self) -> None:
        self.cancels += 1


def outcome(answer: dict[str, Any]) -> dict[str, Any] | None:
    if answer["state"] == "failed":
        raise ProviderError("the vendor says the job failed", provider="vendor")
    return answer if answer["state"] == "done" else None


def test_success_returns_what_the_final_poll_yields_and_backs_off(clock: FakeClock) -> None:
    vendor = Vendor(polls_needed=6)
    job = PolledJob("vendor", "vendor job", timeout_s=120, backoff=Backoff(start=0.5, factor=2.0, cap=3.0))
    result = job.wait(vendor.poll, outcome, cancel=vendor.cancel)
    assert result == {"state": "done", "n": 6}
    assert clock.sleeps == [0.5, 1.0, 2.0, 3.0, 3.0]  # grows by the factor, held at the cap
    assert vendor.cancels == 0


def test_the_deadline_cancels_once_and_raises_timeout_naming_the_setting(clock: FakeClock) -> None:
    vendor = Vendor(polls_needed=None)
    backoff = Backoff(start=1, factor=2, cap=4)
    job = PolledJob("vendor", "vendor job", timeout_s=10, setting="video_gen.timeout", backoff=backoff)
    expected = r"vendor job did not finish within video_gen.timeout=10s \(cancelled\); raise it"
    with pytest.raises(TimeoutError_, match=expected):
        job.wait(vendor.poll, outcome, cancel=vendor.cancel)
    assert vendor.cancels == 1
    assert clock.now == pytest.approx(10.0)  # never slept past the deadline
    assert clock.sleeps[-1] < 4 and max(clock.sleeps) == 4  # the last wait is cut at the deadline
    assert len(vendor.polls) == len(clock.sleeps)  # no poll is sent once the time is up


def test_a_failure_state_raises_without_cancelling(clock: FakeClock) -> None:
    vendor = Vendor(polls_needed=2, final="failed")
    with pytest.raises(ProviderError, match="job failed"):
        PolledJob("vendor", "vendor job", timeout_s=60).wait(vendor.poll, outcome, cancel=vendor.cancel)
    assert vendor.cancels == 0 and len(vendor.polls) == 2


def test_every_poll_gets_at_least_the_minimum_and_at_most_the_cap(clock: FakeClock) -> None:
    vendor = Vendor(polls_needed=None)
    with pytest.raises(TimeoutError_):
        PolledJob("vendor", "job", timeout_s=40, backoff=Backoff(2, 1.5, 10)).wait(vendor.poll, outcome)
    timeouts = [p["timeout"] for p in vendor.polls]
    assert timeouts[0] == MAX_POLL_TIMEOUT_S  # 40 s left: capped
    assert min(timeouts) == MIN_POLL_TIMEOUT_S  # under a second left: still the minimum
    assert all(p["deadline"] >= MIN_POLL_TIMEOUT_S for p in vendor.polls)


def test_an_answer_in_hand_is_judged_before_any_poll(clock: FakeClock) -> None:
    vendor = Vendor(polls_needed=1)
    job = PolledJob("vendor", "job", timeout_s=60)
    assert job.wait(vendor.poll, outcome, first={"state": "done", "n": 0}) == {"state": "done", "n": 0}
    assert vendor.polls == [] and clock.sleeps == []
    # still running: it waits first, then polls
    assert job.wait(vendor.poll, outcome, first={"state": "running", "n": 0})["n"] == 1
    assert clock.sleeps == [0.5]


def test_a_poll_answering_none_is_judged_not_skipped(clock: FakeClock) -> None:
    answers = iter([None, None, "ready"])
    seen: list[Any] = []

    def judge(answer: str | None) -> str | None:
        seen.append(answer)
        return answer

    job = PolledJob("vendor", "job", timeout_s=60, backoff=Backoff(0.25, 1.5, 1.0))
    assert job.wait(lambda **_: next(answers), judge) == "ready"
    assert seen == [None, None, "ready"] and clock.sleeps == [0.25, 0.375]


def test_a_cancel_that_fails_is_logged_and_the_timeout_still_raised(
    clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    def cancel() -> None:
        raise ProviderError("cancel route is down", provider="vendor")

    with caplog.at_level(logging.INFO), pytest.raises(TimeoutError_) as info:
        PolledJob("vendor", "vendor job", timeout_s=3).wait(Vendor(None).poll, outcome, cancel=cancel)
    assert "(cancelled)" not in str(info.value) and info.value.provider == "vendor"
    assert "could not cancel the vendor job: cancel route is down" in caplog.text


def test_an_injected_clock_wins_over_the_default() -> None:
    now = [100.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    job = PolledJob("vendor", "job", timeout_s=5, clock=lambda: now[0], sleep=sleep)
    with pytest.raises(TimeoutError_):
        job.wait(Vendor(None).poll, outcome)
    assert sum(slept) == pytest.approx(5.0) and job.left() <= 0
