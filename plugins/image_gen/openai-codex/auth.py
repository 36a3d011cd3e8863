"""Which credential ``openai-codex`` uses: the Codex/ChatGPT login in ``$HERMES_HOME/auth.json``, else
``OPENAI_API_KEY`` against the public Responses API.

Hermes keeps the login as ``{"providers": {"openai-codex": {"tokens": {"access_token", "refresh_token",
"id_token", "account_id"?}, "last_refresh"}}}``; the access token is a JWT whose ``exp`` says when it
stops working and whose ``https://api.openai.com/auth`` claim carries ``chatgpt_account_id``.
hermes_nb reads it and never refreshes or rewrites it (that is Hermes's job: ``hermes auth codex``).
"""

from __future__ import annotations

import base64
import json
import time
from dataclasses import dataclass
from typing import Any

from hermes_nb.provider_api import config

KEY_ENV = "OPENAI_API_KEY"
CODEX_BASE_URL = "https://chatgpt.com/backend-api/codex"
API_BASE_URL = "https://api.openai.com/v1"
SIGN_IN_HINT = "sign in again with `hermes auth codex` (or `hermes setup` → Codex)"


@dataclass(frozen=True)
class Credential:
    """``mode``: ``"codex"`` (ChatGPT login) or ``"api"`` (API key); ``secret`` never leaves the process."""

    mode: str
    secret: str
    account_id: str = ""
    note: str = ""  # why the Codex login was not used, when it exists but is unusable

    @property
    def base_url(self) -> str:
        configured = config.get("image_gen.openai-codex.base_url")
        if configured:
            return str(configured).rstrip("/")
        return CODEX_BASE_URL if self.mode == "codex" else API_BASE_URL


def _claims(token: str) -> dict[str, Any]:
    try:
        payload = token.split(".")[1]
        data = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def codex_login() -> tuple[str, str, str]:
    """(access token, account id, problem) from ``$HERMES_HOME/auth.json``; empty token when unusable."""
    path = config.get_hermes_home() / "auth.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return "", "", ""
    except (OSError, ValueError) as exc:
        return "", "", f"{path} could not be read ({type(exc).__name__})"
    state = ((data.get("providers") or {}) if isinstance(data, dict) else {}).get("openai-codex")
    tokens = state.get("tokens") if isinstance(state, dict) else None
    token = tokens.get("access_token") if isinstance(tokens, dict) else None
    if not isinstance(token, str) or not token.strip():
        return "", "", ""
    token = token.strip()
    claims = _claims(token)
    exp = claims.get("exp")
    if isinstance(exp, (int, float)) and time.time() >= exp:
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(exp))
        return "", "", f"the Codex login in {path} expired at {when}; {SIGN_IN_HINT}"
    auth = claims.get("https://api.openai.com/auth")
    account = auth.get("chatgpt_account_id") if isinstance(auth, dict) else None
    account = account or (tokens.get("account_id") if isinstance(tokens, dict) else None)
    return token, str(account or ""), ""


def resolve() -> Credential | None:
    """The Codex login when usable, else the API key, else None (``note`` says what was wrong)."""
    token, account, problem = codex_login()
    if token:
        return Credential("codex", token, account)
    key = config.resolve_key(KEY_ENV)
    if key:
        return Credential("api", key, note=problem)
    return Credential("", "", note=problem) if problem else None
