"""Configuration: ``$HERMES_HOME``, ``config.yaml``, secrets, and where each value came from.

Order for a config value (first wins):

1. runtime overrides (``hn.config.set(key, value)``, ``%hermes config set``) for this process;
2. ``$HERMES_HOME/config.yaml`` (Hermes's file and keys);
3. the documented default in ``KNOWN_KEYS``.

Order for a secret (``resolve_key``), after simonw/llm's ``get_key``:

1. a key given for this session with ``hn.config.set_key(NAME, value)`` (e.g. from ``getpass``);
2. the process environment;
3. ``$HERMES_HOME/.env``.

Secret values are never stored in the config dict, never shown by ``show()`` and are registered
with ``hermes_nb.redaction`` so that no error, log line or rendered output can contain them.
"""

from __future__ import annotations

import builtins
import copy
import os
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hermes_nb._services import services
from hermes_nb._state import on_reset
from hermes_nb.errors import InvalidInputError
from hermes_nb.redaction import MASK, is_secret_name, register_secret

__all__ = [
    "KNOWN_KEYS",
    "DEAD_KEYS",
    "ConfigValue",
    "get_hermes_home",
    "load_config",
    "get",
    "set",
    "unset",
    "show",
    "set_key",
    "resolve_key",
    "get_env_value",
    "export_dotenv",
    "reset",
    "save",
]

_UNSET: Any = object()

