"""``tools.website_policy``: Hermes's per-site blocklist; hermes_nb has none, so every site is allowed.

Private and internal addresses are refused separately (``tools.url_safety``, ``net.url_guard``).
"""

from __future__ import annotations

from typing import Any

HERMES_NAME = "tools.website_policy"
__all__ = ["check_website_access"]


def check_website_access(url: str, *args: Any, **kwargs: Any) -> dict[str, str] | None:
    """``None`` (allowed); Hermes returns ``{"host", "rule", "source", "message"}`` for a blocked site."""
    return None
