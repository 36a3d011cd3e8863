"""Finding plugins: the sources, the directory scan and entry points, merged by key into records.

Nothing here imports plugin code: a scan reads directory entries and manifests only.
"""

from __future__ import annotations

import configparser
import logging
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_nb import config
from hermes_nb._state import on_reset
from hermes_nb.plugins import registry
from hermes_nb.plugins.context import FIRED_HOOKS, Registrations
from hermes_nb.plugins.manifest import ManifestError, PluginManifest, find_manifest, read_manifest

__all__ = ["ENTRY_POINT_GROUP", "PluginRecord", "bundled_plugins_dir", "discover_records", "truthy"]

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "hermes_agent.plugins"
_MAX_DEPTH = 2  # a top-level folder without a manifest is a category, scanned one level deeper


def truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def bundled_plugins_dir() -> Path | None:
    """``$HERMES_BUNDLED_PLUGINS``, else ``hermes_nb/bundled_plugins`` (wheel), else repo ``plugins/``."""
    return config.bundled_plugins_dir()


@dataclass
class PluginRecord:
    """One discovered plugin: its manifest, the gate's verdict and what loading did."""

    manifest: PluginManifest
    enabled: bool = False
    reason: str = ""  # why not enabled
    error: str | None = None  # manifest, import or register() failure
    loaded: bool = False
    attempted: bool = False
    module: Any = None
    context: Any = None  # the PluginContext of a successful load, kept so it can be undone
    overrides: list[str] = field(default_factory=list)
    shadowed: PluginRecord | None = None  # the same key's earlier record, loaded if this one fails
    registered: Registrations = field(default_factory=Registrations)

    @property
    def key(self) -> str:
        return self.manifest.key

    @property
    def category(self) -> str | None:
        head, sep, _ = self.key.partition("/")
        return head if sep and self.manifest.source != "entrypoint" else None

    @property
    def capabilities(self) -> frozenset[str]:
        """What importing this plugin may add; ``*`` when the plugin declares nothing."""
        m = self.manifest
        declared = (
            ("web", m.provides_web_providers),
            ("image_gen", m.provides_image_providers),
            ("video_gen", m.provides_video_providers),
            ("tools", m.provides_tools),
            ("hooks", m.provides_hooks),
        )
        caps = {capability for capability, names in declared if names}
        if self.category:
            return frozenset(caps | {self.category})
        if m.source == "entrypoint" or not caps:
            return frozenset({"*"})
        return frozenset(caps | {"commands", "magics"})

    def declares(self, kind: str) -> set[str]:
        m = self.manifest
        names = {"web": m.provides_web_providers, "image_gen": m.provides_image_providers,
                 "video_gen": m.provides_video_providers}.get(kind, [])  # fmt: skip
        return {registry.normalize_name(n) for n in names}

    @property
    def missing_env(self) -> list[str]:
        # listing plugins imports none: secret-source plugins are not loaded for this look
        return [name for name in self.manifest.env_names if not config.resolve_key(name, load_sources=False)]

    @property
    def state(self) -> str:
        """``error``, ``disabled``, ``not imported yet`` (enabled, no code run so far) or ``loaded``."""
        if self.error:
            return "error"
        if not self.enabled:
            return "disabled"
        return "loaded" if self.loaded else "not imported yet"

    @property
    def availability(self) -> str:
        """``available``, ``keyless`` (only through its providers' keyless modes), ``unavailable``,
        or ``unknown`` (not imported yet: no provider has been asked).

        A provider plugin answers through its providers, exactly as ``%hermes providers`` does, so
        a vendor whose key is missing but whose keyless mode works is never called unavailable.
        """
        if self.error or not self.enabled:
            return "unavailable"
        if not self.loaded:
            return "unknown"
        providers = self.context.provider_objects if self.context is not None else []
        if not providers:
            return "unavailable" if self.missing_env else "available"
        verdicts = {_readiness(provider) for provider in providers}
        for verdict in ("available", "keyless"):
            if verdict in verdicts:
                return verdict
        return "unavailable"

    @property
    def status(self) -> str:
        if self.error:
            return f"error: {self.error}"
        if not self.enabled:
            return self.reason
        missing = ", ".join(self.missing_env)
        availability = self.availability
        if availability == "unknown":
            state = "not imported yet (imported on first use, or now with --check)"
            return f"{state}; {missing} not set" if missing else state
        if availability == "keyless":
            return f"loaded; available keyless ({missing} not set: the keyed API needs it)" if missing else (
                "loaded; available keyless"
            )
        if availability == "unavailable":
            return f"loaded; unavailable: missing {missing}" if missing else (
                "loaded; unavailable (`hermes-nb doctor` or `%hermes providers` says what it needs)"
            )
        return "loaded"

    def to_dict(self) -> dict[str, Any]:
        m, reg = self.manifest, self.registered
        missing = self.missing_env
        return {
            "name": m.name,
            "key": m.key,
            "kind": m.kind,
            "version": m.version,
            "description": m.description,
            "author": m.author,
            "source": m.source,
            "path": str(m.path or m.entry_point),
            "enabled": self.enabled,
            "loaded": self.loaded,
            "state": self.state,
            "available": self.availability in ("available", "keyless"),
            "availability": self.availability,
            "missing_env": missing,
            "requires_env": m.env_names,
            "providers": list(reg.providers),
            "tools": list(reg.tools),
            "hooks": list(reg.hooks),
            "commands": list(reg.commands),
            "magics": list(reg.magics),
            "skills": list(reg.skills),
            "not_used_in_notebooks": list(reg.unused),
            "hooks_not_fired": [hook for hook in reg.hooks if hook not in FIRED_HOOKS],
            "error": self.error,
            "reason": self.reason,
            "overrides": list(self.overrides),
            "status": self.status,
        }


