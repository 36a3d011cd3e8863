"""``hermes_cli.auth``: the OAuth tokens Hermes keeps in ``$HERMES_HOME/auth.json`` (read-only here).

hermes_nb never runs a login flow; a token that ``hermes auth`` stored is used as it is.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hermes_nb.config import get_hermes_home
from hermes_nb.redaction import register_secret

HERMES_NAME = "hermes_cli.auth"
__all__ = ["get_auth_store_path", "load_auth_store", "read_provider_access_token"]


def get_auth_store_path() -> Path:
    return get_hermes_home() / "auth.json"


def load_auth_store() -> dict[str, Any]:
    """The parsed ``auth.json``, or ``{}`` when it is missing or unreadable."""
    try:
        data = json.loads(get_auth_store_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _token_in(entry: Any) -> str | None:
    if not isinstance(entry, dict):
        return None
    for holder in (entry.get("tokens"), entry):
        if isinstance(holder, dict):
            token = holder.get("access_token")
            if isinstance(token, str) and token.strip():
                return token.strip()
    return None


def read_provider_access_token(provider: str) -> str | None:
    """The stored access token of ``provider`` (``"openai-codex"``), or ``None``."""
    store = load_auth_store()
    providers = store.get("providers")
    nested = providers.get(provider) if isinstance(providers, dict) else None
    for entry in (nested, store.get(provider)):
        token = _token_in(entry)
        if token:
            register_secret(token)
            return token
    return None
