"""Adaptive per-provider rate limits: one limiter per provider, shared by every call in the process.

Every request of a provider's shared client (``get_client``) takes a start slot from that
provider's ``AdaptiveLimit``, whatever called it: a single ``hn.search``, a thread of a batch, a
task on an event loop. The limit's ceiling is, first found: ``batch.<name>.rps`` (configured: the
user's plan), the rate the vendor's own headers announced (``RateLimit-Policy``), the rate the
vendor documents (``DOCUMENTED_RPS``); with none, requests start unpaced until a throttle.

A throttled answer (HTTP 429, or a vendor error mapped to ``PROVIDER_RATE_LIMITED``) is a signal:

* multiplicative decrease: the rate becomes ``DECREASE`` × the lower of the current rate and the
  rate measured over the last second, at most once per ``DECREASE_EVERY_S``; answers to requests
  sent before that decrease are stale and do not decrease it again;
* the wait the server asks for (``Retry-After``, ``retry-after-ms``, or the vendor's
  ``x-ratelimit-remaining: 0`` with its ``x-ratelimit-reset``) holds every new request of the
  provider until it has passed (capped at ``RETRY_AFTER_CAP``);
* additive increase: afterwards the rate grows by ``RECOVERY`` × the ceiling (or the rate it was
  throttled at) each second, back to the ceiling; without a ceiling the limit is lifted once it
  reaches twice the throttled rate.

Slots are spaced ``1 / rate`` apart (a burst of one), so no second starts more than ``rate`` + 1
requests. Clocks are injectable; nothing here sleeps: ``reserve`` says how long to wait.
"""

from __future__ import annotations

import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from hermes_nb import config
from hermes_nb._state import on_reset

__all__ = [
    "DECREASE",
    "DECREASE_EVERY_S",
    "DOCUMENTED_RPS",
    "MIN_RPS",
    "RECOVERY",
    "AdaptiveLimit",
    "LimitState",
    "limit_for",
    "limits",
    "prepaid_slot",
    "take_prepaid",
    "vendor_wait",
]

#: Requests per second the vendors document for their APIs (see the README's provider table).
#: Plan-dependent limits (Brave, Firecrawl, Jina) are left out: the vendor's headers and 429s tell.
DOCUMENTED_RPS: dict[str, float] = {
    "exa": 10.0,  # /search: 10 requests per second
    "parallel": 10.0,  # 600 requests per minute for search and extract
    "keenable": 10.0,  # public endpoints: 10 per second per IP
}
#: The rate after a throttle: this share of the lower of the current and the measured rate.
DECREASE = 0.7
#: Throttles closer together than this count once (one decrease per round of answers).
DECREASE_EVERY_S = 1.0
#: Additive increase: this share of the ceiling (or the throttled rate) is added back each second.
RECOVERY = 0.1
#: The rate never falls below this (requests per second); holds still apply on top.
MIN_RPS = 0.2
#: The longest hold a server's wait can impose on new requests (seconds).
RETRY_AFTER_CAP = 30.0

_WINDOW_S = 1.0  # the rate measured over the last second of starts
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h)")
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


@dataclass(frozen=True)
class LimitState:
    """What one provider's limiter does now (``hn.batch.limits()``).

    ``rate``: requests per second it lets start now (``None``: unpaced); ``ceiling`` and
    ``ceiling_source`` (``configured``, ``vendor headers``, ``documented`` or ``None``);
    ``tokens``: starts available at once (0 or 1, a burst of one); ``held_s``: seconds every new
    request still waits for a server-requested pause; ``backoffs``: decreases so far;
    ``throttled``: throttled answers seen; ``last_429``: wall-clock time of the last one;
    ``requests``: starts granted.
    """

    provider: str
    rate: float | None
    ceiling: float | None
    ceiling_source: str | None
    tokens: float
    held_s: float
    backoffs: int
    throttled: int
    last_429: float | None
    requests: int

    def summary(self) -> str:
        """One short line: the rate, and the backoffs when there were any."""
        rate = "unpaced" if self.rate is None else f"{self.rate:.3g}/s"
        if self.ceiling is not None and self.rate != self.ceiling:
            rate += f" of {self.ceiling:.3g}/s"
        text = f"{self.provider} {rate}"
        if self.throttled:
            text += f", {self.throttled}×429, {self.backoffs} backoff(s)"
        if self.held_s > 0:
            text += f", held {self.held_s:.1f}s"
        return text


