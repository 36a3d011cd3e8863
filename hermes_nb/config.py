"""Configuration: ``$HERMES_HOME``, ``config.yaml``, secrets, and where each value came from.

Order for a config value (first wins):

1. runtime overrides (``hn.config.set(key, value)``, ``%hermes config set``) for this process;
2. ``$HERMES_HOME/config.yaml`` (Hermes's file and keys);
3. the documented default in ``KNOWN_KEYS``, or in the ``settings:`` of the plugin that declares the key.

Order for a secret (``resolve_key``), after simonw/llm's ``get_key``:

1. a key given for this session with ``hn.config.set_key(NAME, value)`` (e.g. from ``getpass``);
2. the process environment;
3. ``$HERMES_HOME/.env``.

Secret values are never stored in the config dict, never shown by ``show()`` and are registered
with ``hermes_nb.redaction`` so that no error, log line or rendered output can contain them.
"""

from __future__ import annotations

import builtins
import contextlib
import contextvars
import copy
import logging
import os
import threading
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hermes_nb._services import services
from hermes_nb._state import on_reset
from hermes_nb.config_keys import DEAD_KEYS, KNOWN_KEYS
from hermes_nb.errors import InvalidInputError
from hermes_nb.redaction import MASK, is_secret_name, register_secret

__all__ = [
    "KNOWN_KEYS",
    "DEAD_KEYS",
    "ConfigValue",
    "consistent",
    "get_hermes_home",
    "bundled_plugins_dir",
    "load_config",
    "file_config",
    "get",
    "set",
    "unset",
    "show",
    "set_key",
    "resolve_key",
    "add_secret_source",
    "remove_secret_sources",
    "load_secret_sources",
    "get_env_value",
    "export_dotenv",
    "reset",
    "save",
]

_UNSET: Any = object()
_log = logging.getLogger(__name__)

_lock = threading.RLock()
#: The top-level sections hermes_nb owns; the others are Hermes's own configuration.
_SECTIONS = frozenset(key.split(".", 1)[0] for key in KNOWN_KEYS)
_overrides: dict[str, Any] = {}
_session_keys: dict[str, str] = {}
_exported: dict[str, str | None] = {}  # names put into os.environ → the value they replaced
#: plugins' key lookups (a vault, a keyring), asked after the session, the environment and .env
_secret_sources: list[tuple[str, Callable[[str], Any]]] = []
_file_cache: dict[Path, tuple[float, Any]] = {}


@dataclass(frozen=True)
class ConfigValue:
    """One effective configuration value and where it came from."""

    key: str
    value: Any
    source: str  # "runtime", "config.yaml", "default"
    problem: str = ""  # why a config.yaml value is refused at use ("" when it is fine)

    @property
    def repair(self) -> str:
        """What to set to repair the problem: the key itself, or for a section ``section.KEY``."""
        return f"{self.key}.KEY" if self.problem.startswith(f"{self.key} must be a mapping") else self.key

    def __str__(self) -> str:
        flag = f"  ✗ {self.problem}" if self.problem else ""
        return f"{self.key} = {self.value!r}  ({self.source}){flag}"


def bundled_plugins_dir() -> Path | None:
    """``$HERMES_BUNDLED_PLUGINS``, else ``hermes_nb/bundled_plugins`` (wheel), else repo ``plugins/``."""
    override = os.environ.get("HERMES_BUNDLED_PLUGINS", "").strip()
    if override:
        return Path(override).expanduser()
    package = Path(__file__).resolve().parent  # hermes_nb/
    for candidate in (package / "bundled_plugins", package.parent / "plugins"):
        if candidate.is_dir():
            return candidate
    return None


def get_hermes_home() -> Path:
    """``$HERMES_HOME`` or ``~/.hermes`` (not created here)."""
    return _home_file("")


#: ``(HERMES_HOME, HOME, name)`` → the path: config lookups run several times per provider call.
_home_paths: dict[tuple[str, str, str], Path] = {}


