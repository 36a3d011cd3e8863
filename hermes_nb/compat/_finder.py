"""Hermes import names (``agent.web_search_provider``, ``tools.registry``, ...) backed by hermes_nb.

A ``sys.meta_path`` finder serves these modules lazily, and only when no real module of that
name is importable: for a top-level name it first asks the other finders, and it never serves a
submodule of a real (not ours) package. A namespace package (a folder without ``__init__.py``
that happens to be on ``sys.path``, such as a repository's ``plugins/``) does not count as real:
ours replaces it and keeps its folders searchable. It sits first on ``sys.meta_path`` only so
that it can see such namespace packages; real modules still win. ``plugins.<category>.<slug>`` resolves to
the discovered plugin directory, as the same module object as ``hermes_plugins.<slug>``, so the
Hermes guide's ``from plugins.web.my_backend.provider import ...`` works from ``$HERMES_HOME``.
The loader installs the finder on discovery; ``import hermes_nb`` does not.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import threading
from collections.abc import Callable
from types import ModuleType
from typing import Any

from hermes_nb._state import on_reset

__all__ = ["ALIASES", "install", "uninstall", "is_installed"]

_PACKAGES = ("agent", "tools", "hermes_cli", "plugins")


def _web_provider() -> dict[str, Any]:
    from hermes_nb.plugins.web_provider import WebSearchProvider, get_provider_env

    return {"WebSearchProvider": WebSearchProvider, "get_provider_env": get_provider_env}


def _image_provider() -> dict[str, Any]:
    from hermes_nb.plugins import image_provider

    return {name: getattr(image_provider, name) for name in image_provider.__all__}


def _is_available(provider: Any) -> bool:
    try:
        return bool(provider.is_available())
    except Exception:  # Hermes treats a failing availability check as unavailable
        return False


def _web_registry() -> dict[str, Any]:
    from hermes_nb import errors
    from hermes_nb.plugins.registry import web_providers

    def active(capability: str) -> Any:
        from hermes_nb.web import selection

        try:
            return selection.resolve(capability)
        except (errors.ProviderNotConfiguredError, errors.ProviderNotFoundError, errors.InvalidInputError):
            return None  # Hermes answers None when nothing fits

    def get_active_search_provider() -> Any:
        return active("search")

    def get_active_extract_provider() -> Any:
        return active("extract")

    def get_provider(name: object) -> Any:
        return web_providers.get(name)

    return {
        "register_provider": web_providers.register,
        "list_providers": web_providers.list,
        "get_provider": get_provider,
        "get_active_search_provider": get_active_search_provider,
        "get_active_extract_provider": get_active_extract_provider,
        "_reset_for_tests": web_providers.clear,
    }


def _image_registry() -> dict[str, Any]:
    from hermes_nb import config
    from hermes_nb.plugins.registry import image_providers

    def get_active_provider() -> Any:
        """``image_gen.provider`` when set (even if unavailable), else the only available provider."""
        configured = config.get("image_gen.provider")
        if configured:
            return image_providers.get(configured)
        available = [p for p in image_providers.list() if _is_available(p)]
        return available[0] if len(available) == 1 else None

    def get_provider(name: object) -> Any:
        return image_providers.get(name)

    return {
        "register_provider": image_providers.register,
        "list_providers": image_providers.list,
        "get_provider": get_provider,
        "get_active_provider": get_active_provider,
        "_reset_for_tests": image_providers.clear,
    }


def _tools_registry() -> dict[str, Any]:
    from hermes_nb.plugins import tool_registry as tools

    return {"registry": tools.registry, "tool_error": tools.tool_error, "tool_result": tools.tool_result}


def _lazy_deps() -> dict[str, Any]:
    from hermes_nb.plugins import lazy_deps

    names = getattr(lazy_deps, "__all__", ["ensure", "FeatureUnavailable"])
    return {name: getattr(lazy_deps, name) for name in names}


def _interrupt() -> dict[str, Any]:
    def is_interrupted(*args: Any, **kwargs: Any) -> bool:
        """A notebook has no agent-level interrupt; KeyboardInterrupt reaches the code directly."""
        return False

    return {"is_interrupted": is_interrupted}


def _url_safety() -> dict[str, Any]:
    from hermes_nb.errors import HermesError
    from hermes_nb.net import url_guard

    def is_safe_url(url: str) -> bool:
        try:
            url_guard.check_url(url)
        except HermesError:
            return False
        return True

    async def async_is_safe_url(url: str) -> bool:
        import asyncio

        return await asyncio.to_thread(is_safe_url, url)

    def normalize_url_for_request(url: str) -> str:
        return str(url).strip()

    return {
        "is_safe_url": is_safe_url,
        "async_is_safe_url": async_is_safe_url,
        "normalize_url_for_request": normalize_url_for_request,
    }


def _cli_config() -> dict[str, Any]:
    from hermes_nb import config

    return {
        "load_config": config.load_config,
        "get_env_value": config.get_env_value,
        "get_hermes_home": config.get_hermes_home,
    }


def _cli_plugins() -> dict[str, Any]:
    from hermes_nb.plugins import loader
    from hermes_nb.plugins.context import PluginContext
    from hermes_nb.plugins.manifest import PluginManifest

    def discover_plugins(force: bool = False) -> None:
        loader.load_plugins(force=force)

    def invoke_hook(hook_name: str, **kwargs: Any) -> list[Any]:
        from hermes_nb.plugins import hooks

        result: list[Any] = hooks.invoke_hook(hook_name, **kwargs)
        return result

    def has_hook(hook_name: str) -> bool:
        from hermes_nb.plugins import hooks

        return bool(hooks.has_hook(hook_name))

    return {
        "PluginContext": PluginContext,
        "PluginManifest": PluginManifest,
        "get_plugin_manager": loader.get_plugin_manager,
        "discover_plugins": discover_plugins,
        "_ensure_plugins_discovered": discover_plugins,
        "invoke_hook": invoke_hook,
        "has_hook": has_hook,
        "list_plugins": loader.list_plugins,
    }


def _constants() -> dict[str, Any]:
    from hermes_nb.config import get_hermes_home

    return {"get_hermes_home": get_hermes_home}


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


def _plugin_utils() -> dict[str, Any]:
    return {"lazy_singleton": lazy_singleton, "SingletonSlot": SingletonSlot}


#: module name → builder of its attributes
ALIASES: dict[str, Callable[[], dict[str, Any]]] = {
    "agent.web_search_provider": _web_provider,
    "agent.image_gen_provider": _image_provider,
    "agent.web_search_registry": _web_registry,
    "agent.image_gen_registry": _image_registry,
    "tools.registry": _tools_registry,
    "tools.lazy_deps": _lazy_deps,
    "tools.interrupt": _interrupt,
    "tools.url_safety": _url_safety,
    "hermes_cli.config": _cli_config,
    "hermes_cli.plugins": _cli_plugins,
    "hermes_constants": _constants,
    "plugins.plugin_utils": _plugin_utils,
}

_served: set[str] = set()
_lock = threading.RLock()


class _AliasLoader(importlib.abc.Loader):
    def __init__(
        self, build: Callable[[], dict[str, Any]] | None, existing: ModuleType | None = None
    ) -> None:
        self._build = build
        self._existing = existing

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._existing  # None: the default module object

    def exec_module(self, module: ModuleType) -> None:
        if self._existing is not None:
            return
        with _lock:
            _served.add(module.__name__)
        if self._build is not None:
            module.__dict__.update(self._build())


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: Any = None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        parts = fullname.split(".")
        if parts[0] not in _PACKAGES and fullname not in ALIASES:
            return None
        if len(parts) > 1:
            with _lock:
                parent_ours = ".".join(parts[:-1]) in _served
            if not parent_ours:
                return None  # a real package of that name is installed: leave its namespace alone
        else:
            real = _real_spec(fullname)
            if real is not None and real.origin is not None:
                return None
        if fullname in ALIASES:
            return importlib.machinery.ModuleSpec(fullname, _AliasLoader(ALIASES[fullname]))
        if len(parts) == 1:
            # A namespace package (a folder without __init__.py on sys.path) is not a real module:
            # ours replaces it, and its folders stay searchable for submodules.
            spec = importlib.machinery.ModuleSpec(fullname, _AliasLoader(None), is_package=True)
            spec.submodule_search_locations = list(real.submodule_search_locations or []) if real else []
            return spec
        if parts[0] == "plugins" and len(parts) == 2 and _is_category(parts[1]):
            spec = importlib.machinery.ModuleSpec(fullname, _AliasLoader(None), is_package=True)
            spec.submodule_search_locations = []
            return spec
        if parts[0] == "plugins" and len(parts) in (2, 3):
            return _plugin_spec(fullname, parts[1:])
        return None


def _real_spec(fullname: str) -> importlib.machinery.ModuleSpec | None:
    """What the other finders would import for a top-level name."""
    for finder in sys.meta_path:
        if finder is _finder or not hasattr(finder, "find_spec"):
            continue
        try:
            spec = finder.find_spec(fullname, None)
        except Exception:  # a broken third-party finder must not break imports
            continue
        if spec is not None:
            return spec
    return None


def _is_category(name: str) -> bool:
    from hermes_nb.plugins.loader import get_plugin_manager

    return any(record.category == name for record in get_plugin_manager().discover())


def _plugin_spec(fullname: str, parts: list[str]) -> importlib.machinery.ModuleSpec | None:
    from hermes_nb.plugins.loader import get_plugin_manager, import_plugin_module

    manager = get_plugin_manager()
    if len(parts) == 2:
        record = manager.category_plugin(parts[0], parts[1])
    else:
        record = next(
            (
                r
                for r in manager.discover()
                if r.category is None
                and r.manifest.path is not None
                and r.manifest.path.name.replace("-", "_") == parts[0]
            ),
            None,
        )
    if record is None or record.manifest.path is None:
        return None
    module = import_plugin_module(record)
    spec = importlib.machinery.ModuleSpec(fullname, _AliasLoader(None, module), is_package=True)
    spec.submodule_search_locations = [str(record.manifest.path)]
    return spec


_finder = _Finder()


def install() -> None:
    """Put the finder on ``sys.meta_path`` (idempotent); it defers to real modules itself."""
    with _lock:
        if _finder not in sys.meta_path:
            sys.meta_path.insert(0, _finder)


def is_installed() -> bool:
    return _finder in sys.meta_path


@on_reset
def uninstall() -> None:
    """Remove the finder and every module it served (real modules are never touched)."""
    with _lock:
        if _finder in sys.meta_path:
            sys.meta_path.remove(_finder)
        for name in list(sys.modules):
            top = name.split(".")[0]
            if name in _served or (top in _served and top in _PACKAGES):
                sys.modules.pop(name, None)
        _served.clear()