def _readiness(provider: Any) -> str:
    """``available`` (keyed or configured), ``keyless`` or "" — as selection judges it."""
    for verdict, probe in (("available", "is_available"), ("keyless", "is_keyless_available")):
        try:
            if getattr(provider, probe)():
                return verdict
        except Exception:  # a plugin's probe must not break a listing
            return ""
    return ""


def _sources() -> list[tuple[str, Path]]:
    sources: list[tuple[str, Path]] = []
    bundled = bundled_plugins_dir()
    if bundled is not None:
        sources.append(("bundled", bundled))
    if truthy(os.environ.get("HERMES_SAFE_MODE")):
        return sources
    sources.append(("user", config.get_hermes_home() / "plugins"))
    if truthy(os.environ.get("HERMES_ENABLE_PROJECT_PLUGINS")):
        sources.append(("project", Path.cwd() / ".hermes" / "plugins"))
    return sources


def _scan(root: Path, source: str, problems: list[str]) -> list[PluginRecord]:
    found: list[PluginRecord] = []
    seen: set[tuple[int, int]] = set()  # (device, inode) of folders visited: symlink loops end here

    def identity(path: str) -> tuple[int, int] | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        return (st.st_dev, st.st_ino)

    def walk(directory: str, prefix: tuple[str, ...], depth: int) -> None:
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            if entry.name.startswith((".", "_")):
                continue
            try:
                if not entry.is_dir():
                    continue
            except OSError:
                continue
            ident = identity(entry.path)
            if ident is None:
                continue
            if ident in seen:
                problem = (
                    f"skipped {entry.path}: it leads back to a folder already scanned (symlink loop); "
                    "remove the link"
                )
                log.warning(problem)
                problems.append(problem)
                continue
            seen.add(ident)
            rel = (*prefix, entry.name)
            manifest_file = find_manifest(entry.path)
            if manifest_file is None:
                if depth + 1 < _MAX_DEPTH:
                    walk(entry.path, rel, depth + 1)
                continue
            found.append(_record_for(Path(entry.path), manifest_file, rel, source))

    root_id = identity(str(root))
    if root_id is not None:
        seen.add(root_id)
        walk(str(root), (), 0)
    return found


