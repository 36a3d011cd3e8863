"""Per-provider request limits: a token-bucket rate limiter and a thread- and loop-safe slot pool."""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Callable

__all__ = ["TokenBucket", "Slots"]


class TokenBucket:
    """Requests per second with a burst of ``burst``; reservations keep it fair across threads."""

    def __init__(self, rate: float, clock: Callable[[], float], burst: float = 1.0) -> None:
        self.rate = float(rate)
        self.burst = max(1.0, float(burst))
        self._clock = clock
        self._tokens = self.burst
        self._stamp: float | None = None
        self._lock = threading.Lock()

    def reserve(self) -> float:
        """Take a token; return the seconds to wait before using it."""
        with self._lock:
            now = self._clock()
            if self._stamp is not None:
                self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
            self._stamp = now
            self._tokens -= 1.0
            return 0.0 if self._tokens >= 0 else -self._tokens / self.rate

    def give_back(self) -> None:
        with self._lock:
            self._tokens = min(self.burst, self._tokens + 1.0)


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class Slots:
    """A FIFO counting semaphore usable from threads and from any event loop."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._used = 0
        self._lock = threading.Lock()
        self._waiters: deque[Callable[[], bool]] = deque()

    def _try_take(self) -> bool:
        if self._used < self.size and not self._waiters:
            self._used += 1
            return True
        return False

    def acquire(self, timeout: float) -> bool:
        event = threading.Event()
        state = {"granted": False, "gone": False}

        def wake() -> bool:
            if state["gone"]:
                return False
            state["granted"] = True
            event.set()
            return True

        with self._lock:
            if self._try_take():
                return True
            self._waiters.append(wake)
        event.wait(max(0.0, timeout))
        with self._lock:
            state["gone"] = not state["granted"]
            return state["granted"]

    async def aacquire(self, timeout: float) -> bool:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        state = {"granted": False, "gone": False}

        def wake() -> bool:
            if state["gone"]:
                return False
            try:
                loop.call_soon_threadsafe(_resolve, future)
            except RuntimeError:  # that loop is closed: hand the slot to the next waiter
                return False
            state["granted"] = True
            return True

        with self._lock:
            if self._try_take():
                return True
            self._waiters.append(wake)
        try:
            await asyncio.wait_for(asyncio.shield(future), max(0.0, timeout))
        except BaseException as exc:
            with self._lock:
                granted = state["granted"]
                state["gone"] = not granted
            if granted:
                self.release()
            if isinstance(exc, asyncio.TimeoutError):
                return False
            raise
        return True

    def release(self) -> None:
        with self._lock:
            while self._waiters:
                if self._waiters.popleft()():
                    return  # the slot passes straight to the woken waiter
            self._used = max(0, self._used - 1)
