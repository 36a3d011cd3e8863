"""The tool registry and dispatch (Hermes ``tools/registry.py``): what ``ctx.register_tool`` fills.

Handlers have Hermes's signature ``handler(args: dict, **kwargs) -> str``. ``dispatch`` always
returns a JSON string. The notebook API over it (``hn.tools``) lives in ``hermes_nb.tools``.

Loading the plugins that provide tools and registering the built-in tools are services of higher
layers, reached through ``hermes_nb._services`` (filled by ``hermes_nb._wiring``).

Fix of Hermes weakness #9: every entry records its owner at registration (the plugin key, given
by the loader or by ``owner_scope``; never read from the handler's ``__globals__``). A second
registration of a name by a different owner without ``override=True`` is refused with an ERROR
log and recorded in ``conflicts()``; nothing is overwritten silently and nothing raises. A
registration that cannot work (no name, no schema dict, a handler that is ``None`` or a string
instead of a function) is refused with an ERROR log naming the fix and recorded in ``refusals()``
(``hermes-nb plugins validate`` reports each).
"""

from __future__ import annotations

import contextlib
import contextvars
import inspect
import json
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from hermes_nb._async import acall_maybe_async, run_sync
from hermes_nb._services import services
from hermes_nb._state import on_reset
from hermes_nb.errors import InvalidInputError
from hermes_nb.redaction import redact

__all__ = [
    "ToolEntry",
    "ToolRegistry",
    "registry",
    "tool_error",
    "tool_result",
    "owner_scope",
    "current_owner",
    "ensure_plugins_loaded",
    "conflicts",
    "refusals",
]

log = logging.getLogger(__name__)

BUILTIN_OWNER = "hermes_nb"
CHECK_TTL_S = 30.0  # check_fn results are cached this long
CHECK_FLAKE_S = 60.0  # a failure this soon after a success is treated as a flake
FORMATS = ("openai", "anthropic")

_owner: contextvars.ContextVar[str] = contextvars.ContextVar("hermes_nb_tool_owner", default="")


def tool_error(message: str, **extra: Any) -> str:
    """Hermes's error result: ``{"error": message, **extra}`` as a JSON string."""
    return json.dumps({"error": message, **extra}, ensure_ascii=False, default=str)


def tool_result(data: Any = None, **kw: Any) -> str:
    """Hermes's success result: ``data`` (or the keywords) as a JSON string."""
    payload = kw if data is None else data
    return json.dumps(payload, ensure_ascii=False, default=str)


@contextlib.contextmanager
def owner_scope(owner: str) -> Iterator[None]:
    """Attribute registrations without an explicit owner to ``owner`` (the loader wraps plugin code)."""
    token = _owner.set(owner)
    try:
        yield
    finally:
        _owner.reset(token)


def current_owner() -> str:
    """The owner set by the innermost ``owner_scope`` ("" outside one)."""
    return _owner.get()


@dataclass
class ToolEntry:
    """One registered tool."""

    name: str
    toolset: str
    schema: dict[str, Any]
    handler: Callable[..., Any]
    check_fn: Callable[[], Any] | None = None
    requires_env: list[str] = field(default_factory=list)
    is_async: bool = False
    description: str = ""
    emoji: str = ""
    max_result_size_chars: int | None = None
    dynamic_schema_overrides: Callable[[], dict[str, Any]] | None = None
    owner: str = ""


def ensure_plugins_loaded(capability: str) -> None:
    """Ask the plugin loader to import the plugins providing ``capability`` ("tools", "hooks").

    A loader failure is logged, not raised: tools registered so far keep working.
    """
    try:
        services.load_plugins(capability, None)
    except Exception as exc:
        log.warning("loading %s plugins failed: %s: %s", capability, type(exc).__name__, redact(str(exc)))


