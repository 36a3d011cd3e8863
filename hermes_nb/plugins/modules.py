"""Importing directory plugins as ``hermes_plugins.<slug>`` modules, so their relative imports work.

A folder with ``__init__.py`` runs it as the package's code. A folder without one (a plugin whose
manifest names its ``provider_class``) becomes an empty package whose path is the folder, as a
namespace package would: ``from .provider import X`` and ``from . import reader`` work the same.
``import_provider_class`` imports the class such a manifest names, with an error naming the fix.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from hermes_nb.plugins.discovery import PluginRecord
from hermes_nb.plugins.image_provider import ImageGenProvider
from hermes_nb.plugins.load_errors import NoRegisterError
from hermes_nb.plugins.manifest import find_manifest
from hermes_nb.plugins.video_provider import VideoGenProvider
from hermes_nb.plugins.web_provider import WebSearchProvider

__all__ = ["NAMESPACE", "module_name", "import_plugin_module", "import_provider_class", "drop_modules"]

NAMESPACE = "hermes_plugins"


def module_name(key: str) -> str:
    """Import name of a directory plugin: ``web/my-backend`` → ``hermes_plugins.web__my_backend``."""
    return f"{NAMESPACE}.{key.replace('/', '__').replace('-', '_')}"


def drop_modules(name: str) -> None:
    """Forget ``name`` and its submodules (a failed or unloaded plugin)."""
    for mod in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        sys.modules.pop(mod, None)


def _namespace() -> ModuleType:
    module = sys.modules.get(NAMESPACE)
    if module is None:
        module = ModuleType(NAMESPACE, "Namespace of directory plugins imported by hermes_nb.")
        module.__path__ = []
        sys.modules[NAMESPACE] = module
    return module


def import_plugin_module(record: PluginRecord) -> ModuleType:
    """Import a directory plugin as ``hermes_plugins.<slug>`` (relative imports work); reused if present."""
    name = module_name(record.key)
    existing = sys.modules.get(name)
    if existing is not None:
        return existing
    path = record.manifest.path
    assert path is not None, "directory plugins always have a path"
    _namespace()
    init = path / "__init__.py"
    if init.is_file():
        spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(path)])
    else:  # no package code: the folder is only a place to import the plugin's modules from
        spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
        spec.submodule_search_locations = [str(path)]
    if spec is None:
        raise ImportError(f"cannot import {init}", name=name)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        if spec.loader is not None:
            spec.loader.exec_module(module)
    except BaseException:
        drop_modules(name)
        raise
    return module


def import_provider_class(
    record: PluginRecord,
) -> type[WebSearchProvider] | type[ImageGenProvider] | type[VideoGenProvider]:
    """The class ``provider_class: module:Class`` names, imported from the plugin's folder."""
    module_path, _, class_name = record.manifest.provider_class.partition(":")
    folder = record.manifest.path or Path()
    manifest = find_manifest(folder) or folder / "plugin.yaml"
    relative = Path(*module_path.split("."))
    as_package = folder / relative / "__init__.py"
    if not ((folder / relative).with_suffix(".py").is_file() or as_package.is_file()):
        raise NoRegisterError(
            f"{manifest}: provider_class names module {module_path!r}, but there is no "
            f"{relative.with_suffix('.py')} in {folder}; fix provider_class (module path, without .py)"
        )
    module = importlib.import_module(f"{import_plugin_module(record).__name__}.{module_path}")
    found = getattr(module, class_name, None)
    if not isinstance(found, type):
        raise NoRegisterError(
            f"{manifest}: provider_class names {class_name!r}, but {relative.with_suffix('.py')} defines "
            "no such class; fix provider_class (module:Class)"
        )
    if not issubclass(found, (WebSearchProvider, ImageGenProvider, VideoGenProvider)):
        raise NoRegisterError(
            f"{manifest}: provider_class {class_name} is not a provider; subclass WebSearchProvider, "
            "ImageGenProvider or VideoGenProvider (hermes_nb.provider_api)"
        )
    return found