def _home_file(name: str) -> Path:
    """``name`` inside ``get_hermes_home()`` (the folder itself for ``""``)."""
    key = (os.environ.get("HERMES_HOME", ""), os.environ.get("HOME", ""), name)
    path = _home_paths.get(key)
    if path is None:
        raw = key[0].strip()
        home = Path(raw).expanduser() if raw else Path.home() / ".hermes"
        path = home / name if name else home
        if len(_home_paths) > 64:  # HERMES_HOME changes in tests; keep the table small
            _home_paths.clear()
        _home_paths[key] = path
    return path


def _copy(value: Any) -> Any:
    """A copy the caller may change (strings, numbers and None are shared: they cannot change)."""
    return value if value is None or isinstance(value, (str, int, float)) else copy.deepcopy(value)


#: Inside ``consistent()``: the files read so far in this call, as first read (name → parsed value).
_pinned: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "hermes_nb_config_pinned", default=None
)


@contextlib.contextmanager
def consistent() -> Iterator[None]:
    """Within the block every lookup sees ``config.yaml`` and ``.env`` as they were first read in it.

    One provider call makes about ten lookups; pinned, they cost one ``stat`` of each file instead
    of ten (a ``stat`` lets another thread take the interpreter lock: 32 threads in a batch
    switched on each), and a file edited mid-call cannot give one call a mix of old and new values.
    The next call sees the edit. Threads started inside with a copy of this context share the pin.
    """
    if _pinned.get() is not None:
        yield
        return
    token = _pinned.set({})
    try:
        yield
    finally:
        _pinned.reset(token)


def _read_home(name: str, parse: Any) -> Any:
    """``name`` in ``$HERMES_HOME``, parsed (None when absent); pinned inside ``consistent()``."""
    pinned = _pinned.get()
    if pinned is None:
        return _read_fresh(_home_file(name), parse)
    if name not in pinned:
        pinned[name] = _read_fresh(_home_file(name), parse)
    return pinned[name]


def _read_fresh(path: Path, parse: Any) -> Any:
    try:
        mtime = os.stat(path).st_mtime_ns
    except OSError:
        return None
    hit = _file_cache.get(path)  # a single dict read needs no lock
    if hit and hit[0] == mtime:
        return hit[1]
    value = parse(path)
    with _lock:
        _file_cache[path] = (mtime, value)
    return value


def _parse_yaml(path: Path) -> dict[str, Any]:
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        what = getattr(exc, "problem", None) or exc.__class__.__name__
        raise InvalidInputError(
            f"{path} is not valid YAML ({where}{what}); fix that line or remove the file"
        ) from None  # the parser's own frames say nothing more than the line
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InvalidInputError(f"{path} must hold a mapping at the top level")
    for key, why in DEAD_KEYS.items():
        if _lookup(data, key) is not _UNSET:
            warnings.warn(f"{path}: {key} has no effect: {why}; remove it", UserWarning, stacklevel=2)
    return data


def file_config() -> dict[str, Any]:
    """``config.yaml`` as parsed, without runtime overrides (empty without a file; shared: do not change)."""
    return _read_home("config.yaml", _parse_yaml) or {}


def load_config() -> dict[str, Any]:
    """The parsed ``config.yaml`` with runtime overrides applied (a fresh copy)."""
    data = _read_home("config.yaml", _parse_yaml) or {}
    merged = copy.deepcopy(data)
    with _lock:
        for key, value in _overrides.items():
            _assign(merged, key, value)
    return merged


