"""An asynchronous vendor job: submitted once, polled with backoff until final, cancelled at the deadline.

Image (and video) APIs answer a submit with a ticket and finish the work later. Every such provider
waits the same way, so the rules live here once:

- one deadline for the whole job, the submit included (create the ``PolledJob`` just before submitting);
- between polls the wait grows (``Backoff``: start, ×factor, capped) and never sleeps past the deadline;
- each poll request gets at least ``MIN_POLL_TIMEOUT_S`` (the SDK's own deadline bounds the call);
- at the deadline the job is cancelled once (best effort, when the vendor can) and ``TIMEOUT`` is raised
  naming the setting that raises it;
- the clock and the sleep are injectable: tests pass a fake clock and never sleep.

    job = PolledJob("bfl", "BFL task", timeout_s=120, backoff=Backoff(0.5, 1.5, 2.0))
    ticket = submit()                       # the provider's own request, sent once
    result = job.wait(poll, outcome)        # whatever ``outcome`` returns for the final answer
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from hermes_nb.errors import HermesError, TimeoutError_
from hermes_nb.progress import progress

__all__ = ["MIN_POLL_TIMEOUT_S", "MAX_POLL_TIMEOUT_S", "Backoff", "PolledJob", "Poll"]

log = logging.getLogger(__name__)

#: The least time one poll request of an asynchronous job gets, whatever is left of the provider's
#: own deadline: the SDK's deadline (``image_gen.timeout`` plus grace) bounds the whole call anyway.
MIN_POLL_TIMEOUT_S = 5.0
#: The most time one poll request gets: a poll that hangs longer is retried by the next one.
MAX_POLL_TIMEOUT_S = 30.0

A = TypeVar("A")  # one poll's answer
R = TypeVar("R")  # what the job yields once final
A_co = TypeVar("A_co", covariant=True)


class Poll(Protocol[A_co]):
    """One status request: ``timeout`` for the request, ``deadline`` for it with its retries."""

    def __call__(self, *, timeout: float, deadline: float) -> A_co: ...


@dataclass(frozen=True)
class Backoff:
    """The wait between polls: ``start`` seconds, multiplied by ``factor`` each time, at most ``cap``."""

    start: float = 0.5
    factor: float = 1.5
    cap: float = 2.0


class PolledJob:
    """The wait for one job of ``provider`` (``what`` names it in messages), within ``timeout_s``."""

    #: Time and sleep of every job unless one is given ``clock=`` / ``sleep=``; tests replace these
    #: class attributes with a fake clock (``tests/fixtures/clocks.py``), so polling never sleeps there.
    default_clock: Callable[[], float] = staticmethod(time.monotonic)
    default_sleep: Callable[[float], None] = staticmethod(time.sleep)

    def __init__(
        self,
        provider: str,
        what: str,
        *,
        timeout_s: float,
        setting: str = "image_gen.timeout",
        backoff: Backoff = Backoff(),
        clock: Callable[[], float] | None = None,
        sleep: Callable[[float], None] | None = None,
        label: str = "",
    ) -> None:
        self.provider, self.what, self.timeout_s, self.setting = provider, what, timeout_s, setting
        self.backoff, self.label = backoff, label or provider
        self._clock = clock or self.default_clock
        self._sleep = sleep or self.default_sleep
        self.started = self._clock()

    def left(self) -> float:
        """Seconds left before the deadline (negative once it has passed)."""
        return self.timeout_s - (self._clock() - self.started)

    def wait(
        self,
        poll: Poll[A],
        outcome: Callable[[A], R | None],
        *,
        cancel: Callable[[], object] | None = None,
        first: A | None = None,
    ) -> R:
        """Poll until ``outcome(answer)`` is not ``None`` and return it.

        ``outcome`` raises for a failed job. ``first`` is an answer already in hand (a submit that
        waits, like Replicate's ``Prefer: wait``): it is judged before any poll. ``cancel`` is
        called once when the deadline passes; its own failure is logged, the timeout is raised.
        """
        interval = self.backoff.start
        with progress(None, self.label) as bar:
            answer = first if first is not None else self._poll(poll, cancel, bar)
            while (final := outcome(answer)) is None:
                left = self.left()
                if left > 0:
                    self._sleep(min(interval, left))
                interval = min(interval * self.backoff.factor, self.backoff.cap)
                answer = self._poll(poll, cancel, bar)
            return final

    def _poll(self, poll: Poll[A], cancel: Callable[[], object] | None, bar: Any) -> A:
        """One poll with what is left of the deadline (at least ``MIN_POLL_TIMEOUT_S``), or the timeout."""
        left = self.left()
        if left <= 0:
            raise self._timed_out(cancel)
        answer = poll(
            timeout=max(MIN_POLL_TIMEOUT_S, min(left, MAX_POLL_TIMEOUT_S)),
            deadline=max(MIN_POLL_TIMEOUT_S, left),
        )
        bar.update()
        return answer

    def _timed_out(self, cancel: Callable[[], object] | None) -> TimeoutError_:
        cancelled = ""
        if cancel is not None:
            try:
                cancel()
                cancelled = " (cancelled)"
            except HermesError as exc:  # best effort: the timeout is what the user needs to hear about
                log.info("%s: could not cancel the %s: %s", self.provider, self.what, exc)
        suggested = max(300.0, 2 * self.timeout_s)
        return TimeoutError_(
            f"{self.what} did not finish within {self.setting}={self.timeout_s:g}s{cancelled}; raise it "
            f'with hn.config.set("{self.setting}", {suggested:g}) or try again later',
            provider=self.provider,
            details={"deadline_s": self.timeout_s, "config_key": self.setting},
        )
