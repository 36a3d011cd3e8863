"""Why a provider is unavailable and what fixes it: one answer for errors, ``doctor`` and listings.

Sources, in order: the provider's ``get_setup_schema()`` (``env_vars`` items and an optional
``"install"`` hint, e.g. ``pip install ...`` or the config key to set) and the ``requires_env`` of
the plugin manifest that registered it. Only names whose secret is not resolvable are reported.
"""

from __future__ import annotations

import re
from typing import Any

from hermes_nb import config
from hermes_nb.plugins import loader
from hermes_nb.redaction import is_secret_name

__all__ = ["missing_env", "setup_hint"]

_WHERE = "hn.config.set_key(...), the environment or $HERMES_HOME/.env"


def _schema(provider: Any) -> dict[str, Any]:
    try:
        schema = provider.get_setup_schema() or {}
    except Exception:  # a broken schema must not break an error message or a listing
        return {}
    return schema if isinstance(schema, dict) else {}


def _manifest_env(owner: str) -> list[str]:
    if not owner:
        return []
    try:
        rows = loader.list_plugins()
    except Exception:  # no loader (or a broken one): the schema alone still answers
        return []
    for row in rows:
        if owner in (row.get("key"), row.get("name")):
            names = []
            for item in row.get("requires_env") or []:
                name = item.get("name") if isinstance(item, dict) else item
                if isinstance(name, str) and name:
                    names.append(name)
            return names
    return []


def missing_env(provider: Any, owner: str = "") -> list[str]:
    """Env/secret names ``provider`` (registered by plugin ``owner``) needs and that are not set."""
    names: list[str] = []
    for item in _schema(provider).get("env_vars") or []:
        key = item.get("key") if isinstance(item, dict) else item
        if isinstance(key, str) and key:
            names.append(key)
    names.extend(_manifest_env(owner))
    return [name for name in dict.fromkeys(names) if not config.resolve_key(name)]


def setup_hint(provider: Any, owner: str = "", *, shell: bool = False) -> str:
    """One sentence naming the fix: the variables to set and any install/config step.

    ``shell=True`` words it for a terminal (``hermes-nb doctor``): ``export NAME=…`` and
    ``hermes-nb config set KEY VALUE`` instead of ``hn.config`` calls and magics.
    """
    parts = []
    missing = missing_env(provider, owner)
    secrets = [name for name in missing if is_secret_name(name)]
    settings = [name for name in missing if not is_secret_name(name)]
    if secrets:
        where = "export it, or add it to $HERMES_HOME/.env" if shell else _WHERE
        parts.append(f"set {' or '.join(secrets)} ({where})")
    if settings:  # a URL or a switch, not a secret: hn.config.set_key would be the wrong door
        parts.append(f"set {' or '.join(settings)} in the environment or $HERMES_HOME/.env")
    install = _schema(provider).get("install")
    if install:
        parts.append(_for_shell(str(install)) if shell else str(install))
    if not parts:
        return "check its configuration with `hermes-nb doctor`" if shell else (
            "check its configuration with `%hermes providers` or `hermes-nb doctor`"
        )
    return "; ".join(parts)


_CONFIG_SET = re.compile(r"hn\.config\.set\(\s*['\"]([^'\"]+)['\"]\s*,\s*['\"]?([^'\")]*)['\"]?\s*\)")


def _for_shell(text: str) -> str:
    """A Python or magic hint as terminal commands (``hn.config.set`` → ``hermes-nb config set``)."""
    text = _CONFIG_SET.sub(lambda m: f"`hermes-nb config set {m.group(1)} {m.group(2)}`", text)
    return text.replace("%hermes ", "hermes-nb ")