class ToolRegistry:
    """Thread-safe tool table; ``generation`` grows on every change (cheap cache invalidation)."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._lock = threading.RLock()
        self._tools: dict[str, ToolEntry] = {}
        self._conflicts: list[dict[str, Any]] = []
        self._refusals: list[dict[str, str]] = []
        self._checks: dict[str, tuple[bool, float]] = {}
        self._last_ok: dict[str, float] = {}
        self._builtins_done = False
        self.generation = 0
        self.clock = clock

    # -- registration ---------------------------------------------------------------------------
    def register(
        self,
        name: str,
        toolset: str,
        schema: dict[str, Any],
        handler: Callable[..., Any],
        check_fn: Callable[[], Any] | None = None,
        requires_env: Iterable[str] | None = None,
        is_async: bool = False,
        description: str = "",
        emoji: str = "",
        max_result_size_chars: int | None = None,
        override: bool = False,
        owner: str = "",
        dynamic_schema_overrides: Callable[[], dict[str, Any]] | None = None,
    ) -> bool:
        """Add a tool; True if it is now registered, False if refused (see the module docstring)."""
        owner = owner or current_owner()
        if owner != BUILTIN_OWNER:
            self._ensure_builtins()
        problem = _unusable(name, schema, handler)
        if problem:
            with self._lock:
                self._refusals.append({"name": str(name), "owner": owner, "problem": problem})
            log.error("tool %r from %s refused: %s", name, owner or "code", problem)
            return False
        entry = ToolEntry(
            name=name,
            toolset=str(toolset or "default"),
            schema=schema,
            handler=handler,
            check_fn=check_fn,
            requires_env=list(requires_env or ()),
            is_async=bool(is_async) or inspect.iscoroutinefunction(handler),
            description=description or str(schema.get("description", "")),
            emoji=emoji,
            max_result_size_chars=max_result_size_chars,
            dynamic_schema_overrides=dynamic_schema_overrides,
            owner=owner,
        )
        with self._lock:
            old = self._tools.get(name)
            if old is not None and old.owner != owner:
                if not override:
                    self._conflicts.append(
                        {
                            "name": name,
                            "owner": old.owner,
                            "toolset": old.toolset,
                            "refused_owner": owner,
                            "refused_toolset": entry.toolset,
                        }
                    )
                    log.error(
                        "tool %r from %s refused: already registered by %s (toolset %s); "
                        "pass override=True to replace it on purpose",
                        name,
                        owner or "code",
                        old.owner or "code",
                        old.toolset,
                    )
                    return False
                log.warning(
                    "tool %r from %s overrides the one from %s", name, owner or "code", old.owner or "code"
                )
            self._tools[name] = entry
            self._checks.pop(name, None)
            self.generation += 1
        return True

    def deregister(self, name: str, *, owner: str | None = None) -> bool:
        """Remove a tool; True if it existed. With ``owner``, only that owner's entry is removed."""
        with self._lock:
            entry = self._tools.get(name)
            if entry is None or (owner is not None and entry.owner != owner):
                return False
            del self._tools[name]
            self._checks.pop(name, None)
            self.generation += 1
            return True

    def clear(self) -> None:
        with self._lock:
            self._tools.clear()
            self._conflicts.clear()
            self._refusals.clear()
            self._checks.clear()
            self._last_ok.clear()
            self._builtins_done = False
            self.generation += 1

    def _ensure_builtins(self) -> None:
        with self._lock:
            if self._builtins_done:
                return
            self._builtins_done = True
        services.builtin_tools(self)

    def _prepare(self) -> None:
        self._ensure_builtins()
        ensure_plugins_loaded("tools")
        try:
            services.sync_tools(self)  # tools that follow the configuration (mcp.servers)
        except Exception as exc:  # a broken configuration must not hide the other tools
            log.warning("syncing configured tools failed: %s: %s", type(exc).__name__, redact(str(exc)))

    def names_owned_by(self, prefix: str) -> dict[str, str]:
        """Name → owner of the entries whose owner starts with ``prefix`` (no plugin loading)."""
        with self._lock:
            return {n: e.owner for n, e in self._tools.items() if e.owner.startswith(prefix)}

    # -- lookup ---------------------------------------------------------------------------------
    def get_entry(self, name: str) -> ToolEntry | None:
        self._prepare()
        with self._lock:
            return self._tools.get(name)

    def get_all_tool_names(self) -> list[str]:
        self._prepare()
        with self._lock:
            return sorted(self._tools)

    def entries(self) -> list[ToolEntry]:
        self._prepare()
        with self._lock:
            return sorted(self._tools.values(), key=lambda e: (e.toolset, e.name))

    def get_toolset_for_tool(self, name: str) -> str | None:
        entry = self.get_entry(name)
        return entry.toolset if entry else None

    def toolset_names(self) -> list[str]:
        return sorted({e.toolset for e in self.entries()})

    def tools_in_toolset(self, toolset: str) -> list[str]:
        return [e.name for e in self.entries() if e.toolset == toolset]

    @property
    def conflicts(self) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(c) for c in self._conflicts]

    @property
    def refusals(self) -> list[dict[str, str]]:
        with self._lock:
            return [dict(r) for r in self._refusals]

    def is_available(self, name: str) -> bool:
        """``check_fn`` of ``name`` (no check → True); exceptions → False; cached ``CHECK_TTL_S``."""
        entry = self.get_entry(name)
        if entry is None:
            return False
        if entry.check_fn is None:
            return True
        now = self.clock()
        with self._lock:
            cached = self._checks.get(name)
            if cached and now - cached[1] < CHECK_TTL_S:
                return cached[0]
        try:
            ok = bool(entry.check_fn())
        except Exception as exc:
            log.debug("check_fn of tool %s raised %s: %s", name, type(exc).__name__, redact(str(exc)))
            ok = False
        with self._lock:
            if ok:
                self._last_ok[name] = now
            elif name in self._last_ok and now - self._last_ok[name] < CHECK_FLAKE_S:
                return True  # a flake right after a success: serve True, do not cache the failure
            self._checks[name] = (ok, now)
        return ok

    # -- schema export --------------------------------------------------------------------------
    def get_definitions(
        self,
        names: Iterable[str] | None = None,
        format: str = "openai",  # noqa: A002 - Hermes/LLM-client keyword
        quiet: bool = False,
    ) -> list[dict[str, Any]]:
        """Tool definitions for an LLM API, skipping unavailable tools.

        ``format="openai"``: ``{"type": "function", "function": {name, description, parameters}}``;
        ``format="anthropic"``: ``{"name", "description", "input_schema"}``.
        """
        if format not in FORMATS:
            raise InvalidInputError(f"format must be one of {', '.join(FORMATS)}, got {format!r}")
        wanted = self.get_all_tool_names() if names is None else list(dict.fromkeys(names))
        out = []
        for name in wanted:
            entry = self.get_entry(name)
            if entry is None:
                if not quiet:
                    log.debug("get_definitions: unknown tool %s skipped", name)
                continue
            if not self.is_available(name):
                continue
            schema = {**entry.schema, "name": name}
            if entry.dynamic_schema_overrides is not None:
                try:
                    schema.update(entry.dynamic_schema_overrides() or {})
                except Exception as exc:
                    log.warning("dynamic schema of tool %s failed: %s", name, redact(str(exc)))
            schema.setdefault("description", entry.description)
            params = schema.get("parameters") or {"type": "object", "properties": {}}
            if format == "openai":
                out.append({"type": "function", "function": {**schema, "parameters": params}})
            else:
                out.append({"name": name, "description": schema["description"], "input_schema": params})
        return out

    # -- dispatch -------------------------------------------------------------------------------
    def _finish(self, name: str, result: Any) -> tuple[str, str | None]:
        if isinstance(result, str):
            return result, None
        if isinstance(result, dict) and result.get("_multimodal") is True:
            return json.dumps(result, ensure_ascii=False, default=str), None
        message = (
            f"tool_result_contract: tool {name!r} returned {type(result).__name__}; handlers must return a "
            "JSON string (json.dumps(...)) or a {'_multimodal': True, 'content': [...]} dict"
        )
        return tool_error(message), "tool_result_contract"

    def _failed(self, exc: BaseException) -> tuple[str, str]:
        return tool_error(redact(f"Tool execution failed: {type(exc).__name__}: {exc}")), type(exc).__name__

    def _dispatch(self, name: str, args: dict[str, Any], **kwargs: Any) -> tuple[str, str | None]:
        entry = self.get_entry(name)
        if entry is None:
            return tool_error(f"Unknown tool: {name}"), "unknown_tool"
        try:
            result = entry.handler(args, **kwargs)
            if inspect.isawaitable(result):
                result = run_sync(result)
        except Exception as exc:
            return self._failed(exc)
        return self._finish(name, result)

    async def _adispatch(self, name: str, args: dict[str, Any], **kwargs: Any) -> tuple[str, str | None]:
        entry = self.get_entry(name)
        if entry is None:
            return tool_error(f"Unknown tool: {name}"), "unknown_tool"
        try:
            result = await acall_maybe_async(entry.handler, args, **kwargs)
        except Exception as exc:
            return self._failed(exc)
        return self._finish(name, result)

    def dispatch(self, name: str, args: dict[str, Any], **kwargs: Any) -> str:
        """Run tool ``name``; always a JSON string (errors as ``{"error": ...}``), even inside a loop."""
        return self._dispatch(name, args, **kwargs)[0]

    async def adispatch(self, name: str, args: dict[str, Any], **kwargs: Any) -> str:
        """``dispatch`` for async callers: coroutine handlers are awaited on the caller's loop."""
        return (await self._adispatch(name, args, **kwargs))[0]


registry = ToolRegistry()


def conflicts() -> list[dict[str, Any]]:
    """Refused registrations: ``{"name", "owner", "toolset", "refused_owner", "refused_toolset"}``."""
    return registry.conflicts


def refusals() -> list[dict[str, str]]:
    """Registrations that could never work: ``{"name", "owner", "problem"}`` (the problem names the fix)."""
    return registry.refusals


def _unusable(name: object, schema: object, handler: object) -> str:
    """Why a tool registration cannot work ("" when it can)."""
    if not isinstance(name, str) or not name:
        return "the tool needs a non-empty name (a str)"
    if not isinstance(schema, dict):
        return f"the schema is a {type(schema).__name__}; pass a dict with name, description and parameters"
    if handler is None:
        return ("no handler (handler=None); pass the function that runs the tool, "
                "handler(args: dict, **kwargs) -> str")
    if isinstance(handler, str):
        return (f"the handler is the string {handler[:60]!r}, not a function; pass the function itself, "
                "handler(args: dict, **kwargs) -> str")
    if not callable(handler):
        return f"the handler is a {type(handler).__name__}, not callable; pass a function"
    return ""




@on_reset
def _reset() -> None:
    registry.clear()
