"""``{{name}}`` interpolation of Python variables into magic queries and prompts.

Only double braces are special: ``{{topic}}`` or ``{{cfg.query}}`` is replaced by ``str()`` of the
value found in the user namespace by NAME (dotted attribute access allowed, nothing evaluated).
Unknown names, private attributes and anything that is not a plain dotted name stay as written,
so JSON, regexes and prompts with literal ``{`` and ``}`` pass through untouched.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["interpolate"]

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\}\}")
_MISSING = object()


def _resolve(path: str, namespace: Mapping[str, Any]) -> Any:
    head, *rest = path.split(".")
    value = namespace.get(head, _MISSING)
    for attr in rest:
        # Dunder/private attributes could reach interpreter internals; names only, public only.
        if value is _MISSING or attr.startswith("_"):
            return _MISSING
        try:
            value = getattr(value, attr)
        except Exception:
            return _MISSING
    return value


def interpolate(text: str, namespace: Mapping[str, Any] | None) -> str:
    """``text`` with every ``{{name}}`` whose name resolves in ``namespace`` replaced."""
    if not namespace or "{{" not in text:
        return text

    def _sub(match: re.Match[str]) -> str:
        value = _resolve(match.group(1), namespace)
        return match.group(0) if value is _MISSING else str(value)

    return _PLACEHOLDER.sub(_sub, text)
