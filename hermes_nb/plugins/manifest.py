"""``plugin.yaml`` → ``PluginManifest``: Hermes's plugin manifest, parsed and validated.

Every problem with a manifest raises one class, ``ManifestError``, whose message names the file
and the fix. ``kind`` comes from the manifest only; it is never guessed from the plugin's source.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_nb.errors import InvalidInputError

__all__ = [
    "KINDS",
    "MANIFEST_NAMES",
    "MAX_MANIFEST_BYTES",
    "EnvRequirement",
    "ManifestError",
    "PluginManifest",
    "find_manifest",
    "manifest_from_dict",
    "read_manifest",
]

log = logging.getLogger(__name__)

KINDS = ("standalone", "backend", "exclusive", "platform", "model-provider")
MANIFEST_NAMES = ("plugin.yaml", "plugin.yml")
#: Manifests are a few hundred bytes; anything this large is refused before YAML sees it.
MAX_MANIFEST_BYTES = 64 * 1024

_LIST_FIELDS = ("provides_tools", "provides_hooks", "provides_web_providers", "provides_image_providers")
_TEXT_FIELDS = ("name", "description", "author", "kind")
#: ``provider_class: provider:BraveProvider``: a module path inside the plugin folder, then a class
_PROVIDER_CLASS = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*")


class ManifestError(InvalidInputError):
    """A ``plugin.yaml`` that cannot be used; the message names the file and the fix."""


@dataclass(frozen=True)
class EnvRequirement:
    """One ``requires_env`` entry (simple ``- NAME`` or rich ``- {name, description, url, secret}``)."""

    name: str
    description: str = ""
    url: str = ""
    secret: bool = True


@dataclass
class PluginManifest:
    """What a plugin says about itself, plus where the loader found it."""

    name: str
    version: str = ""
    description: str = ""
    author: str = ""
    kind: str = "standalone"
    requires_env: list[EnvRequirement] = field(default_factory=list)
    provides_tools: list[str] = field(default_factory=list)
    provides_hooks: list[str] = field(default_factory=list)
    provides_web_providers: list[str] = field(default_factory=list)
    provides_image_providers: list[str] = field(default_factory=list)
    source: str = "user"  # bundled | user | project | entrypoint
    path: Path | None = None  # plugin directory (None for entry points)
    key: str = ""
    entry_point: str = ""  # "module:attr" for pip plugins
    #: ``module:Class`` of the provider the loader registers (instead of a ``register`` in __init__.py)
    provider_class: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def env_names(self) -> list[str]:
        return [req.name for req in self.requires_env]


def find_manifest(directory: Path | str) -> str | None:
    """``plugin.yaml`` (preferred) or ``plugin.yml`` inside ``directory``, as a path string."""
    for name in MANIFEST_NAMES:
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate):
            return candidate
    return None


def _load_yaml(text: str) -> Any:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(text, Loader=loader)


def read_manifest(
    file: Path | str, *, source: str = "user", key: str = "", directory: Path | None = None
) -> PluginManifest:
    """Parse and validate one manifest file; ``ManifestError`` on any problem."""
    import yaml

    try:
        with open(file, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_MANIFEST_BYTES:
                raise ManifestError(
                    f"{file} is {size} bytes (limit {MAX_MANIFEST_BYTES}); a manifest holds only metadata, "
                    "move data into other files",
                    plugin=key or None,
                )
            raw = handle.read()
    except OSError as exc:
        raise ManifestError(f"cannot read {file} ({exc.strerror}); check the file's permissions") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ManifestError(
            f"{file} is not UTF-8 (bad byte at offset {exc.start}); save it as UTF-8",
            plugin=key or None,
        ) from exc
    try:
        data = _load_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise ManifestError(
            f"{file} is not valid YAML{where}; fix the syntax (hint: quote values containing ':' or '#')",
            plugin=key or None,
        ) from exc
    folder = directory if directory is not None else Path(file).parent
    return manifest_from_dict(data, where=file, source=source, key=key, default_name=folder.name, path=folder)


def _text(data: dict[str, Any], name: str, where: Path | str) -> str:
    value = data.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ManifestError(
            f"{where}: field '{name}' must be a string, got {type(value).__name__}; "
            f'write it as {name}: "..."'
        )
    return value.strip()


def _str_list(data: dict[str, Any], name: str, where: Path | str) -> list[str]:
    value = data.get(name)
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        raise ManifestError(
            f"{where}: field '{name}' must be a list of names, got {value!r}; write it as\n"
            f"{name}:\n  - first_name"
        )
    return [item.strip() for item in value]


def _env(data: dict[str, Any], where: Path | str) -> list[EnvRequirement]:
    value = data.get("requires_env")
    if value is None:
        return []
    if not isinstance(value, list):
        raise ManifestError(
            f"{where}: 'requires_env' must be a list (`- MY_API_KEY` or `- name: MY_API_KEY`), "
            f"got {type(value).__name__}"
        )
    out: list[EnvRequirement] = []
    for item in value:
        if isinstance(item, str) and item.strip():
            out.append(EnvRequirement(item.strip()))
        elif isinstance(item, dict) and isinstance(item.get("name"), str) and item["name"].strip():
            out.append(
                EnvRequirement(
                    item["name"].strip(),
                    description=str(item.get("description") or ""),
                    url=str(item.get("url") or ""),
                    secret=bool(item.get("secret", True)),
                )
            )
        else:
            raise ManifestError(
                f"{where}: bad 'requires_env' entry {item!r}; use `- MY_API_KEY` or "
                "`- {name: MY_API_KEY, description: ..., url: ...}`"
            )
    return out


def _provider_class(data: dict[str, Any], where: Path | str) -> str:
    value = data.get("provider_class")
    if value is None:
        return ""
    if not isinstance(value, str) or not _PROVIDER_CLASS.fullmatch(value.strip()):
        raise ManifestError(
            f"{where}: field 'provider_class' must be 'module:Class' (the module's path inside the plugin "
            f"folder, without .py, then the class name), got {value!r}; write it as "
            "provider_class: provider:MyProvider"
        )
    return value.strip()


def manifest_from_dict(
    data: Any,
    *,
    where: Path | str,
    source: str = "user",
    key: str = "",
    default_name: str = "",
    path: Path | None = None,
) -> PluginManifest:
    """Validate parsed YAML (``where`` names the file in messages)."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ManifestError(
            f"{where} must be a mapping of fields (name: ..., version: ...), got {type(data).__name__}",
            plugin=key or None,
        )
    try:
        texts = {name: _text(data, name, where) for name in _TEXT_FIELDS}
        version = data.get("version")
        if version is not None and not isinstance(version, (str, int, float)):
            raise ManifestError(f"{where}: field 'version' must be a string like \"1.0.0\", got {version!r}")
        lists = {name: _str_list(data, name, where) for name in _LIST_FIELDS}
        env = _env(data, where)
        provider_class = _provider_class(data, where)
    except ManifestError as exc:
        exc.plugin = key or None
        raise
    kind = texts["kind"].lower() or "standalone"
    if kind not in KINDS:
        log.warning(
            "%s: unknown plugin kind %r, treated as 'standalone' (valid: %s)", where, kind, ", ".join(KINDS)
        )
        kind = "standalone"
    known = set(_TEXT_FIELDS) | set(_LIST_FIELDS) | {"version", "requires_env", "provider_class"}
    return PluginManifest(
        name=texts["name"] or default_name,
        version="" if version is None else str(version),
        description=texts["description"],
        author=texts["author"],
        kind=kind,
        requires_env=env,
        source=source,
        path=path,
        key=key,
        extra={k: v for k, v in data.items() if k not in known},
        provides_tools=lists["provides_tools"],
        provides_hooks=lists["provides_hooks"],
        provides_web_providers=lists["provides_web_providers"],
        provides_image_providers=lists["provides_image_providers"],
        provider_class=provider_class,
    )
