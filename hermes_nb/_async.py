"""Run coroutines from sync code, also inside Jupyter's running event loop."""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")

_pool: concurrent.futures.ThreadPoolExecutor | None = None


def _executor() -> concurrent.futures.ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = concurrent.futures.ThreadPoolExecutor(max_workers=8, thread_name_prefix="hermes_nb-async")
    return _pool


def in_running_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def run_sync(awaitable: Awaitable[T], *, timeout: float | None = None) -> T:
    """Block until ``awaitable`` finishes; uses a worker thread when a loop already runs here."""

    async def _wrap() -> T:
        if timeout is None:
            return await awaitable
        return await asyncio.wait_for(awaitable, timeout)

    if not in_running_loop():
        return asyncio.run(_wrap())
    future = _executor().submit(asyncio.run, _wrap())
    return future.result()


def call_maybe_async(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call ``func``; if it is ``async def`` (or returns an awaitable), wait for the result."""
    result = func(*args, **kwargs)
    if inspect.isawaitable(result):
        return run_sync(result)
    return result


async def acall_maybe_async(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Async twin of ``call_maybe_async``: sync functions run in a thread, coroutines are awaited."""
    if inspect.iscoroutinefunction(func):
        return await func(*args, **kwargs)
    result = await asyncio.to_thread(func, *args, **kwargs)
    if inspect.isawaitable(result):
        return await result
    return result