#: Every documented configuration key with its default and meaning. ``tests/test_docs.py``
#: checks that each appears in the README's configuration reference.
KNOWN_KEYS: dict[str, tuple[Any, str]] = {
    "web.backend": (None, "Provider for every web capability unless a per-capability key is set."),
    "web.search_backend": (None, "Provider for search (wins over web.backend)."),
    "web.extract_backend": (None, "Provider for extract (wins over web.backend)."),
    "web.crawl_backend": (None, "Provider for crawl (wins over web.backend)."),
    "web.provider_priority": (None, "List reordering providers inside each auto-selection tier."),
    "web.extract_char_limit": (15000, "Characters of an extracted page kept inline; the rest is stored."),
    "web.extract.min_confidence": (0.5, "direct: below this extraction confidence (0-1) try the next candidate."),
    "web.timeout": (20.0, "Per-request timeout in seconds for web providers."),
    "web.deadline": (60.0, "Overall deadline in seconds for one search/extract call, retries included."),
    "web.max_retries": (2, "Retries on 429, 5xx and connect errors."),
    "web.jina_fallback": (False, "Use Jina Reader for JS-heavy or near-empty public pages."),
    "web.crawl_delay": (0.5, "Politeness delay in seconds between requests of the built-in crawler."),
    "web.ddgs.timeout": (30.0, "Hard wall-clock limit in seconds for one ddgs search (in a subprocess)."),
    "web.<name>.base_url": (None, "Endpoint override of an HTTP web provider (emulator, proxy, self-host)."),
    "web.jina.search_base_url": (None, "Jina Search endpoint (Reader is web.jina.base_url)."),
    "web.openserp.engine": ("google", "Engine of a self-hosted OpenSERP (google, bing, duck, mega, ...)."),
    "web.<name>.mcp_url": (None, "Public MCP endpoint used without a key (exa, parallel, firecrawl)."),
    "web.exa.search_type": ("auto", "Exa search type: auto, neural, keyword, fast, instant or deep."),
    "web.exa.contents": ("highlights", "What Exa returns with each hit: highlights, text or none."),
    "web.parallel.mode": ("fast", "Parallel search mode: turbo, fast, basic or advanced."),
    "web.parallel.objective": (None, "Objective of Parallel searches and extracts (default: the query)."),
    "web.firecrawl.crawl_timeout": (120.0, "Deadline (s) of one Firecrawl crawl job, polling included."),
    "web.xai.model": ("grok-4-fast", "xAI model that runs the web_search tool."),
    "web.xai.allowed_domains": ([], "Only search these domains with xAI (at most 5; not with excluded)."),
    "web.xai.excluded_domains": ([], "Never search these domains with xAI (at most 5)."),
    "image_gen.provider": (None, "Image provider; when set, only that provider is used."),
    "image_gen.model": (None, "Model id passed to the image provider."),
    "image_gen.<name>.base_url": (None, "Endpoint override of an HTTP image provider."),
    "image_gen.<name>.model": (None, "Model for one image provider (wins over image_gen.model)."),
    "image_gen.diffusers.model": (None, "Local pipeline dir or an already-cached hub id (never downloaded)."),
    "image_gen.diffusers.size": (None, "'WxH' or {aspect: 'WxH'} for diffusers (multiples of 8)."),
    "image_gen.xai.resolution": (None, "xAI output resolution ('1k' or '2k')."),
    "image_gen.comfyui.workflow": (None, "ComfyUI workflow file (API format, {{name}} placeholders)."),
    "image_gen.comfyui.steps": (20, "Sampler steps filled into a ComfyUI workflow's {{steps}}."),
    "image_gen.timeout": (120.0, "Deadline in seconds for one image generation, polling included."),
    "image_gen.budget_usd": (None, "US dollars one session may spend on fresh images; over it is refused."),
    "plugins.enabled": ([], "Keys or names of non-bundled plugins to load."),
    "plugins.disabled": ([], "Keys or names of plugins never to load (wins over enabled)."),
    "plugins.entries.<plugin>.settings": (None, "A plugin's own settings (ctx.get_config / ctx.set_config)."),
    "plugins.entries.<plugin>.granted_capabilities": ([], "Capabilities granted to a plugin (has_capability)."),
    "security.allow_lazy_installs": (True, "Let lazy_deps.ensure() pip-install allow-listed packages."),
    "security.allow_private_urls": (False, "Let extract/crawl/image downloads reach private addresses."),
    "cache.mode": ("read_write", "read_write | replay | refresh | off."),
    "cache.ttl": (86400.0, "Seconds a cached search stays fresh in read_write mode."),
    "cache.replay_file": (None, "Cassette to replay (like HERMES_NB_REPLAY): no network, a miss is CACHE_MISS."),
    "cache.replay_strict": (False, "Replay matches backend, limit and every parameter exactly."),
    "batch.<name>.rps": (None, "Batch calls answered by this provider start at most this many per second."),
    "batch.<name>.in_flight": (None, "Batch calls answered by this provider in flight at once (caps concurrency)."),
    "display.max_results": (10, "Search results shown inline before 'more'."),
    "display.thumbnail_px": (256, "Longest edge of embedded image thumbnails."),
    "display.files_dir": (
        "hermes_nb_files",
        "Folder beside the notebook that full-size images are linked from ('' links the cache file).",
    ),
}

#: Hermes keys that no longer do anything; a config.yaml that sets one gets a warning naming why.
DEAD_KEYS: dict[str, str] = {
    "auxiliary.web_extract": "LLM summarisation of extracted pages was removed from Hermes; long pages are "
    "truncated and the full text stored instead (see web.extract_char_limit)",
}

_lock = threading.RLock()
_overrides: dict[str, Any] = {}
_session_keys: dict[str, str] = {}
_exported: dict[str, str | None] = {}  # names put into os.environ → the value they replaced
_file_cache: dict[Path, tuple[float, Any]] = {}


@dataclass(frozen=True)
class ConfigValue:
    """One effective configuration value and where it came from."""

    key: str
    value: Any
    source: str  # "runtime", "config.yaml", "default"

    def __str__(self) -> str:
        return f"{self.key} = {self.value!r}  ({self.source})"


def get_hermes_home() -> Path:
    """``$HERMES_HOME`` or ``~/.hermes`` (not created here)."""
    raw = os.environ.get("HERMES_HOME", "").strip()
    return Path(raw).expanduser() if raw else Path.home() / ".hermes"