def _duration(text: str) -> float | None:
    """Seconds in ``"1"``, ``"1.5"``, ``"20ms"``, ``"6m0s"`` (OpenAI's reset format), else None."""
    text = text.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    parts = _DURATION.findall(text)
    if not parts or "".join(a + b for a, b in parts) != text.replace(" ", ""):
        return None
    return sum(float(amount) * _UNITS[unit] for amount, unit in parts)


def _values(headers: Mapping[str, str], name: str) -> list[str]:
    raw = headers.get(name)
    return [part.strip() for part in raw.split(",")] if raw else []


def vendor_wait(headers: Mapping[str, str], *, now_wall: float | None = None) -> float | None:
    """Seconds until a window the vendor reports empty (``x-ratelimit-remaining: 0``) resets.

    Reads the comma-separated pairs Brave sends (``x-ratelimit-remaining: 0, 14000`` with
    ``x-ratelimit-reset: 1, 2592000``) and OpenAI's ``-requests`` / ``-tokens`` pairs (reset
    ``"1s"``, ``"6m0s"``). A reset beyond ``RETRY_AFTER_CAP`` is a quota, not a rate: not a wait.
    """
    waits: list[float] = []
    for suffix in ("", "-requests", "-tokens"):
        remaining = _values(headers, f"x-ratelimit-remaining{suffix}")
        resets = _values(headers, f"x-ratelimit-reset{suffix}")
        for left, reset in zip(remaining, resets, strict=False):
            if left not in ("0", "0.0"):
                continue
            seconds = _duration(reset)
            if seconds is not None and seconds > 1e9:  # an epoch timestamp, not seconds
                seconds -= time.time() if now_wall is None else now_wall
            if seconds is not None and 0 <= seconds <= RETRY_AFTER_CAP:
                waits.append(seconds)
    return max(waits) if waits else None


def _policy_rate(headers: Mapping[str, str]) -> float | None:
    """Requests per second of the shortest window in ``RateLimit-Policy: 1;w=1, 15000;w=2592000``."""
    best: tuple[float, float] | None = None
    for name in ("x-ratelimit-policy", "ratelimit-policy"):
        for item in _values(headers, name):
            fields = [f.strip() for f in item.split(";")]
            window = next((f[2:] for f in fields if f.startswith("w=")), None)
            try:
                quota, seconds = float(fields[0]), float(window) if window is not None else None
            except ValueError:
                continue
            if seconds is not None and seconds > 0 and quota > 0 and (best is None or seconds < best[0]):
                best = (seconds, quota / seconds)
    return None if best is None else best[1]


