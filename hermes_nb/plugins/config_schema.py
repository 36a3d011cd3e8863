"""Configuration keys and their types, checked: an unknown key gets "did you mean", a bad value its type.

Known keys are ours and Hermes's (``config.KNOWN_KEYS``, with ``<name>`` standing for a provider and
``<plugin>`` for a plugin), the keys discovered plugins declare in their manifests' ``settings:``
(type, choices), keys a provider plugin reads under its own name (``web.<provider>.<key>``,
``image_gen.<provider>.<key>``) and a plugin's own settings (``plugins.entries.<plugin>.settings``).
Sections that are not ours (Hermes's ``model``, ``agent``, …) are Hermes's business and pass.
``check_setting`` runs on every ``hn.config.set``; with ``providers=True`` (saving to config.yaml,
``hermes-nb config set``, ``doctor``) provider names are also checked against the installed plugins.
"""

from __future__ import annotations

import difflib
from typing import Any

from hermes_nb import config
from hermes_nb.config_keys import Setting
from hermes_nb.errors import InvalidInputError
from hermes_nb.plugins.registry import image_providers, web_providers
from hermes_nb.plugins.settings import plugin_settings
from hermes_nb.store.replay import CACHE_MODES

__all__ = ["PROVIDER_KEYS", "check_setting", "config_problems"]

#: Keys whose value names a provider (or, for ``web.provider_priority``, a list of names).
PROVIDER_KEYS = {
    "web.backend": "web",
    "web.search_backend": "web",
    "web.extract_backend": "web",
    "web.crawl_backend": "web",
    "web.provider_priority": "web",
    "image_gen.provider": "image",
}

_NUMBER = (int, float)
#: Types of keys whose default (None) says nothing; the others take their default's type.
_TYPES: dict[str, tuple[type, ...]] = {
    **{key: (str,) for key in PROVIDER_KEYS},
    "web.provider_priority": (list,),
    "web.<name>.base_url": (str,),
    "image_gen.model": (str,),
    "image_gen.<name>.base_url": (str,),
    "image_gen.<name>.model": (str,),
    "image_gen.budget_usd": _NUMBER,
    "batch.<name>.rps": _NUMBER,
    "batch.<name>.in_flight": (int,),
    "cache.replay_file": (str,),
    "plugins.entries.<plugin>.settings": (dict,),
}
_CHOICES: dict[str, tuple[Any, ...]] = {"cache.mode": CACHE_MODES}
_TYPE_NAMES = {bool: "true/false", int: "an integer", float: "a number", str: "a string", list: "a list",
               dict: "a mapping"}
#: a plugin setting's declared type -> the Python types its values may have
_SETTING_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "number": _NUMBER, "boolean": (bool,),
    "list": (list, str),  # a comma-separated string is read as a list too
    "mapping": (dict,),
}


def _known() -> dict[str, Any]:
    """Every known key or ``<name>`` pattern: the core keys, then the discovered plugins' settings."""
    settings: dict[str, Setting] = plugin_settings()
    return {**config.KNOWN_KEYS, **{key: (s.default, s.doc) for key, s in settings.items()}}


def _plugin_setting(pattern: str) -> Setting | None:
    """The plugin setting ``pattern`` is (core keys never ask: checking them discovers no plugins)."""
    return None if pattern in config.KNOWN_KEYS else plugin_settings().get(pattern)


def _sections() -> set[str]:
    return {key.split(".", 1)[0] for key in _known()}


def _pattern_of(key: str) -> str | None:
    """The known key or pattern ``key`` is an instance of, or None."""
    core = _core_pattern_of(key)
    if core is not None:
        return core
    parts = key.split(".")
    if len(parts) > 4 and parts[:2] == ["plugins", "entries"] and parts[3] == "settings":
        return "plugins.entries.<plugin>.settings.*"  # inside a plugin's own settings: the plugin's business
    return key if key in plugin_settings() else None


def _core_pattern_of(key: str) -> str | None:
    if key in config.KNOWN_KEYS:
        return key
    parts = key.split(".")
    for known in config.KNOWN_KEYS:
        pattern = known.split(".")
        if len(pattern) == len(parts) and all(
            p == k or (p.startswith("<") and p.endswith(">")) for p, k in zip(pattern, parts, strict=True)
        ):
            return known
    return None


def _provider_namespace(key: str) -> str | None:
    """``web.<provider>.<key>`` a provider plugin reads: the provider name, if ``key`` is one."""
    parts = key.split(".")
    if len(parts) < 3 or parts[0] not in ("web", "image_gen"):
        return None
    concrete = [k for k in _known() if k.startswith(f"{parts[0]}.{parts[1]}.") and "<" not in k]
    if concrete:
        return None  # a namespace we know the keys of: a key outside them is a typo, not a plugin key
    return parts[1]


