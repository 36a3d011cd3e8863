"""Secret redaction: every secret value the SDK resolves is remembered and masked in text.

Errors, log lines, reprs, caches and rendered output pass through ``redact``. Two layers:
the exact values resolved by ``hermes_nb.config.resolve_key`` (registered with
``register_secret``) and patterns for credentials that were never resolved by us
(``Authorization`` headers, ``api_key=`` query parameters, ``sk-…`` style tokens).
"""

from __future__ import annotations

import re
import threading

from hermes_nb._state import on_reset

__all__ = ["MASK", "redact", "register_secret", "is_secret_name"]

MASK = "***"

_lock = threading.Lock()
_secrets: set[str] = set()
_pattern: re.Pattern[str] | None = None

_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)", re.IGNORECASE)

_GENERIC = [
    # Authorization: Bearer xxx / x-api-key: xxx / X-Subscription-Token: xxx in text
    re.compile(
        r"(?i)\b(authorization|x-api-key|api-key|x-subscription-token|x-key)(\"?\s*[:=]\s*\"?)"
        r"(bearer\s+|key\s+|basic\s+)?([^\s\"',;}&]+)"
    ),
    # query / form / json parameters with secret-looking names
    re.compile(
        r"(?i)([?&\"'\s]?(?:api_key|apikey|access_token|token|secret|password|subscription_token)\"?\s*[=:]\s*\"?)"
        r"([^\s\"'&,;}]{6,})"
    ),
    # vendor-shaped tokens: sk-..., fc-..., tvly-..., xai-..., BSA..., jina_...
    re.compile(r"\b(?:sk|fc|tvly|xai|pk|jina)[-_][A-Za-z0-9_\-]{8,}\b"),
]


def is_secret_name(name: str) -> bool:
    """True for environment/config names that hold secrets (``*_API_KEY``, ``*_TOKEN`` …)."""
    return bool(_SECRET_NAME.search(name))


def register_secret(value: str | None) -> None:
    """Remember a resolved secret value so that ``redact`` masks it everywhere."""
    global _pattern
    if not value or len(value) < 4:
        return
    with _lock:
        if value in _secrets:
            return
        _secrets.add(value)
        ordered = sorted(_secrets, key=len, reverse=True)
        _pattern = re.compile("|".join(re.escape(s) for s in ordered))


@on_reset
def _forget_secrets() -> None:
    """Forget remembered values (tests: one test's fake key must not mask another test's text)."""
    global _pattern
    with _lock:
        _secrets.clear()
        _pattern = None


def redact(text: str) -> str:
    """Return ``text`` with every known secret and credential-shaped value replaced by ``***``."""
    if not text:
        return text
    pattern = _pattern
    if pattern is not None:
        text = pattern.sub(MASK, text)
    text = _GENERIC[0].sub(lambda m: f"{m.group(1)}{m.group(2)}{m.group(3) or ''}{MASK}", text)
    text = _GENERIC[1].sub(lambda m: f"{m.group(1)}{MASK}", text)
    text = _GENERIC[2].sub(MASK, text)
    return text
