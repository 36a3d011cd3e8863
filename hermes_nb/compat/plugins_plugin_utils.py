"""``plugins.plugin_utils``: lazily built, thread-safe singletons for plugin clients."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

HERMES_NAME = "plugins.plugin_utils"
__all__ = ["lazy_singleton", "SingletonSlot"]


class SingletonSlot:
    """A thread-safe holder for one lazily built object (``get(factory)``, ``set``, ``clear``)."""

    def __init__(self) -> None:
        self._value: Any = None
        self._set = False
        self._lock = threading.Lock()

    def get(self, factory: Callable[[], Any] | None = None) -> Any:
        with self._lock:
            if not self._set and factory is not None:
                self._value, self._set = factory(), True
            return self._value

    def set(self, value: Any) -> None:
        with self._lock:
            self._value, self._set = value, True

    def clear(self) -> None:
        with self._lock:
            self._value, self._set = None, False


def lazy_singleton(factory: Callable[[], Any]) -> Callable[[], Any]:
    """Decorator: the first call builds the object, later calls return it; ``.reset()`` forgets it."""
    slot = SingletonSlot()

    def get() -> Any:
        return slot.get(factory)

    get.reset = slot.clear  # type: ignore[attr-defined]  # attribute on a function object, as Hermes does
    get.__name__ = getattr(factory, "__name__", "lazy_singleton")
    get.__doc__ = factory.__doc__
    return get