def _unknown(key: str) -> InvalidInputError:
    concrete = [k for k in _known() if "<" not in k]
    close = difflib.get_close_matches(key, concrete, n=3, cutoff=0.75)
    hint = f"did you mean {' or '.join(close)}?" if close else "see `hermes-nb config show` or the README"
    details = {"key": key, "suggestions": close}
    return InvalidInputError(f"unknown config key {key!r}: {hint}", details=details)


def _describe(types: tuple[type, ...]) -> str:
    if types == _NUMBER:
        return "a number"
    return " or ".join(_TYPE_NAMES.get(t, t.__name__) for t in types)


def _expected(pattern: str) -> tuple[type, ...] | None:
    if pattern in _TYPES:
        return _TYPES[pattern]
    setting = _plugin_setting(pattern)
    if setting is not None and setting.types:
        types = [t for name in setting.types for t in _SETTING_TYPES[name]]
        return tuple(dict.fromkeys(types))
    default = setting.default if setting is not None else (
        config.KNOWN_KEYS[pattern][0] if pattern in config.KNOWN_KEYS else None
    )
    if default is None:
        return None
    if isinstance(default, bool):
        return (bool,)
    if isinstance(default, (int, float)):
        return _NUMBER if isinstance(default, float) else (int,)
    if isinstance(default, list):
        return (list, str)  # a comma-separated string is read as a list too
    return (type(default),)


def _check_value(key: str, pattern: str, value: Any) -> None:
    if value is None:
        return  # None unsets: the default applies
    types = _expected(pattern)
    ok = types is None or (isinstance(value, types) and not (isinstance(value, bool) and bool not in types))
    if not ok:
        assert types is not None
        raise InvalidInputError(
            f"config {key} must be {_describe(types)}, got {type(value).__name__} {value!r}",
            details={"key": key, "expected": _describe(types)},
        )
    if types == _NUMBER and key.rsplit(".", 1)[-1] in ("timeout", "deadline", "ttl") and value <= 0:
        raise InvalidInputError(f"config {key} must be a positive number of seconds, got {value!r}")
    setting = _plugin_setting(pattern)
    choices = _CHOICES.get(pattern) or (setting.choices if setting is not None else ())
    if choices and value not in choices:
        raise InvalidInputError(f"config {key} must be one of {', '.join(map(str, choices))}, got {value!r}")


def _check_provider(key: str, value: Any, kind: str) -> None:
    registry = web_providers if kind == "web" else image_providers
    names = registry.names()
    wanted = value if isinstance(value, list) else [value]
    for name in wanted:
        if not isinstance(name, str) or name.strip().lower().replace("_", "-") not in names:
            close = difflib.get_close_matches(str(name), names, n=1)
            hint = f"did you mean {close[0]}? " if close else ""
            known = ", ".join(names) or "none"
            raise InvalidInputError(
                f"config {key}: no {kind} provider is called {name!r}; {hint}known: {known}",
                details={"key": key, "known": names},
            )


def check_setting(key: str, value: Any, *, providers: bool = False) -> None:
    """Raise ``InvalidInputError`` when setting ``key`` to ``value`` would break something later."""
    section = key.split(".", 1)[0]
    if section not in {k.split(".", 1)[0] for k in config.KNOWN_KEYS} and section not in _sections():
        return  # not one of our sections: Hermes's own configuration
    pattern = _pattern_of(key)
    if pattern is None:
        namespace = _provider_namespace(key)
        if namespace is None:
            raise _unknown(key)
        if providers:
            _check_provider(key, namespace, "web" if key.startswith("web.") else "image")
        return
    _check_value(key, pattern, value)
    if providers and key in PROVIDER_KEYS and value is not None:
        _check_provider(key, value, PROVIDER_KEYS[key])


def _flatten(tree: Any, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in tree.items():
        key = f"{prefix}.{name}" if prefix else str(name)
        leaf = _pattern_of(key) is not None or _provider_namespace(key) is not None
        if isinstance(value, dict) and value and not leaf:
            out.update(_flatten(value, key))
        else:
            out[key] = value
    return out


def config_problems() -> list[str]:
    """Every problem in ``$HERMES_HOME/config.yaml``, one line each (empty when it is fine)."""
    path = config.get_hermes_home() / "config.yaml"
    if not path.exists():
        return []
    try:
        data = config.file_config()
    except InvalidInputError as exc:
        return [exc.message]
    problems = []
    for key, value in _flatten(data).items():
        try:
            check_setting(key, value, providers=True)
        except InvalidInputError as exc:
            problems.append(f"{path}: {exc.message}")
    return problems
