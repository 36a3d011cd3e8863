"""The in-process event bus behind ``ctx.emit`` / ``ctx.subscribe``.

A plugin subscribes a callback to an event name (``"*"`` for every event) and receives one ``dict``:
the payload with ``event`` (the name) and ``source`` (the emitting plugin, or ``"hermes_nb"``) added.
Callbacks run synchronously in the emitter's thread, in subscription order; a coroutine is awaited
(in a worker thread when a loop already runs, as in Jupyter); a failing callback is logged and
skipped, never raised into the call that emitted. hermes_nb emits its own events (``EVENTS``).
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from hermes_nb._async import run_sync
from hermes_nb._state import on_reset
from hermes_nb.plugins.tool_registry import ensure_plugins_loaded
from hermes_nb.redaction import redact

__all__ = [
    "EVENTS",
    "ANY",
    "subscribe",
    "unsubscribe",
    "unsubscribe_owner",
    "emit",
    "subscriptions",
    "announces",
]

F = TypeVar("F", bound=Callable[..., Any])
_announcing: contextvars.ContextVar[bool] = contextvars.ContextVar("hermes_nb_announcing", default=False)

log = logging.getLogger(__name__)

ANY = "*"
#: what hermes_nb itself emits, and the payload keys of each
EVENTS: dict[str, tuple[str, ...]] = {
    "search_finished": ("query", "provider", "results", "cached"),
    "extract_finished": ("urls", "provider", "pages", "failed", "cached"),
    "crawl_finished": ("url", "provider", "pages", "cached"),
    "image_saved": ("path", "provider", "model", "prompt", "cached"),
}


@dataclass(frozen=True)
class _Subscription:
    event: str
    callback: Callable[[dict[str, Any]], Any]
    owner: str


_lock = threading.RLock()
_subscriptions: list[_Subscription] = []


def subscribe(event: str, callback: Callable[[dict[str, Any]], Any], owner: str = "") -> Callable[[], None]:
    """Call ``callback(payload)`` on every ``event`` (``"*"``: all); returns the unsubscribe function."""
    if not isinstance(event, str) or not event.strip():
        raise ValueError("subscribe needs an event name (or '*' for every event)")
    if not callable(callback):
        raise TypeError(f"subscribe({event!r}): the callback must be callable")
    entry = _Subscription(event.strip(), callback, owner)
    with _lock:
        _subscriptions.append(entry)

    def cancel() -> None:
        with _lock:
            if entry in _subscriptions:
                _subscriptions.remove(entry)

    return cancel


def unsubscribe(event: str, callback: Callable[..., Any]) -> bool:
    """Remove ``callback`` from ``event``; True if it was subscribed."""
    with _lock:
        before = len(_subscriptions)
        _subscriptions[:] = [s for s in _subscriptions if not (s.event == event and s.callback is callback)]
        return len(_subscriptions) != before


def unsubscribe_owner(owner: str) -> None:
    """Remove every subscription of plugin ``owner`` (it was unloaded)."""
    with _lock:
        _subscriptions[:] = [s for s in _subscriptions if s.owner != owner]


def subscriptions() -> list[dict[str, str]]:
    """One row per subscription: ``{"event", "callback", "owner"}``."""
    with _lock:
        return [
            {
                "event": s.event,
                "callback": getattr(s.callback, "__qualname__", repr(s.callback)),
                "owner": s.owner,
            }
            for s in _subscriptions
        ]


def emit(event: str, payload: dict[str, Any] | None = None, *, source: str = "hermes_nb") -> int:
    """Deliver ``payload`` to the subscribers of ``event`` and of ``"*"``; returns how many ran."""
    if not isinstance(event, str) or not event.strip():
        raise ValueError("emit needs an event name")
    if source == "hermes_nb":  # the SDK's own events reach plugins not imported yet, too
        ensure_plugins_loaded("hooks")
    with _lock:
        targets = [s for s in _subscriptions if s.event in (event, ANY)]
    delivered = 0
    for sub in targets:
        message = {**(payload or {}), "event": event, "source": source}
        try:
            value = sub.callback(message)
            if inspect.isawaitable(value):
                run_sync(value)
        except Exception as exc:  # a subscriber never breaks the call that emitted
            log.warning(
                "event %s: subscriber %s of %s failed: %s: %s",
                event,
                _label(sub.callback),
                sub.owner or "code",
                type(exc).__name__,
                redact(str(exc)),
            )
            continue
        delivered += 1
    return delivered


def announces(event: str, describe: Callable[[Any], dict[str, Any]]) -> Callable[[F], F]:
    """Decorate an SDK call (sync or async) so that its result is announced as ``event`` with the
    payload ``describe(result)``; a call made inside another announced call is not announced twice."""

    def deliver(result: Any) -> None:
        try:
            emit(event, describe(result))
        except Exception as exc:  # an event never breaks the call it reports
            log.warning("event %s not delivered: %s: %s", event, type(exc).__name__, redact(str(exc)))

    def decorate(func: F) -> F:
        if inspect.iscoroutinefunction(func):

            @functools.wraps(func)
            async def awrapper(*args: Any, **kwargs: Any) -> Any:
                if _announcing.get():
                    return await func(*args, **kwargs)
                token = _announcing.set(True)
                try:
                    result = await func(*args, **kwargs)
                finally:
                    _announcing.reset(token)
                deliver(result)
                return result

            return cast(F, awrapper)

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if _announcing.get():
                return func(*args, **kwargs)
            token = _announcing.set(True)
            try:
                result = func(*args, **kwargs)
            finally:
                _announcing.reset(token)
            deliver(result)
            return result

        return cast(F, wrapper)

    return decorate


def _label(callback: Callable[..., Any]) -> str:
    return str(getattr(callback, "__qualname__", type(callback).__name__))


@on_reset
def _reset() -> None:
    with _lock:
        _subscriptions.clear()
