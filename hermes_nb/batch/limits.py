"""Per-provider batch rate limits: requests per second and requests in flight.

``batch.<provider>.rps`` spaces the start of items; ``batch.<provider>.in_flight`` lowers the
batch's concurrency. Both apply on the submitting side, so they hold for any executor, a Dask
cluster's included. When the batch's own threads or tasks run the items, each start takes its slot
from the provider's process-wide adaptive limiter (``hermes_nb.net.rate_limits``: the configured
rate is its ceiling, and it slows down when the provider answers 429); the item's first request
then uses that slot, so waiting for the limiter never eats into the call's own deadline.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

from hermes_nb import config
from hermes_nb.errors import HermesError, InvalidInputError
from hermes_nb.net import rate_limits
from hermes_nb.net.rate_limits import LimitState
from hermes_nb.plugins.registry import normalize_name
from hermes_nb.store.replay import Mode

__all__ = ["RateLimit", "limits", "limits_for"]


class RateLimit:
    """At most ``rps`` starts per second (``None``: unlimited); ``clock``/``sleep`` are injectable.

    With ``provider``, ``take_slot`` / ``atake_slot`` use that provider's shared adaptive limiter
    instead (its ceiling is the same ``batch.<provider>.rps``).
    """

    def __init__(
        self,
        rps: float | None,
        *,
        provider: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.rps = rps
        self.provider = provider
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._tokens = float(rps or 0.0)
        self._last = clock()

    def acquire(self) -> None:
        """Wait until one more start is allowed (this batch's own bucket: for executors)."""
        if not self.rps:
            return
        with self._lock:
            while True:
                now = self._clock()
                self._tokens = min(float(self.rps), self._tokens + (now - self._last) * self.rps)
                self._last = now
                if self._tokens >= 1.0:
                    self._tokens -= 1.0
                    return
                self._sleep((1.0 - self._tokens) / self.rps)

    def take_slot(self) -> float | None:
        """Wait for the provider's next start slot and return its time (None: no provider)."""
        if self.provider is None:
            self.acquire()
            return None
        wait, slot = rate_limits.limit_for(self.provider).reserve()
        if wait > 0:
            self._sleep(wait)
        return slot

    async def atake_slot(self) -> float | None:
        """Async twin of ``take_slot``: the event loop goes on while this task waits."""
        if self.provider is None:
            if self.rps:
                await asyncio.to_thread(self.acquire)
            return None
        wait, slot = rate_limits.limit_for(self.provider).reserve()
        if wait > 0:
            await asyncio.sleep(wait)
        return slot


def _positive(key: str) -> float | None:
    value = config.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise InvalidInputError(f"{key} must be a positive number, got {value!r}")
    return float(value)


def limits_for(provider: str | None, concurrency: int) -> tuple[RateLimit, int]:
    """The rate limit of ``provider`` and the concurrency its ``in_flight`` cap leaves."""
    if not provider:
        return RateLimit(None), concurrency
    in_flight = _positive(f"batch.{provider}.in_flight")
    limit = RateLimit(_positive(f"batch.{provider}.rps"), provider=provider)
    return limit, min(concurrency, int(in_flight)) if in_flight else concurrency


def provider_limits(
    resolve: Callable[[], Any],
    concurrency: int,
    mode: Mode,
    unresolved: Callable[[], str | None] = lambda: None,
) -> tuple[RateLimit, int]:
    """``limits_for`` the provider ``resolve()`` returns, by its own name (an alias resolved: the name
    its HTTP client and limiter are keyed by); none while replaying. When it cannot be resolved, every
    item will report why, and the limits are those of ``unresolved()``'s name (none by default)."""
    if not mode.calls:
        return RateLimit(None), concurrency
    try:
        name: str | None = normalize_name(resolve().name)
    except HermesError:
        name = unresolved()
    return limits_for(name, concurrency)


def limits() -> dict[str, LimitState]:
    """Every provider's adaptive rate limiter in this process: rate, tokens, backoffs, last 429.

    One limiter per provider is shared by every batch and single call; see
    ``hermes_nb.net.rate_limits`` for how it backs off and recovers.
    """
    return rate_limits.limits()