def _record_for(path: Path, manifest_file: str, rel: tuple[str, ...], source: str) -> PluginRecord:
    nested_key = "/".join(rel)
    try:
        manifest = read_manifest(manifest_file, source=source, directory=path)
    except ManifestError as exc:
        bad = PluginManifest(name=rel[-1], source=source, path=path, key=nested_key)
        log.warning("plugin %s not loaded: %s", nested_key, exc)
        return PluginRecord(bad, error=str(exc))
    manifest.key = nested_key if len(rel) > 1 else manifest.name
    record = PluginRecord(manifest)
    if not manifest.provider_class and not os.path.isfile(os.path.join(path, "__init__.py")):
        record.error = (
            f"no __init__.py in {path}; a plugin directory needs __init__.py that defines register(ctx), "
            "or plugin.yaml naming its provider class (provider_class: provider:MyProvider)"
        )
        log.warning("plugin %s not loaded: %s", manifest.key, record.error)
    return record


_ep_cache: dict[str, Any] = {}


def _path_state() -> tuple[tuple[str, int], ...]:
    state = []
    for entry in sys.path:
        try:
            state.append((entry, os.stat(entry or ".").st_mtime_ns))
        except OSError:
            state.append((entry, -1))
    return tuple(state)


def _scan_entry_points(group: str) -> list[tuple[str, str]] | None:
    """``(name, value)`` of ``group`` read straight from ``*.dist-info/entry_points.txt`` files.

    ``importlib.metadata.entry_points`` builds a Distribution for every installed package (about
    70 ms for 200 packages); this reads only the small entry-point files and parses just those
    that name the group. Like importlib, the first distribution of a name on ``sys.path`` wins.
    None when a ``sys.path`` entry is not a plain folder (a zip): then importlib answers.
    """
    header = f"[{group}]"
    seen: set[str] = set()
    found: list[tuple[str, str]] = []
    for entry in sys.path:
        folder = entry or "."
        if not os.path.isdir(folder):
            if os.path.exists(folder):
                return None
            continue
        try:
            names = sorted(e.name for e in os.scandir(folder) if e.name.endswith((".dist-info", ".egg-info")))
        except OSError:
            continue
        for name in names:
            dist = name.rsplit(".", 1)[0].split("-", 1)[0].lower().replace("_", "-")
            if dist in seen:
                continue
            seen.add(dist)
            try:
                text = Path(folder, name, "entry_points.txt").read_text(encoding="utf-8")
            except OSError:
                continue
            if header not in text:
                continue
            parser = configparser.ConfigParser(delimiters=("=",), interpolation=None)
            parser.optionxform = str  # type: ignore[assignment,method-assign]  # keep names as written
            parser.read_string(text)
            found += [(key.strip(), value.strip()) for key, value in parser.items(group)]
    return found


def _entry_point_records() -> list[PluginRecord]:
    # Reading installed distributions' metadata is the slowest part of discovery; installing
    # or removing a package changes a sys.path folder's mtime, which invalidates this cache.
    state = _path_state()
    if _ep_cache.get("state") != state:
        found = _scan_entry_points(ENTRY_POINT_GROUP)
        if found is None:
            from importlib.metadata import entry_points  # lazy: only for zipped sys.path entries

            found = [(ep.name, ep.value) for ep in entry_points(group=ENTRY_POINT_GROUP)]
        _ep_cache.update(state=state, found=found)
    return [
        PluginRecord(PluginManifest(name=name, source="entrypoint", key=name, entry_point=value))
        for name, value in _ep_cache["found"]
    ]


@on_reset
def _forget_entry_points() -> None:
    _ep_cache.clear()


def _merge(records: dict[str, PluginRecord], record: PluginRecord) -> None:
    earlier = records.get(record.key)
    if earlier is not None:
        where = earlier.manifest.path or earlier.manifest.entry_point
        record.overrides = [*earlier.overrides, f"{earlier.manifest.source}: {where}"]
        record.shadowed = earlier
        log.warning(
            "plugin %s from %s (%s) overrides the one from %s (%s)",
            record.key,
            record.manifest.source,
            record.manifest.path or record.manifest.entry_point,
            earlier.manifest.source,
            where,
        )
    records[record.key] = record


def discover_records(problems: list[str]) -> dict[str, PluginRecord]:
    """Every plugin of every source by key (later sources win); scan problems go to ``problems``."""
    records: dict[str, PluginRecord] = {}
    for source, root in _sources():
        for record in _scan(root, source, problems):
            _merge(records, record)
    if not truthy(os.environ.get("HERMES_SAFE_MODE")):
        for record in _entry_point_records():
            _merge(records, record)
    return records
