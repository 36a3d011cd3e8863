"""Process-wide state resets: modules with caches register a reset so tests start clean."""

from __future__ import annotations

from collections.abc import Callable

_resets: list[Callable[[], None]] = []


def on_reset(func: Callable[[], None]) -> Callable[[], None]:
    """Register ``func`` to run on ``reset_all()`` (usable as a decorator)."""
    if func not in _resets:
        _resets.append(func)
    return func


def reset_all() -> None:
    """Forget every cache, registry entry, override and loaded plugin (tests, ``%hermes`` reload)."""
    for func in list(_resets):
        func()
