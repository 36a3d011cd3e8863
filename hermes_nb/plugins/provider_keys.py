"""A keyed provider's API key: is it configured, and the one "needs an API key" error when it is not.

Web, image and video providers share these, so every provider names the same fix in the same words:

    Replicate needs an API key: set REPLICATE_API_TOKEN (https://replicate.com/account/api-tokens)
    or call hn.config.set_key('REPLICATE_API_TOKEN', ...)

``key_env`` is one variable name or several (the first one set wins, as ``config.resolve_key``).
"""

from __future__ import annotations

from collections.abc import Sequence

from hermes_nb import config
from hermes_nb.errors import ProviderNotConfiguredError

__all__ = ["KeyEnv", "key_names", "key_configured", "require_key", "missing_key_error"]

#: One variable name, or several accepted alternatives (first set wins).
KeyEnv = str | Sequence[str]


def key_names(key_env: KeyEnv) -> tuple[str, ...]:
    """``key_env`` as a tuple of non-empty names (``""`` or ``()``: a provider that needs no key)."""
    names = (key_env,) if isinstance(key_env, str) else tuple(key_env)
    return tuple(name for name in names if name)


def key_configured(key_env: KeyEnv) -> bool:
    """True when one of the names resolves to a secret (session key, environment, ``$HERMES_HOME/.env``,
    a plugin's secret source).

    Cheap and offline: what ``is_available()`` of a keyed provider returns.
    """
    names = key_names(key_env)
    return bool(names) and bool(config.resolve_key(*names))


def missing_key_error(
    provider: str,
    key_env: KeyEnv,
    display_name: str,
    docs_url: str = "",
    *,
    purpose: str = "",
    note: str = "",
) -> ProviderNotConfiguredError:
    """The standard error for a key that is not set, naming where to get one and how to set it
    (``purpose``: "to crawl", after "needs an API key"; ``note`` ends the message)."""
    names = key_names(key_env)
    first = names[0] if names else "<KEY>"
    alternatives = "".join(f" (or {name})" for name in names[1:])
    where = f" ({docs_url})" if docs_url else ""
    return ProviderNotConfiguredError(
        f"{display_name or provider} needs an API key{f' {purpose}' if purpose else ''}: "
        f"set {first}{alternatives}{where} or call hn.config.set_key('{first}', ...){note}",
        provider=provider,
        details={"missing_env": list(names)},
    )


def require_key(provider: str, key_env: KeyEnv, display_name: str, docs_url: str = "") -> str:
    """The key for ``provider`` (its stable name), or ``ProviderNotConfiguredError`` naming the fix."""
    names = key_names(key_env)
    key = config.resolve_key(*names) if names else None
    if not key:
        raise missing_key_error(provider, key_env, display_name, docs_url)
    return key
