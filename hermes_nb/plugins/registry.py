"""Thread-safe provider registries: ``web_providers``, ``image_providers`` and ``video_providers``.

Names are normalised once (strip + lower) for lookup; a provider registered under a name that
already exists replaces the earlier one (Hermes's last-writer-wins) with a log line, and comes back
if the newer one is unregistered (a user override whose plugin failed half-way). An exact name
always wins over an alias: a plugin registering ``brave-free`` replaces the bundled alias.

Plugin code is imported lazily: before answering ``get`` or ``list``, a registry calls its
``loader`` hook, which the composition root (``hermes_nb._wiring``) points at the plugin loader.
"""

from __future__ import annotations

import builtins
import logging
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from hermes_nb import config
from hermes_nb._services import services
from hermes_nb._state import on_reset
from hermes_nb.plugins.image_provider import ImageGenProvider
from hermes_nb.plugins.video_provider import VideoGenProvider
from hermes_nb.plugins.web_provider import WebSearchProvider

__all__ = ["ProviderRegistry", "web_providers", "image_providers", "video_providers", "normalize_name"]

log = logging.getLogger(__name__)

P = TypeVar("P", WebSearchProvider, ImageGenProvider, VideoGenProvider)

#: ``loader(kind, name)`` imports plugins that may provide ``name`` (``None``: every plugin of ``kind``).
LoaderHook = Callable[[str, "str | None"], None]


def _load_plugins(kind: str, name: str | None) -> None:
    services.load_plugins(kind, name)


def normalize_name(name: object) -> str:
    """Provider ids compare stripped and lower-cased (``" Brave "`` is ``"brave"``)."""
    return name.strip().lower() if isinstance(name, str) else ""


def _declared_aliases(provider: WebSearchProvider | ImageGenProvider | VideoGenProvider) -> tuple[str, ...]:
    """The provider's ``aliases`` class attribute; a lone string counts as one alias.

    Only subclasses of the bases are registered (Hermes plugins subclass them too, through the
    ``agent.*`` names), so the attribute is declared; a value of the wrong type is no alias.
    """
    value = provider.aliases
    if isinstance(value, str):
        return (value,)
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, (tuple, list)) else ()


class ProviderRegistry(Generic[P]):
    """Providers of one kind (``"web"``, ``"image_gen"`` or ``"video_gen"``), keyed by normalised name."""

    def __init__(self, kind: str, base: type[P]) -> None:
        self.kind = kind
        self.base: type[P] = base
        self._providers: dict[str, P] = {}
        self._owners: dict[str, str] = {}
        self._aliases: dict[str, str] = {}
        self._replaced: dict[str, builtins.list[tuple[P, str]]] = {}  # name → earlier (provider, owner)
        self._lock = threading.RLock()
        #: imports plugins on lookup; ``None`` turns plugin loading off (tests of registered-only providers)
        self.loader: LoaderHook | None = _load_plugins

    def register(self, provider: P, *, owner: str = "", aliases: tuple[str, ...] = ()) -> None:
        """Add ``provider``; ``TypeError`` for the wrong type, ``ValueError`` for a bad name.

        ``aliases`` default to the provider's ``aliases`` class attribute, so a plugin's
        ``ctx.register_web_search_provider(p)`` keeps e.g. ``brave-free`` resolving to ``brave``.
        """
        if not isinstance(provider, self.base):
            raise TypeError(
                f"{self.kind} provider must subclass {self.base.__name__}, got {type(provider).__name__}"
            )
        name = normalize_name(provider.name)
        if not name:
            raise ValueError(f"{self.kind} provider name must be a non-empty string")
        with self._lock:
            earlier = self._providers.get(name)
            if earlier is not None and earlier is not provider:
                log.info(
                    "%s provider %r from %s replaces the one from %s",
                    self.kind, name, owner or "code", self._owners.get(name) or "code",
                )
                self._replaced.setdefault(name, []).append((earlier, self._owners.get(name, "")))
            self._providers[name] = provider
            self._owners[name] = owner
            for alias in aliases or _declared_aliases(provider):
                self._aliases[normalize_name(alias)] = name

    def unregister(self, name: str) -> None:
        """Remove ``name``; the provider it had replaced, if any, is registered again."""
        with self._lock:
            key = normalize_name(name)
            self._providers.pop(key, None)
            self._owners.pop(key, None)
            earlier = self._replaced.get(key)
            if earlier:
                self._providers[key], self._owners[key] = earlier.pop()

    def _load(self, name: str | None) -> None:
        if self.loader is not None:
            self.loader(self.kind, name)

    def get(self, name: object) -> P | None:
        """The provider called ``name`` (or an alias of it), importing its plugin on first use."""
        key = normalize_name(name)
        if not key:
            return None
        with self._lock:
            found = self._providers.get(key)
        if found is None:
            self._load(key)  # a plugin declaring this exact name beats an alias of another provider
            with self._lock:
                found = self._providers.get(key) or self._providers.get(self._aliases.get(key, key))
        return found

    def owner(self, name: str) -> str:
        """The plugin key that registered ``name`` ("" when registered from code)."""
        with self._lock:
            return self._owners.get(normalize_name(name), "")

    def list(self) -> builtins.list[P]:
        """Every provider, sorted by name (imports every plugin of this kind first)."""
        self._load(None)
        with self._lock:
            return [self._providers[k] for k in sorted(self._providers)]

    def names(self) -> builtins.list[str]:
        return [normalize_name(p.name) for p in self.list()]

    def available(self, provider: P) -> bool:
        """``provider.is_available()``; a probe that raises counts as unavailable (logged): a plugin's
        check never breaks selection, a listing or Hermes's registry functions."""
        try:
            return bool(provider.is_available())
        except Exception as exc:
            log.warning("%s provider %r: is_available() raised %s", self.kind, provider.name, exc)
            return False

    def active(self) -> P | None:
        """Hermes's ``get_active_provider``: the provider ``<kind>.provider`` names (even when it is not
        available), else the only available one, else None."""
        configured = config.get(f"{self.kind}.provider")
        if configured:
            return self.get(configured)
        ready = [p for p in self.list() if self.available(p)]
        return ready[0] if len(ready) == 1 else None

    def clear(self) -> None:
        with self._lock:
            self._providers.clear()
            self._owners.clear()
            self._aliases.clear()
            self._replaced.clear()


# mypy wants concrete classes for type[...] arguments; the ABCs are only used for isinstance checks.
web_providers: ProviderRegistry[WebSearchProvider] = ProviderRegistry(
    "web", WebSearchProvider  # type: ignore[type-abstract]
)
image_providers: ProviderRegistry[ImageGenProvider] = ProviderRegistry(
    "image_gen", ImageGenProvider  # type: ignore[type-abstract]
)
video_providers: ProviderRegistry[VideoGenProvider] = ProviderRegistry(
    "video_gen", VideoGenProvider  # type: ignore[type-abstract]
)


@on_reset
def _reset_registries() -> None:
    web_providers.clear()
    image_providers.clear()
    video_providers.clear()
