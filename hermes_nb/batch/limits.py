"""Per-provider batch rate limits from config: requests per second and requests in flight.

``batch.<provider>.rps`` spaces the start of items (a token bucket of one second's burst);
``batch.<provider>.in_flight`` lowers the batch's concurrency. Both apply on the submitting side,
so they hold for any executor, a Dask cluster's included.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from hermes_nb import config
from hermes_nb.errors import InvalidInputError

__all__ = ["RateLimit", "limits_for"]


class RateLimit:
    """At most ``rps`` starts per second (``None``: unlimited); ``clock``/``sleep`` are injectable."""

    def __init__(
        self,
        rps: float | None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.rps = rps
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._tokens = float(rps or 0.0)
        self._last = clock()

    def acquire(self) -> None:
        """Wait until one more start is allowed."""
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
    limit = RateLimit(_positive(f"batch.{provider}.rps"))
    return limit, min(concurrency, int(in_flight)) if in_flight else concurrency