class AdaptiveLimit:
    """One provider's start slots: a token bucket whose rate follows the provider's throttles."""

    def __init__(
        self,
        provider: str,
        *,
        configured: Callable[[], float | None] = lambda: None,
        documented: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self.provider = provider
        self._configured = configured
        self._documented = documented
        self._learned: float | None = None
        self._clock = clock
        self._wall = wall_clock
        self._lock = threading.Lock()
        self._next = clock()  # the earliest start of the next slot
        self._hold_until = 0.0
        self._base: float | None = None  # the rate set by the last decrease (None: none in force)
        self._peak = 0.0  # the rate that was throttled
        self._decreased_at = float("-inf")
        self._starts: deque[float] = deque()
        self.backoffs = 0
        self.throttled = 0
        self.last_429: float | None = None
        self.requests = 0

    # -- the ceiling and the current rate ---------------------------------------------------
    def ceiling(self) -> tuple[float | None, str | None]:
        """The highest rate allowed and where it comes from."""
        configured = self._configured()
        if configured:
            return configured, "configured"
        if self._learned:
            return self._learned, "vendor headers"
        if self._documented:
            return self._documented, "documented"
        return None, None

    def _rate(self, now: float, ceiling: float | None) -> float | None:
        if self._base is None:
            return ceiling
        grown = self._base + RECOVERY * (ceiling or self._peak) * (now - self._decreased_at)
        if ceiling is not None and grown >= ceiling:
            self._base = None  # recovered
            return ceiling
        if ceiling is None and grown >= 2 * self._peak:
            self._base = None  # no ceiling: unpaced again, until the next throttle
            return None
        return grown

    def _measured(self, now: float) -> float:
        while self._starts and self._starts[0] <= now - _WINDOW_S:
            self._starts.popleft()
        return len(self._starts) / _WINDOW_S

    # -- slots --------------------------------------------------------------------------------
    def reserve(self, *, hold: bool = True) -> tuple[float, float]:
        """Take the next start slot: ``(seconds to wait, the slot's time)``.

        ``hold=False``: the retry of the throttled request itself, which already waited the
        server's delay; it is paced, but not held a second time.
        """
        with self._lock:
            now = self._clock()
            rate = self._rate(now, self.ceiling()[0])
            start = max(now, self._hold_until if hold else now, self._next if rate is not None else now)
            self._next = start + (1.0 / rate if rate is not None else 0.0)
            self._starts.append(start)
            self._measured(now)
            self.requests += 1
            return start - now, start

    def give_back(self, slot: float) -> None:
        """Return a slot that will not be used (its caller gave up before it came)."""
        with self._lock:
            now = self._clock()
            rate = self._rate(now, self.ceiling()[0])
            if rate is not None and abs(self._next - (slot + 1.0 / rate)) < 1e-9:
                self._next = max(now, slot)
            if slot in self._starts:
                self._starts.remove(slot)
            self.requests -= 1

    # -- signals ------------------------------------------------------------------------------
    def on_throttle(
        self, started: float, wait: float | None, headers: Mapping[str, str] | None = None
    ) -> None:
        """A throttled answer to the request that started at ``started``; ``wait``: the server's delay."""
        headers = headers or {}
        with self._lock:
            now = self._clock()
            self.throttled += 1
            self.last_429 = self._wall()
            learned = _policy_rate(headers)
            if learned:
                self._learned = learned
            if wait is None:
                wait = vendor_wait(headers, now_wall=self.last_429)
            if started < self._decreased_at:
                return  # sent before the last decrease: that decrease already answered it
            if wait is not None:
                self._hold_until = max(self._hold_until, now + min(wait, RETRY_AFTER_CAP))
            if now - self._decreased_at < DECREASE_EVERY_S:
                return  # the same round of answers: one decrease
            ceiling = self.ceiling()[0]
            current = self._rate(now, ceiling)
            measured = self._measured(now)
            base = measured if current is None else min(current, measured or current)
            self._peak = max(base, MIN_RPS)
            self._base = max(MIN_RPS, DECREASE * base)
            self._decreased_at = now
            self.backoffs += 1
            self._next = max(self._next, now)

    def state(self) -> LimitState:
        """A snapshot of this limiter (see ``LimitState``)."""
        with self._lock:
            now = self._clock()
            ceiling, source = self.ceiling()
            rate = self._rate(now, ceiling)
            free = rate is None or self._next <= now
            return LimitState(
                provider=self.provider,
                rate=rate,
                ceiling=ceiling,
                ceiling_source=source,
                tokens=1.0 if free and now >= self._hold_until else 0.0,
                held_s=max(0.0, self._hold_until - now),
                backoffs=self.backoffs,
                throttled=self.throttled,
                last_429=self.last_429,
                requests=self.requests,
            )


# -- slots taken ahead of the call (batches) -------------------------------------------------------
_prepaid: ContextVar[tuple[str, float] | None] = ContextVar("hermes_nb_prepaid_slot", default=None)


@contextmanager
def prepaid_slot(provider: str | None, slot: float | None) -> Iterator[None]:
    """The first request of ``provider`` in this block uses ``slot`` instead of taking one.

    A batch takes each item's slot before the item starts, so that waiting for the limiter does
    not count against the provider call's deadline.
    """
    if provider is None or slot is None:
        yield
        return
    token = _prepaid.set((provider, slot))
    try:
        yield
    finally:
        _prepaid.reset(token)


def take_prepaid(provider: str) -> float | None:
    """The slot paid ahead for ``provider`` in this context (once), else None."""
    held = _prepaid.get()
    if held is None or held[0] != provider:
        return None
    _prepaid.set(None)
    return held[1]


# -- the process's limiters -----------------------------------------------------------------------
_lock = threading.Lock()
_limits: dict[str, AdaptiveLimit] = {}


def _configured_rps(provider: str) -> Callable[[], float | None]:
    key = f"batch.{provider}.rps"

    def read() -> float | None:
        value: Any = config.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            return None  # batch.limits refuses a bad value with its own message
        return float(value)

    return read


def limit_for(provider: str) -> AdaptiveLimit:
    """The process's limiter of ``provider`` (created on first use)."""
    with _lock:
        limit = _limits.get(provider)
        if limit is None:
            limit = _limits[provider] = AdaptiveLimit(
                provider, configured=_configured_rps(provider), documented=DOCUMENTED_RPS.get(provider)
            )
        return limit


def limits() -> dict[str, LimitState]:
    """The state of every provider's limiter used so far in this process, by provider name."""
    with _lock:
        current = list(_limits.values())
    return {limit.provider: limit.state() for limit in current}


@on_reset
def _reset() -> None:
    with _lock:
        _limits.clear()
