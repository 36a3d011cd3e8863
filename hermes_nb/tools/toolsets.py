"""Toolsets: named groups of tools (Hermes ``toolsets.py``), static ones merged with the registry's.

A toolset is ``{"description", "tools", "includes"}``; ``includes`` names other toolsets and is
resolved recursively (cycles are cut, not followed). ``"all"`` and ``"*"`` mean every tool.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterable
from typing import Any

from hermes_nb._state import on_reset
from hermes_nb.errors import InvalidInputError
from hermes_nb.plugins.tool_registry import registry

__all__ = [
    "TOOLSETS",
    "ALL_ALIASES",
    "get_toolset",
    "resolve_toolset",
    "resolve_multiple_toolsets",
    "get_all_toolsets",
    "get_toolset_names",
    "validate_toolset",
    "create_custom_toolset",
    "get_toolset_info",
]

ALL_ALIASES = frozenset({"all", "*"})

#: Hermes's toolsets for the tools hermes_nb implements.
TOOLSETS: dict[str, dict[str, Any]] = {
    "web": {
        "description": "Web search and page extraction",
        "tools": ["web_search", "web_extract"],
        "includes": [],
    },
    "search": {"description": "Web search only", "tools": ["web_search"], "includes": []},
    "image_gen": {"description": "Image generation", "tools": ["image_generate"], "includes": []},
}

_lock = threading.Lock()
_custom: dict[str, dict[str, Any]] = {}


def _registry_tools(name: str) -> list[str]:
    return registry.tools_in_toolset(name)


def get_toolset(name: str, *, include_registry: bool = True) -> dict[str, Any] | None:
    """The toolset ``name`` (a copy) with registered tools of that toolset merged in; None if unknown."""
    with _lock:
        base = _custom.get(name) or TOOLSETS.get(name)
        found = copy.deepcopy(base) if base else None
    extra = _registry_tools(name) if include_registry else []
    if found is None:
        if not extra:
            return None
        return {"description": f"Plugin toolset: {name}", "tools": extra, "includes": []}
    found["tools"] = list(dict.fromkeys([*found.get("tools", []), *extra]))
    found.setdefault("includes", [])
    return found


def get_toolset_names(*, include_registry: bool = True) -> list[str]:
    """Every toolset name: static, custom and (by default) those used by registered tools."""
    with _lock:
        names = set(TOOLSETS) | set(_custom)
    if include_registry:
        names |= set(registry.toolset_names())
    return sorted(names)


def get_all_toolsets(*, include_registry: bool = True) -> dict[str, dict[str, Any]]:
    """Name → toolset for every toolset."""
    out = {}
    for name in get_toolset_names(include_registry=include_registry):
        found = get_toolset(name, include_registry=include_registry)
        if found is not None:
            out[name] = found
    return out


def resolve_toolset(
    name: str, visited: set[str] | None = None, *, include_registry: bool = True
) -> list[str]:
    """Tool names of ``name`` and everything it includes, in order, without duplicates."""
    if name in ALL_ALIASES:
        everything = [
            t for ts in get_all_toolsets(include_registry=include_registry).values() for t in ts["tools"]
        ]
        if include_registry:
            everything += registry.get_all_tool_names()
        return list(dict.fromkeys(everything))
    visited = set() if visited is None else visited
    if name in visited:
        return []
    visited.add(name)
    found = get_toolset(name, include_registry=include_registry)
    if found is None:
        return []
    tools = list(found["tools"])
    for included in found.get("includes", []):
        tools += resolve_toolset(included, visited, include_registry=include_registry)
    return list(dict.fromkeys(tools))


def resolve_multiple_toolsets(names: Iterable[str], *, include_registry: bool = True) -> list[str]:
    """Union of ``resolve_toolset`` over ``names`` (order kept)."""
    tools: list[str] = []
    for name in names:
        tools += resolve_toolset(name, include_registry=include_registry)
    return list(dict.fromkeys(tools))


def validate_toolset(name: str) -> bool:
    """True for ``"all"``/``"*"`` and every known toolset."""
    return name in ALL_ALIASES or get_toolset(name) is not None


def create_custom_toolset(
    name: str, tools: Iterable[str], includes: Iterable[str] = (), description: str = ""
) -> dict[str, Any]:
    """Define (or redefine) a toolset for this process; static Hermes toolsets cannot be replaced."""
    if not isinstance(name, str) or not name.strip() or name in ALL_ALIASES:
        raise InvalidInputError(f"toolset name must be a non-empty string other than 'all'/'*', got {name!r}")
    if name in TOOLSETS:
        raise InvalidInputError(f"{name!r} is a built-in toolset; choose another name for a custom toolset")
    toolset = {
        "description": description or f"Custom toolset: {name}",
        "tools": list(dict.fromkeys(tools)),
        "includes": list(dict.fromkeys(includes)),
    }
    with _lock:
        _custom[name] = toolset
    return copy.deepcopy(toolset)


def get_toolset_info(name: str) -> dict[str, Any] | None:
    """``{"name", "description", "tools", "includes", "resolved_tools", "tool_count"}`` or None."""
    found = get_toolset(name)
    if found is None:
        return None
    resolved = resolve_toolset(name)
    return {"name": name, **found, "resolved_tools": resolved, "tool_count": len(resolved)}


@on_reset
def _reset() -> None:
    with _lock:
        _custom.clear()
