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

import importlib
import importlib.abc
import importlib.machinery
import sys
import threading
from types import ModuleType
from typing import Any

from hermes_nb._state import on_reset
from hermes_nb.plugins.loader import get_plugin_manager, import_plugin_module

__all__ = ["ALIASES", "install", "uninstall", "is_installed", "is_served"]

_PACKAGES = ("agent", "tools", "hermes_cli", "plugins")  # packages whose submodules may be served


def _compat_module(hermes_name: str) -> str:
    """``agent.web_search_provider`` → ``hermes_nb.compat.agent_web_search_provider``."""
    return f"hermes_nb.compat.{hermes_name.replace('.', '_')}"


#: Hermes module names served, each by the compat module of the same name (dots as underscores)
ALIASES: dict[str, str] = {
    name: _compat_module(name)
    for name in (
        "agent.web_search_provider",
        "agent.image_gen_provider",
        "agent.web_search_registry",
        "agent.image_gen_registry",
        "agent.video_gen_provider",
        "agent.video_gen_registry",
        "agent.file_safety",
        "agent.auxiliary_client",
        "agent.image_routing",
        "agent.redact",
        "tools.registry",
        "tools.lazy_deps",
        "tools.interrupt",
        "tools.url_safety",
        "tools.website_policy",
        "tools.web_tools",
        "tools.xai_http",
        "tools.image_generation_tool",
        "tools.tool_backend_helpers",
        "tools.managed_tool_gateway",
        "hermes_cli.config",
        "hermes_cli.plugins",
        "hermes_cli.runtime_provider",
        "hermes_cli.models",
        "hermes_cli.auth",
        "hermes_constants",
        "plugins.plugin_utils",
    )
}


def _attributes(hermes_name: str) -> dict[str, Any]:
    """The names the compat module lists in ``__all__``, copied so a plugin's writes stay in its module."""
    module = importlib.import_module(ALIASES[hermes_name])
    return {name: getattr(module, name) for name in module.__all__}


_served: set[str] = set()
_lock = threading.RLock()


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, hermes_name: str | None, existing: ModuleType | None = None) -> None:
        self._hermes_name = hermes_name
        self._existing = existing

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._existing  # None: the default module object

    def exec_module(self, module: ModuleType) -> None:
        if self._existing is not None:
            return
        with _lock:
            _served.add(module.__name__)
        if self._hermes_name is not None:
            module.__dict__.update(_attributes(self._hermes_name))


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
            return importlib.machinery.ModuleSpec(fullname, _AliasLoader(fullname))
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
    return any(record.category == name for record in get_plugin_manager().discover())


def _plugin_spec(fullname: str, parts: list[str]) -> importlib.machinery.ModuleSpec | None:
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


def is_served(module: str) -> bool:
    """True when ``module`` is a Hermes name hermes_nb serves."""
    return module in ALIASES


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
