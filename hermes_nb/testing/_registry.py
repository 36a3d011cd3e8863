"""Where the emulator's vendor APIs come from: each plugin's ``fake.py``, found beside its ``plugin.yaml``.

A plugin folder that holds a ``fake.py`` defining ``register(routes)`` teaches the emulator its vendor's
API: ``register`` calls ``routes.add(api, ...)`` for each API it serves (see ``FakeRoutes``). The
emulator looks in the bundled plugins folder, and — unless ``HERMES_SAFE_MODE`` is set — in the user's
``$HERMES_HOME/plugins/`` (and ``./.hermes/plugins/`` with ``HERMES_ENABLE_PROJECT_PLUGINS=1``) for
plugins that ``plugins.enabled`` lists and ``plugins.disabled`` does not. The secrets ``use_emulator``
sets come from the manifest's ``requires_env``. Nothing here names a vendor.

This module reads manifests with plain YAML (the emulator imports no plugin machinery; see the
import-linter contract) and imports ``fake.py`` files only, never a plugin's provider code.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import re
import sys
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from hermes_nb import config
from hermes_nb.errors import InvalidInputError
from hermes_nb.testing._wire import Api

__all__ = [
    "FAKE_FILE",
    "FakePlugin",
    "FakeRoutes",
    "Route",
    "discover_fakes",
    "fake_module",
    "PREFIXES",
    "KEYS",
]

log = logging.getLogger(__name__)

FAKE_FILE = "fake.py"
_MANIFESTS = ("plugin.yaml", "plugin.yml")
_MAX_DEPTH = 2  # as plugin discovery: a folder without a manifest is a category, scanned one level deeper
_SECTIONS = {
    "provides_web_providers": "web",
    "provides_image_providers": "image_gen",
    "provides_video_providers": "video_gen",
}  # fmt: skip


@dataclass(frozen=True)
class Route:
    """One vendor API on the emulator: requests under ``prefix`` (only ``paths``, if given) go to ``api``."""

    name: str  # the provider name requests are logged under (``emu.requests_for(name)``, ``emu.fail(name)``)
    prefix: str  # e.g. "/brave"; ``emu.base_url(name)`` is the emulator's URL plus this
    api: Api
    paths: tuple[str, ...] = ()  # sub-paths served, when plugins share a prefix; () serves them all

    def serves(self, path: str) -> str | None:
        """The sub-path of ``path`` when this route answers it, else None."""
        if path != self.prefix and not path.startswith(self.prefix + "/"):
            return None
        sub = path[len(self.prefix) :]
        if self.paths and not any(sub == p or sub.startswith(p.rstrip("/") + "/") for p in self.paths):
            return None
        return sub


class FakeRoutes:
    """What a plugin's ``fake.py`` receives in ``register(routes)``: the place its vendor APIs go.

    ``routes.add(MyApi())`` serves ``MyApi`` under ``/<api.name>`` and makes ``use_emulator`` point
    ``<section>.<api.name>.base_url`` at it (section ``web``, ``image_gen``, ``video_gen``: the manifest's
    ``provides_*_providers``). ``routes.address(...)`` names a further URL on the emulator that a
    setting points at (a keyless MCP endpoint under the vendor's prefix, say); ``routes.keys(...)``
    replaces the manifest's ``requires_env`` as the secrets ``use_emulator`` sets;
    ``routes.option(name, default)`` adds a knob tests turn (``emu.<name>``).
    """

    def __init__(
        self, plugin: str, section: str, providers: tuple[str, ...], key_names: tuple[str, ...]
    ) -> None:
        self.plugin = plugin
        self.section = section
        self.providers = providers
        self.key_names = key_names
        self.routes: list[Route] = []
        self.addresses: dict[str, str] = {}  # name -> path on the emulator
        self.settings: dict[str, str] = {}  # config key -> route or address name
        self.options: dict[str, Any] = {}  # emulator attribute -> its default (``emu.<name>`` knobs)

    def add(
        self,
        api: Api,
        *,
        prefix: str | None = None,
        base_url_key: str | None = None,
        paths: Iterable[str] = (),
    ) -> None:
        """Serve ``api`` under ``prefix`` (default ``/<api.name>``).

        ``base_url_key``: the setting ``use_emulator`` points at it (default
        ``<section>.<api.name>.base_url``; ``""`` for none). ``paths``: serve only these sub-paths,
        for two plugins sharing one vendor prefix (xAI's web search and its images).
        """
        name = getattr(api, "name", None)
        if not isinstance(name, str) or not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", name):
            raise InvalidInputError(
                f"{self.plugin}: fake.py added an API without a lower-case `name` attribute ({api!r}); "
                'give the class `name = "myvendor"`'
            )
        prefix = _clean_prefix(prefix or f"/{name}", self.plugin)
        self.routes.append(Route(name, prefix, api, tuple(paths)))
        self.addresses.setdefault(name, prefix)
        key = f"{self.section}.{name}.base_url" if base_url_key is None else base_url_key
        if key:
            self.settings[key] = name

    def address(self, name: str, path: str, *, config_key: str = "") -> None:
        """A further address ``emu.base_url(name)``; ``use_emulator`` points ``config_key`` at it."""
        self.addresses[name] = _clean_prefix(path, self.plugin)
        if config_key:
            self.settings[config_key] = name

    def option(self, name: str, default: Any) -> None:
        """A knob tests set on the emulator (``emu.<name> = value``); each emulator starts at ``default``."""
        if not name.isidentifier() or name.startswith("_"):
            raise InvalidInputError(f"{self.plugin}: fake.py option {name!r} must be a public Python name")
        self.options[name] = default

    def keys(self, *names: str) -> None:
        """The secrets ``use_emulator`` sets to ``emu-<provider>-key`` (none when called without names)."""
        self.key_names = tuple(names)


def _clean_prefix(prefix: str, plugin: str) -> str:
    if not re.fullmatch(r"(/[A-Za-z0-9._-]+)+", prefix):
        raise InvalidInputError(
            f"{plugin}: fake.py gave the path prefix {prefix!r}; use one like '/myvendor/v1'"
        )
    return prefix


@dataclass
class FakePlugin:
    """One plugin's fake: its providers, the routes it serves and what ``use_emulator`` sets for it."""

    plugin: str  # the manifest's name
    path: Path  # the fake.py file
    providers: tuple[str, ...]
    routes: list[Route] = field(default_factory=list)
    addresses: dict[str, str] = field(default_factory=dict)
    settings: dict[str, str] = field(default_factory=dict)
    key_names: tuple[str, ...] = ()
    module: ModuleType | None = None
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def names(self) -> set[str]:
        """Every name ``use_emulator(emu, providers=[...])`` selects this plugin by."""
        return {*self.providers, *self.addresses}

    @property
    def key_value_name(self) -> str:
        return self.providers[0] if self.providers else self.plugin


# -- discovery ----------------------------------------------------------------------------------

_lock = threading.RLock()
_cache: dict[tuple[str, int, int], FakePlugin] = {}


def _norm(value: object) -> str:
    return str(value).strip().lower().replace("_", "-")


def _listed(key: str) -> set[str]:
    value = config.get(key) or []
    return {_norm(v) for v in ([value] if isinstance(value, str) else value) if isinstance(v, str)}


def _roots() -> list[tuple[str, Path]]:
    roots: list[tuple[str, Path]] = []
    bundled = config.bundled_plugins_dir()
    if bundled is not None:
        roots.append(("bundled", bundled))
    if (os.environ.get("HERMES_SAFE_MODE") or "").strip().lower() in ("1", "true", "yes", "on"):
        return roots
    roots.append(("user", config.get_hermes_home() / "plugins"))
    if (os.environ.get("HERMES_ENABLE_PROJECT_PLUGINS") or "").strip().lower() in ("1", "true", "yes", "on"):
        roots.append(("project", Path.cwd() / ".hermes" / "plugins"))
    return roots


_Found = tuple[tuple[str, ...], Path, Path]


def _folders(root: Path) -> Iterator[_Found]:
    """``(relative parts, folder, manifest)`` of each plugin folder below ``root`` that has a fake."""

    def walk(directory: Path, rel: tuple[str, ...], depth: int) -> Iterator[_Found]:
        try:
            entries = sorted((e for e in os.scandir(directory) if not e.name.startswith((".", "_"))),
                             key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            if not entry.is_dir(follow_symlinks=False):
                continue
            folder = Path(entry.path)
            manifest = next((folder / n for n in _MANIFESTS if (folder / n).is_file()), None)
            if manifest is None:
                if depth + 1 < _MAX_DEPTH:
                    yield from walk(folder, (*rel, entry.name), depth + 1)
            elif (folder / FAKE_FILE).is_file():
                yield (*rel, entry.name), folder, manifest

    yield from walk(root, (), 0)


def _read_manifest(file: Path) -> dict[str, Any]:
    import yaml

    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise InvalidInputError(
            f"the emulator cannot read {file} ({type(exc).__name__}); fix the manifest"
        ) from None
    if not isinstance(data, dict):
        raise InvalidInputError(f"{file} must be a mapping of fields (name: ..., requires_env: ...)")
    return data


def _names(value: Any) -> list[str]:
    items = [value] if isinstance(value, (str, dict)) else value if isinstance(value, list) else []
    out = []
    for item in items:
        name = item.get("name") if isinstance(item, dict) else item
        if isinstance(name, str) and name.strip():
            out.append(name.strip())
    return out


def _load(folder: Path, manifest_file: Path, rel: tuple[str, ...]) -> FakePlugin:
    fake_file = folder / FAKE_FILE
    stat = fake_file.stat()
    cache_key = (str(fake_file), stat.st_mtime_ns, manifest_file.stat().st_mtime_ns)
    with _lock:
        if cache_key in _cache:
            return _cache[cache_key]
        data = _read_manifest(manifest_file)
        plugin = str(data.get("name") or folder.name)
        section: str = "web"
        providers: tuple[str, ...] = ()
        for field_name, field_section in _SECTIONS.items():
            names = _names(data.get(field_name))
            if names:
                section, providers = field_section, tuple(n.lower() for n in names)
                break
        module = _import(fake_file, rel)
        register = getattr(module, "register", None)
        if not callable(register):
            raise InvalidInputError(
                f"{fake_file} defines no register(routes); add one that calls routes.add(...)"
            )
        routes = FakeRoutes(plugin, section, providers, tuple(_names(data.get("requires_env"))))
        register(routes)
        fake = FakePlugin(plugin, fake_file, providers, routes.routes, routes.addresses, routes.settings,
                          routes.key_names, module, routes.options)
        _cache[cache_key] = fake
        return fake


def _import(fake_file: Path, rel: tuple[str, ...]) -> ModuleType:
    """Import ``fake_file`` under a private module name (registered, so dataclasses in it work)."""
    name = "hermes_nb_fakes." + ".".join(re.sub(r"\W", "_", part) for part in rel)
    spec = importlib.util.spec_from_file_location(name, fake_file)
    if spec is None or spec.loader is None:
        raise InvalidInputError(f"cannot import {fake_file}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception:
        sys.modules.pop(name, None)
        raise
    return module


def discover_fakes() -> list[FakePlugin]:
    """Every fake the emulator serves: bundled plugins', then enabled user and project plugins'."""
    disabled, enabled = _listed("plugins.disabled"), _listed("plugins.enabled")
    found: list[FakePlugin] = []
    for source, root in _roots():
        for rel, folder, manifest_file in _folders(root):
            if source != "bundled":
                ids = {_norm("/".join(rel)), _norm(folder.name)}
                try:
                    ids.add(_norm(_read_manifest(manifest_file).get("name") or folder.name))
                except InvalidInputError:
                    continue  # plugin discovery reports a broken manifest; the emulator just skips it
                if ids & disabled or not ids & enabled:
                    continue
                try:
                    found.append(_load(folder, manifest_file, rel))
                except Exception as exc:  # a user's broken fake must not take the emulator down
                    log.warning("the emulator skips %s: %s: %s", folder / FAKE_FILE, type(exc).__name__, exc)
                continue
            found.append(_load(folder, manifest_file, rel))  # a bundled fake that fails is our bug: raise
    return found


def fake_module(provider: str) -> ModuleType:
    """The imported ``fake.py`` that serves ``provider`` (for tests that use its constants)."""
    for fake in discover_fakes():
        if provider in fake.names and fake.module is not None:
            return fake.module
    raise InvalidInputError(f"no plugin's fake.py serves {provider!r}; known: {sorted(PREFIXES)}")


class _Live(Mapping[str, str]):
    """A read-only mapping computed from the discovered fakes each time it is read."""

    def __init__(self, build: Any) -> None:
        self._build = build

    def _data(self) -> dict[str, str]:
        data: dict[str, str] = self._build()
        return data

    def __getitem__(self, key: str) -> str:
        return self._data()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data())

    def __len__(self) -> int:
        return len(self._data())

    def __repr__(self) -> str:
        return repr(self._data())


def _prefixes() -> dict[str, str]:
    out: dict[str, str] = {}
    for fake in discover_fakes():
        for name, prefix in fake.addresses.items():
            out.setdefault(name, prefix)
    return out


def _keys() -> dict[str, str]:
    out: dict[str, str] = {}
    for fake in discover_fakes():
        for key_name in fake.key_names:
            out.setdefault(fake.key_value_name, key_name)
    return out


#: provider name -> path prefix of its base URL on the emulator (from the discovered fakes)
PREFIXES: Mapping[str, str] = _Live(_prefixes)
#: provider -> the secret ``use_emulator`` sets to "emu-<provider>-key" (from the manifests' ``requires_env``)
KEYS: Mapping[str, str] = _Live(_keys)
