"""``{{name}}`` interpolation of Python variables into magic queries and prompts.

Only double braces are special: ``{{topic}}`` or ``{{cfg.query}}`` is replaced by ``str()`` of the
value found in the user namespace by NAME (dotted attribute access allowed, nothing evaluated).
Unknown names stay as written, and single braces are never touched, so JSON, regexes and prompts
with literal ``{`` and ``}`` pass through. ``{{…}}`` holding an expression (``{{urls[0]}}``,
``{{x + 1}}``) or a private attribute is reported as such: it would otherwise reach a provider as
literal text and fail far away (an extract of ``{{urls[0]}}`` reads as a relative URL).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["interpolate", "InterpolationError"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_PLACEHOLDER = re.compile(r"\{\{\s*([^{}]+?)\s*\}\}")
_MISSING = object()


class InterpolationError(ValueError):
    """A ``{{…}}`` that is not a variable name or a public dotted attribute."""


def _resolve(path: str, namespace: Mapping[str, Any]) -> Any:
    head, *rest = path.split(".")
    value = namespace.get(head, _MISSING)
    for attr in rest:
        # Dunder/private attributes could reach interpreter internals; names only, public only.
        if value is _MISSING:
            return _MISSING
        if attr.startswith("_"):
            raise InterpolationError(
                f"{{{{{path}}}}}: private attributes are not filled in; assign the value to a variable first"
            )
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
        inner = match.group(1)
        if not _NAME.fullmatch(inner):
            raise InterpolationError(
                f"{{{{{inner}}}}} is not a variable name: {{{{…}}}} fills in a variable or a dotted "
                "attribute (such as {{cfg.query}}) and evaluates nothing; assign the expression to a "
                "variable first"
            )
        value = _resolve(inner, namespace)
        return match.group(0) if value is _MISSING else str(value)

    return _PLACEHOLDER.sub(_sub, text)
