"""``agent.redact``: Hermes's redaction engine, served by ``hermes_nb.redaction``.

``register_redaction_patterns(patterns, source)`` adds token regexes (Hermes's acceptance rules;
returns how many were accepted) and ``redact_sensitive_text(text)`` masks known secrets, credential
shapes and those patterns, as every hermes_nb output does.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hermes_nb import redaction

HERMES_NAME = "agent.redact"
__all__ = ["register_redaction_patterns", "redact_sensitive_text"]


def register_redaction_patterns(patterns: Iterable[Any], source: str = "plugin") -> int:
    """Add secret-token regexes masked everywhere; invalid ones are skipped with a warning."""
    return redaction.register_patterns(patterns, source=source)


def redact_sensitive_text(text: Any, *, force: bool = False, **_: Any) -> Any:
    """``text`` with secrets masked (non-strings are returned unchanged, as in Hermes)."""
    return redaction.redact(text) if isinstance(text, str) else text