def _assign(tree: dict[str, Any], key: str, value: Any) -> None:
    parts = key.split(".")
    node = tree
    for part in parts[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = {}
            node[part] = child
        node = child
    if value is _UNSET:
        node.pop(parts[-1], None)
    else:
        node[parts[-1]] = value


def _lookup(tree: dict[str, Any], key: str) -> Any:
    node: Any = tree
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return _UNSET
        node = node[part]
    return node


def _default(key: str) -> Any:
    if key in KNOWN_KEYS:
        return _copy(KNOWN_KEYS[key][0])
    parts = key.split(".")
    if len(parts) == 3:
        pattern = f"{parts[0]}.<name>.{parts[2]}"
        if pattern in KNOWN_KEYS:
            return _copy(KNOWN_KEYS[pattern][0])
    setting = services.plugin_settings().get(key)  # a key a plugin declares in its plugin.yaml
    return _copy(setting.default) if setting is not None else None


def effective(key: str) -> ConfigValue:
    """The value of ``key`` with its source, and the ``problem`` that would refuse its use."""
    override = _overrides.get(key, _UNSET)  # a single dict read needs no lock
    if override is not _UNSET:
        return ConfigValue(key, _copy(override), "runtime")
    data = _read_home("config.yaml", _parse_yaml) or {}
    found = _lookup(data, key)
    if found is not _UNSET and found is not None:
        return ConfigValue(key, _copy(found), "config.yaml", _value_problem(key, found))
    return ConfigValue(key, _default(key), "default", _blocking_section(data, key))


def get(key: str, default: Any = None) -> Any:
    """The effective value of a dotted key (``web.search_backend``), else ``default``.

    A ``config.yaml`` value of the wrong type (``web.search_backend: 42``, ``budget_usd: "lots"``)
    or a section that is not a mapping (``web: 5``) is refused here, at use, with the command that
    repairs it — never silently read as the default.
    """
    item = effective(key)
    if item.problem:
        raise InvalidInputError(
            f"{_home_file('config.yaml')}: {item.problem}; repair it with "
            f"`hermes-nb config set {key} VALUE` (or %hermes config set …)",
            details={"key": key},
        )
    return default if item.value is None else item.value


#: ``(key, repr(value))`` → the problem of that config.yaml value ("" when fine): each is checked once.
_verdicts: dict[tuple[str, str], str] = {}


def _value_problem(key: str, value: Any) -> str:
    """Why the config.yaml ``value`` of ``key`` cannot be used ("" when it can)."""
    if is_secret_name(key.rsplit(".", 1)[-1]):
        return ""  # never echoed in a message; and a secret is not read from here anyway
    memo = (key, repr(value))
    verdict = _verdicts.get(memo)
    if verdict is None:
        verdict = ""
        try:
            services.check_setting(key, value, False)
        except InvalidInputError as exc:
            # an undeclared key is not refused when read (plugins read their own); a bad value is
            verdict = "" if "suggestions" in exc.details else exc.message
        if len(_verdicts) > 512:
            _verdicts.clear()
        _verdicts[memo] = verdict
    return verdict


def _blocking_section(data: dict[str, Any], key: str) -> str:
    """``web: 5`` hides ``web.search_backend``: say so instead of reading the default."""
    node: Any = data
    parts = key.split(".")
    for depth, part in enumerate(parts[:-1]):
        if not isinstance(node, dict) or part not in node:
            return ""
        node = node[part]
        if node is not None and not isinstance(node, dict):
            section = ".".join(parts[: depth + 1])
            return f"{section} must be a mapping of keys, got {type(node).__name__} {node!r}"
    return ""


def set(key: str, value: Any, *, persist: bool = False) -> None:  # noqa: A001 - public API name
    """Set ``key`` for this process; ``persist=True`` also writes ``config.yaml``."""
    if not isinstance(key, str) or not key.strip() or " " in key:
        raise InvalidInputError(f"config key must be a dotted name like 'web.search_backend', got {key!r}")
    if is_secret_name(key.rsplit(".", 1)[-1]):
        if key.split(".", 1)[0] in _SECTIONS:
            services.check_setting(key, None, False)  # an unknown key is "unknown", whatever its last word
        else:
            raise InvalidInputError(
                f"unknown config key {key!r}: see `hermes-nb config show` or the README (a secret goes in "
                "with hn.config.set_key(NAME, ...) or the environment, never the config)"
            )
        raise InvalidInputError(
            f"{key} looks like a secret; use hn.config.set_key('{key.rsplit('.', 1)[-1].upper()}', ...) "
            "or the environment instead of the config"
        )
    services.check_setting(key, value, persist)  # unknown key, wrong type, unknown provider: refused here
    with _lock:
        _overrides[key] = value
    if persist:
        save({key: value})


def unset(key: str) -> None:
    """Drop a runtime override (the file value or default applies again)."""
    with _lock:
        _overrides.pop(key, None)


def save(values: dict[str, Any]) -> Path:
    """Merge ``values`` into ``config.yaml`` atomically and return its path."""
    import yaml

    home = get_hermes_home()
    home.mkdir(parents=True, exist_ok=True)
    path = home / "config.yaml"
    data = _parse_yaml(path) if path.exists() else {}
    for key, value in values.items():
        _assign(data, key, value)
    tmp = path.with_suffix(".yaml.tmp")
    tmp.write_text(yaml.safe_dump(data, sort_keys=True), encoding="utf-8")
    os.replace(tmp, path)
    return path


def _flatten(tree: Any, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    if isinstance(tree, dict):
        for k, v in tree.items():
            key = f"{prefix}.{k}" if prefix else str(k)
            if isinstance(v, dict) and v:
                out.update(_flatten(v, key))
            else:
                out[key] = v
    return out


def show() -> list[ConfigValue]:
    """Every known or set key with its effective value and source; secrets are masked.

    A ``config.yaml`` value that would be refused at use carries its ``problem`` (a wrong type, an
    unknown key, a section that is not a mapping), so the listing says what to repair.
    """
    data = _read_home("config.yaml", _parse_yaml) or {}
    keys = {k for k in KNOWN_KEYS if "<name>" not in k}
    keys |= builtins.set(services.plugin_settings())
    keys |= builtins.set(_flatten(data))
    with _lock:
        keys |= builtins.set(_overrides)
    rows = []
    for key in sorted(keys):
        item = effective(key)
        problem = _shown_problem(item)
        value = MASK if is_secret_name(key.rsplit(".", 1)[-1]) and item.value else item.value
        rows.append(ConfigValue(key, value, item.source, problem))
    return rows


def _shown_problem(item: ConfigValue) -> str:
    """``item.problem``, plus what a listing should flag although no read refuses it (unknown keys)."""
    if item.source != "config.yaml" or is_secret_name(item.key.rsplit(".", 1)[-1]):
        return ""  # a default under a broken section: the section's own row says it
    if not isinstance(item.value, dict) and any(k.startswith(item.key + ".") for k in KNOWN_KEYS):
        return f"{item.key} must be a mapping of keys, got {type(item.value).__name__} {item.value!r}"
    if item.problem:
        return item.problem
    try:
        services.check_setting(item.key, item.value, False)
    except InvalidInputError as exc:
        return exc.message
    return ""


def _parse_dotenv(path: Path) -> dict[str, str]:
    values: dict[str, str] = {}
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return values
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        if line.startswith("export "):
            line = line[7:]
        name, _, value = line.partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        values[name.strip()] = value
    return values


def set_key(name: str, value: str | None) -> None:
    """Provide a secret for this session only, e.g. ``set_key("BRAVE_SEARCH_API_KEY", getpass())``.

    The value also goes into ``os.environ`` for this process, where Hermes plugins read keys;
    it is never written to a file, and ``reset()`` or ``set_key(name, None)`` takes it out again.
    """
    with _lock:
        if value:
            _session_keys[name] = value
            register_secret(value)
            _export(name, value)
        else:
            _session_keys.pop(name, None)
            _unexport(name)


def _export(name: str, value: str) -> None:
    if name not in _exported:
        _exported[name] = os.environ.get(name)
    os.environ[name] = value


def _unexport(name: str) -> None:
    if name in _exported:
        previous = _exported.pop(name)
        if previous is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = previous


def export_dotenv() -> list[str]:
    """Copy ``$HERMES_HOME/.env`` into ``os.environ`` as Hermes does, never overriding a set name.

    Hermes plugins read ``os.environ``; the loader calls this before any plugin is imported.
    Returns the names it set (secret-looking values are registered for redaction).
    """
    values = _read_home(".env", _parse_dotenv) or {}
    added = []
    with _lock:
        for name, value in values.items():
            if value and name.isidentifier() and not os.environ.get(name):
                if is_secret_name(name):
                    register_secret(value)
                _export(name, value)
                added.append(name)
    return added


def resolve_key(*names: str, load_sources: bool = True) -> str | None:
    """The first non-empty secret among ``names`` (session → environment → ``$HERMES_HOME/.env`` →
    the plugins' secret sources, ``ctx.register_secret_source``). Before the sources are asked, the
    plugins that may register one are imported, unless ``load_sources=False`` (plugin listings)."""
    dotenv: dict[str, str] | None = None
    for name in names:
        with _lock:
            value = _session_keys.get(name)
        if not value:
            value = os.environ.get(name, "").strip()
        if not value:
            if dotenv is None:
                dotenv = _read_home(".env", _parse_dotenv) or {}
            value = dotenv.get(name, "").strip()
        if value:
            if is_secret_name(name):
                register_secret(value)
            return value
    if load_sources and names:
        load_secret_sources()
    for name in names:  # only when no name is set anywhere: a source never overrides the user
        value = _from_sources(name)
        if value:
            register_secret(value)  # whatever its name: a vault's value is a secret
            return value
    return None


def add_secret_source(lookup: Callable[[str], Any], *, owner: str = "") -> None:
    """A key lookup (``lookup(NAME) -> value or None``) asked after the environment and ``.env``."""
    if not callable(lookup):
        raise TypeError("a secret source is a callable lookup(name) -> str | None")
    with _lock:
        _secret_sources.append((owner, lookup))


def remove_secret_sources(owner: str) -> None:
    """Forget the lookups ``owner`` added (its plugin was unloaded)."""
    with _lock:
        _secret_sources[:] = [(o, f) for o, f in _secret_sources if o != owner]


_loading_sources = threading.local()


def load_secret_sources() -> None:
    """Import the plugins that may register a secret source (those declaring no ``provides_*``).

    ``resolve_key`` calls it before asking the sources, except for plugin listings
    (``load_sources=False``), so listing plugins imports none. Never re-entered from that import."""
    if getattr(_loading_sources, "busy", False):
        return
    _loading_sources.busy = True
    try:
        services.load_plugins("secrets", None)
    except Exception as exc:  # a broken loader must not break key resolution
        _log.warning("loading secret-source plugins failed: %s", type(exc).__name__)
    finally:
        _loading_sources.busy = False


def _from_sources(name: str) -> str | None:
    with _lock:
        sources = list(_secret_sources)
    for owner, lookup in sources:
        try:
            value = lookup(name)
        except Exception as exc:  # a vault that fails must not break the call; never log its message
            _log.warning(
                "secret source of %s failed looking up %s (%s)", owner or "?", name, type(exc).__name__
            )
            continue
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def get_env_value(name: str) -> str | None:
    """Hermes's ``hermes_cli.config.get_env_value``: process env first, then ``$HERMES_HOME/.env``."""
    return resolve_key(name)


@on_reset
def reset() -> None:
    """Forget runtime overrides, session keys and file caches (tests use this)."""
    with _lock:
        _overrides.clear()
        _session_keys.clear()
        _file_cache.clear()
        _home_paths.clear()
        _verdicts.clear()
        _secret_sources.clear()
        for name in list(_exported):
            _unexport(name)