def _read_cached(path: Path, parse: Any) -> Any:
    try:
        mtime = path.stat().st_mtime_ns
    except OSError:
        return None
    with _lock:
        hit = _file_cache.get(path)
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
        raise InvalidInputError(
            f"{path} is not valid YAML ({exc.__class__.__name__}); fix or remove the file"
        ) from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InvalidInputError(f"{path} must hold a mapping at the top level")
    for key, why in DEAD_KEYS.items():
        if _lookup(data, key) is not _UNSET:
            warnings.warn(f"{path}: {key} has no effect: {why}; remove it", UserWarning, stacklevel=2)
    return data


def load_config() -> dict[str, Any]:
    """The parsed ``config.yaml`` with runtime overrides applied (a fresh copy)."""
    data = _read_cached(get_hermes_home() / "config.yaml", _parse_yaml) or {}
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
        return copy.deepcopy(KNOWN_KEYS[key][0])
    parts = key.split(".")
    if len(parts) == 3:
        pattern = f"{parts[0]}.<name>.{parts[2]}"
        if pattern in KNOWN_KEYS:
            return copy.deepcopy(KNOWN_KEYS[pattern][0])
    return None


def effective(key: str) -> ConfigValue:
    """The value of ``key`` with its source."""
    with _lock:
        if key in _overrides:
            return ConfigValue(key, copy.deepcopy(_overrides[key]), "runtime")
    data = _read_cached(get_hermes_home() / "config.yaml", _parse_yaml) or {}
    found = _lookup(data, key)
    if found is not _UNSET and found is not None:
        return ConfigValue(key, copy.deepcopy(found), "config.yaml")
    return ConfigValue(key, _default(key), "default")


def get(key: str, default: Any = None) -> Any:
    """The effective value of a dotted key (``web.search_backend``), else ``default``."""
    value = effective(key).value
    return default if value is None else value


def set(key: str, value: Any, *, persist: bool = False) -> None:  # noqa: A001 - public API name
    """Set ``key`` for this process; ``persist=True`` also writes ``config.yaml``."""
    if not isinstance(key, str) or not key.strip() or " " in key:
        raise InvalidInputError(f"config key must be a dotted name like 'web.search_backend', got {key!r}")
    if is_secret_name(key.rsplit(".", 1)[-1]):
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
    """Every known or set key with its effective value and source; secrets are masked."""
    data = _read_cached(get_hermes_home() / "config.yaml", _parse_yaml) or {}
    keys = {k for k in KNOWN_KEYS if "<name>" not in k}
    keys |= builtins.set(_flatten(data))
    with _lock:
        keys |= builtins.set(_overrides)
    rows = []
    for key in sorted(keys):
        item = effective(key)
        if is_secret_name(key.rsplit(".", 1)[-1]) and item.value:
            item = ConfigValue(key, MASK, item.source)
        rows.append(item)
    return rows


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
    values = _read_cached(get_hermes_home() / ".env", _parse_dotenv) or {}
    added = []
    with _lock:
        for name, value in values.items():
            if value and name.isidentifier() and not os.environ.get(name):
                if is_secret_name(name):
                    register_secret(value)
                _export(name, value)
                added.append(name)
    return added


def resolve_key(*names: str) -> str | None:
    """The first non-empty secret among ``names`` (session → environment → ``$HERMES_HOME/.env``)."""
    dotenv: dict[str, str] | None = None
    for name in names:
        with _lock:
            value = _session_keys.get(name)
        if not value:
            value = os.environ.get(name, "").strip()
        if not value:
            if dotenv is None:
                dotenv = _read_cached(get_hermes_home() / ".env", _parse_dotenv) or {}
            value = dotenv.get(name, "").strip()
        if value:
            if is_secret_name(name):
                register_secret(value)
            return value
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
        for name in list(_exported):
            _unexport(name)
