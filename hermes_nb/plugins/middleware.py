"""``ctx.register_middleware``: what wraps each tool call, and which other kinds are only kept.

A ``tool_call`` middleware (Hermes also says ``tool_execution``) is
``callback(tool_name, args, call_next, **context) -> str``: it may change ``args`` before calling
``call_next(args)``, change the JSON result string it returns, or answer without calling it at all
(a cache, a policy). Middlewares nest in registration order, the first registered outermost, inside
the ``pre_tool_call`` / ``post_tool_call`` hooks. Other kinds (``llm_execution`` …) wrap work a
notebook does not do: they are kept and listed as "registered; not used in notebooks".
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hermes_nb._state import on_reset

__all__ = ["TOOL_KINDS", "register", "unregister_owner", "tool_middleware", "run_tool_call"]

TOOL_KINDS = frozenset({"tool_call", "tool_execution", "tool"})


@dataclass(frozen=True)
class Middleware:
    kind: str
    callback: Callable[..., Any]
    owner: str


_lock = threading.RLock()
_middleware: list[Middleware] = []


def register(kind: str, callback: Callable[..., Any], owner: str = "") -> bool:
    """Keep ``callback`` for ``kind``; True when it wraps tool calls here."""
    if not callable(callback):
        raise TypeError(f"middleware {kind!r}: the callback must be callable")
    with _lock:
        _middleware.append(Middleware(str(kind), callback, owner))
    return str(kind) in TOOL_KINDS


def unregister_owner(owner: str) -> None:
    with _lock:
        _middleware[:] = [m for m in _middleware if m.owner != owner]


def tool_middleware() -> list[Middleware]:
    with _lock:
        return [m for m in _middleware if m.kind in TOOL_KINDS]


def run_tool_call(
    name: str, args: dict[str, Any], call: Callable[[dict[str, Any]], str], context: dict[str, Any]
) -> str:
    """``call(args)`` wrapped in every tool middleware (the first registered outermost)."""
    chain = call
    for layer in reversed(tool_middleware()):
        chain = _wrap(layer.callback, name, chain, context)
    return chain(args)


def _wrap(
    callback: Callable[..., Any], name: str, inner: Callable[[dict[str, Any]], str], context: dict[str, Any]
) -> Callable[[dict[str, Any]], str]:
    def step(args: dict[str, Any]) -> str:
        result = callback(name, args, inner, **context)
        if not isinstance(result, str):
            raise TypeError(
                f"tool middleware {callback!r} returned {type(result).__name__}, not the JSON string"
            )
        return result

    return step


@on_reset
def _reset() -> None:
    with _lock:
        _middleware.clear()
