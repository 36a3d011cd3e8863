"""Deadlines on provider calls: a provider that does not answer in time fails with TIMEOUT naming it.

Every call of a provider's capability (``search``, ``extract``, ``crawl``, ``generate``), bundled or
plugin, sync or ``async def``, runs under a deadline. A synchronous call runs in a daemon thread of
its own (reused between calls, ``call_threads``) and the caller stops waiting at the deadline, so a
provider that sleeps or blocks never freezes the kernel. Its late answer lands in a future that
nobody reads any more: abandoned work cannot leak into a later result. The deadline comes from
configuration (``deadline_for``): ``web.deadline`` for search and extract, at least
``limit × web.timeout`` for a crawl, ``image_gen.timeout`` for images, plus ``GRACE_S`` so that a
provider's own, more precise timeout error is the one the user sees.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import inspect
from collections.abc import Callable
from typing import Any

from hermes_nb import config
from hermes_nb._async import call_maybe_async
from hermes_nb.errors import InvalidInputError, TimeoutError_
from hermes_nb.plugins.call_threads import run_in_thread

__all__ = ["GRACE_S", "Deadline", "deadline_for", "call_with_deadline", "acall_with_deadline"]

#: Seconds added to the configured deadline before the call is abandoned.
GRACE_S = 5.0

#: ``(seconds, the config key that sets them)``
Deadline = tuple[float, str]

_KEYS = {
    "search": ("web.deadline", 60.0),
    "extract": ("web.deadline", 60.0),
    "crawl": ("web.deadline", 60.0),
    "image": ("image_gen.timeout", 120.0),
    "video": ("video_gen.timeout", 600.0),
}


def _seconds(key: str, default: float) -> float:
    value = config.get(key, default)
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"config {key} = {value!r} is not a number of seconds; fix it with "
            f"hn.config.set({key!r}, {default:g}) or `hermes-nb config set {key} {default:g}`"
        ) from None
    if seconds <= 0:
        raise InvalidInputError(f"config {key} = {value!r} must be a positive number of seconds")
    return seconds


def deadline_for(capability: str, *, pages: int = 1) -> Deadline:
    """``(seconds, config key)`` a provider call of ``capability`` may take, grace included.

    A crawl of ``pages`` pages may take ``pages × web.timeout`` when that is longer than ``web.deadline``.
    """
    key, default = _KEYS[capability]
    seconds = _seconds(key, default)
    if capability == "crawl":
        seconds = max(seconds, pages * _seconds("web.timeout", 20.0))
    return seconds + GRACE_S, key


def _timeout(provider: str, what: str, seconds: float, key: str) -> TimeoutError_:
    return TimeoutError_(
        f"{provider}: {what} did not answer within {seconds:g}s and was abandoned (a late answer is "
        f"discarded). If the provider is only slow, raise {key}; otherwise choose another backend",
        provider=provider,
        details={"deadline_s": seconds, "config_key": key},
    )


def _start(func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], name: str) -> Any:
    """Run ``func`` (sync or async) in a pooled daemon thread; its outcome goes to the returned future."""
    future: concurrent.futures.Future[Any] = concurrent.futures.Future()
    context = contextvars.copy_context()  # the caller's context (config overrides, emulator) goes along

    def work() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            result = context.run(call_maybe_async, func, *args, **kwargs)
        except BaseException as exc:  # handed to the caller, whatever it is
            future.set_exception(exc)
        else:
            future.set_result(result)

    run_in_thread(work, name)
    return future


def call_with_deadline(
    deadline: Deadline, provider: str, func: Callable[..., Any], /, *args: Any, **kwargs: Any
) -> Any:
    """Call ``func(*args, **kwargs)``; past ``deadline`` (from ``deadline_for``) raise ``TimeoutError_``."""
    seconds, key = deadline
    what = getattr(func, "__name__", "the call")
    future = _start(func, args, kwargs, provider)
    try:
        return future.result(timeout=seconds)
    except concurrent.futures.TimeoutError:
        future.cancel()
        raise _timeout(provider, what, seconds, key) from None


async def acall_with_deadline(
    deadline: Deadline, provider: str, func: Callable[..., Any], /, *args: Any, **kwargs: Any
) -> Any:
    """Async twin of ``call_with_deadline``: the event loop is never blocked by a sync provider."""
    seconds, key = deadline
    what = getattr(func, "__name__", "the call")
    if inspect.iscoroutinefunction(func):
        task: asyncio.Future[Any] = asyncio.ensure_future(func(*args, **kwargs))
    else:
        task = asyncio.wrap_future(_start(func, args, kwargs, provider))
    done, _ = await asyncio.wait({task}, timeout=seconds)
    if not done:
        task.cancel()  # not awaited: a provider that ignores cancellation cannot hold the caller
        raise _timeout(provider, what, seconds, key)
    return task.result()
