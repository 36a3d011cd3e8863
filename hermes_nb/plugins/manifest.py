"""``plugin.yaml`` → ``PluginManifest``: Hermes's plugin manifest, parsed and validated.

Every problem with a manifest raises one class, ``ManifestError``, whose message names the file
and the fix. ``kind`` comes from the manifest only; it is never guessed from the plugin's source.
``settings:`` lists the configuration keys the plugin reads (key, type, default, choices, doc); they
become known keys — validated, shown by ``config show``, documented — once the plugin is discovered.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_nb.config_keys import KNOWN_KEYS, SETTING_TYPES, Setting
from hermes_nb.errors import InvalidInputError

__all__ = [
    "KINDS",
    "MANIFEST_NAMES",
    "MAX_MANIFEST_BYTES",
    "EnvRequirement",
    "Setting",
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

_LIST_FIELDS = (
    "provides_tools", "provides_hooks", "provides_web_providers", "provides_image_providers",
    "provides_video_providers",
)  # fmt: skip
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
    provides_video_providers: list[str] = field(default_factory=list)
    settings: list[Setting] = field(default_factory=list)
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


_KEY = re.compile(r"[a-z][a-z0-9_-]*(\.[a-z0-9][a-z0-9_-]*)+")
_SETTING_FIELDS = ("key", "type", "default", "choices", "doc")
_PY_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,), "list": (list,),
    "mapping": (dict,),
}
_EXAMPLE = (
    "write it as\nsettings:\n  - key: web.myprovider.region\n    type: string\n    default: eu\n"
    "    choices: [eu, us]\n    doc: \"Region the API answers from.\""
)


def setting_accepts(types: tuple[str, ...], value: Any) -> bool:
    """True when ``value`` has one of the setting ``types`` (a bool is not an integer or a number)."""
    for name in types:
        allowed = _PY_TYPES[name]
        if isinstance(value, allowed) and not (isinstance(value, bool) and name not in ("boolean",)):
            return True
    return False


def _setting(item: Any, where: Path | str, plugin: str) -> Setting:
    if not isinstance(item, dict) or not isinstance(item.get("key"), str):
        raise ManifestError(f"{where}: each 'settings' entry needs a key, got {item!r}; {_EXAMPLE}")
    key = item["key"].strip()
    unknown = sorted(set(item) - set(_SETTING_FIELDS))
    if unknown:
        raise ManifestError(
            f"{where}: setting {key!r} has unknown field(s) {', '.join(map(str, unknown))}; "
            f"a setting has {', '.join(_SETTING_FIELDS)}"
        )
    if not _KEY.fullmatch(key) or "<" in key:
        raise ManifestError(
            f"{where}: setting key {key!r} must be a dotted lower-case name like 'web.myprovider.region'"
        )
    if key in KNOWN_KEYS:
        raise ManifestError(f"{where}: setting {key!r} is a core hermes_nb key; choose a key of your own")
    raw_type = item.get("type")
    types = tuple([raw_type] if isinstance(raw_type, str) else raw_type or ())
    bad = [t for t in types if t not in SETTING_TYPES]
    if bad or not types:
        raise ManifestError(
            f"{where}: setting {key!r} needs a type, one of {', '.join(SETTING_TYPES)} (or a list of them), "
            f"got {raw_type!r}"
        )
    doc = item.get("doc")
    if not isinstance(doc, str) or not doc.strip() or "\n" in doc.strip():
        raise ManifestError(f"{where}: setting {key!r} needs a one-line doc string (doc: \"What it does.\")")
    default = item.get("default")
    if default is not None and not setting_accepts(types, default):
        raise ManifestError(
            f"{where}: the default of setting {key!r} is {default!r}, "
            f"which is not of type {' or '.join(types)}"
        )
    raw_choices = item.get("choices")
    if raw_choices is not None and (not isinstance(raw_choices, list) or not raw_choices):
        raise ManifestError(f"{where}: 'choices' of setting {key!r} must be a non-empty list of values")
    choices = tuple(raw_choices or ())
    if choices and default is not None and default not in choices:
        raise ManifestError(
            f"{where}: the default of setting {key!r} ({default!r}) is not one of its choices"
        )
    return Setting(key, default, doc.strip(), types, choices, plugin)


def _settings(data: dict[str, Any], where: Path | str, plugin: str) -> list[Setting]:
    value = data.get("settings")
    if value is None:
        return []
    if not isinstance(value, list):
        raise ManifestError(f"{where}: 'settings' must be a list of settings; {_EXAMPLE}")
    found = [_setting(item, where, plugin) for item in value]
    keys = [s.key for s in found]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        raise ManifestError(f"{where}: setting {twice[0]!r} is declared twice; keep one")
    return found


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
        settings = _settings(data, where, texts["name"] or default_name)
    except ManifestError as exc:
        exc.plugin = key or None
        raise
    kind = texts["kind"].lower() or "standalone"
    if kind not in KINDS:
        log.warning(
            "%s: unknown plugin kind %r, treated as 'standalone' (valid: %s)", where, kind, ", ".join(KINDS)
        )
        kind = "standalone"
    known = set(_TEXT_FIELDS) | set(_LIST_FIELDS) | {"version", "requires_env", "provider_class", "settings"}
    return PluginManifest(
        name=texts["name"] or default_name,
        version="" if version is None else str(version),
        description=texts["description"],
        author=texts["author"],
        kind=kind,
        requires_env=env,
        settings=settings,
        source=source,
        path=path,
        key=key,
        extra={k: v for k, v in data.items() if k not in known},
        provides_tools=lists["provides_tools"],
        provides_hooks=lists["provides_hooks"],
        provides_web_providers=lists["provides_web_providers"],
        provides_image_providers=lists["provides_image_providers"],
        provides_video_providers=lists["provides_video_providers"],
        provider_class=provider_class,
    )
