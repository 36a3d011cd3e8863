"""``agent.auxiliary_client``: the Codex (ChatGPT OAuth) token and request headers openai-codex uses."""

from __future__ import annotations

import base64
import json
from typing import Any

from hermes_nb._version import __version__
from hermes_nb.compat.hermes_cli_auth import read_provider_access_token

HERMES_NAME = "agent.auxiliary_client"
__all__ = ["_read_codex_access_token", "_codex_cloudflare_headers"]


def _read_codex_access_token(*args: Any, **kwargs: Any) -> str | None:
    """The Codex access token ``hermes auth`` stored in ``$HERMES_HOME/auth.json``, or ``None``."""
    return read_provider_access_token("openai-codex")


def _account_id(token: str) -> str | None:
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except ValueError:
        return None
    auth = claims.get("https://api.openai.com/auth") if isinstance(claims, dict) else None
    account = auth.get("chatgpt_account_id") if isinstance(auth, dict) else None
    return account if isinstance(account, str) and account else None


def _codex_cloudflare_headers(token: str = "", *args: Any, **kwargs: Any) -> dict[str, str]:
    """Headers the ChatGPT backend expects besides ``Authorization``."""
    headers = {"originator": "hermes_nb", "User-Agent": f"hermes_nb/{__version__}"}
    account = _account_id(token) if token else None
    if account:
        headers["chatgpt-account-id"] = account
    return headers
