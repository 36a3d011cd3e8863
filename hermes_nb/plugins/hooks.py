"""Lifecycle hooks with Hermes semantics: ``register_hook``, ``invoke_hook``, ``llm_context``, sessions.

Differences from Hermes, both fixes of known weaknesses (#11):

* coroutine callbacks are awaited (Hermes drops them un-awaited);
* ``telemetry_schema_version`` and any other keyword a callback does not name are passed only to
  callbacks that accept ``**kwargs``, so a strict ``def cb(tool_name, args)`` keeps working.
"""

from __future__ import annotations

import atexit
import copy
import inspect
import logging
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hermes_nb._async import run_sync
from hermes_nb._state import on_reset
from hermes_nb.plugins.tool_registry import current_owner, ensure_plugins_loaded
from hermes_nb.redaction import redact

__all__ = [
    "VALID_HOOKS",
    "TELEMETRY_SCHEMA_VERSION",
    "register_hook",
    "unregister_hook",
    "invoke_hook",
    "invoke_registered",
    "ainvoke_hook",
    "has_hook",
    "list_hooks",
    "llm_context",
    "session_start",
    "session_end",
    "current_session_id",
    "install_session_end_atexit",
]

log = logging.getLogger(__name__)

TELEMETRY_SCHEMA_VERSION = "hermes.observer.v1"

#: Hook names Hermes knows (``hermes_cli/plugins.py``); others are kept with a warning.
VALID_HOOKS: frozenset[str] = frozenset(
    {
        "pre_tool_call",
        "post_tool_call",
        "transform_tool_result",
        "transform_terminal_output",
        "pre_llm_call",
        "post_llm_call",
        "transform_llm_output",
        "on_session_start",
        "on_session_end",
        "on_session_finalize",
        "on_session_reset",
        "pre_api_request",
        "post_api_request",
        "api_request_error",
        "subagent_start",
        "subagent_stop",
        "pre_verify",
        "pre_gateway_dispatch",
        "pre_approval_request",
        "post_approval_response",
        "kanban_task_claimed",
        "kanban_task_completed",
        "kanban_task_blocked",
        # added to Hermes since: streaming, error classification, skills, commands, compression …
        "on_stream_start",
        "on_stream_delta",
        "on_stream_end",
        "transform_api_error_classification",
        "on_skill_lifecycle",
        "pre_command",
        "gateway_platform_event",
        "pre_context_compression",
        "on_compression_complete",
        "pre_auxiliary_call",
        "post_auxiliary_call",
        "on_kanban_worker_spawned",
        "on_kanban_worker_exited",
        "on_kanban_worker_stale_claim",
        "on_kanban_task_updated",
        "on_kanban_dispatch_tick",
    }
)


@dataclass(frozen=True)
class _Hook:
    callback: Callable[..., Any]
    owner: str
    accepts_all: bool  # has **kwargs, or a signature we cannot read
    params: frozenset[str]


_lock = threading.RLock()
_hooks: dict[str, list[_Hook]] = {}
_session: dict[str, Any] = {}
_atexit_installed = False


def _inspect(callback: Callable[..., Any]) -> tuple[bool, frozenset[str]]:
    try:
        sig = inspect.signature(callback)
    except (TypeError, ValueError):
        return True, frozenset()
    params = sig.parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return True, frozenset()
    names = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return False, frozenset(names)


def register_hook(name: str, callback: Callable[..., Any] | None = None, owner: str = "") -> Any:
    """Subscribe ``callback`` to hook ``name``; without ``callback`` it works as a decorator.

    Unknown names are kept with a warning (a newer Hermes may fire them); a non-callable is
    ignored with a warning, never raised, because plugins must not crash on registration.
    """
    if callback is None:

        def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
            register_hook(name, func, owner)
            return func

        return decorator
    if not isinstance(name, str) or not name:
        log.warning("hook name must be a non-empty string, got %r; ignored", name)
        return callback
    if not callable(callback):
        log.warning("hook %r: callback %r is not callable; ignored", name, callback)
        return callback
    if name not in VALID_HOOKS:
        log.warning(
            "hook %r is not a known Hermes hook (registered by %s); kept anyway", name, owner or "code"
        )
    if not owner:
        owner = current_owner()
    accepts_all, params = _inspect(callback)
    with _lock:
        entries = _hooks.setdefault(name, [])
        if any(h.callback is callback for h in entries):
            return callback
        entries.append(_Hook(callback, owner, accepts_all, params))
    return callback


def unregister_hook(name: str, callback: Callable[..., Any]) -> bool:
    """Remove ``callback`` from hook ``name``; True if it was registered."""
    with _lock:
        entries = _hooks.get(name, [])
        kept = [h for h in entries if h.callback is not callback]
        _hooks[name] = kept
        return len(kept) != len(entries)


def _ensure_loaded() -> None:
    ensure_plugins_loaded("hooks")


def _callbacks(name: str, *, load: bool = True) -> list[_Hook]:
    if load:
        _ensure_loaded()
    with _lock:
        return list(_hooks.get(name, ()))


def _kwargs_for(hook: _Hook, kwargs: dict[str, Any]) -> dict[str, Any]:
    if hook.accepts_all:
        return {**kwargs, "telemetry_schema_version": TELEMETRY_SCHEMA_VERSION}
    return {k: v for k, v in kwargs.items() if k in hook.params}


def _log_failure(name: str, hook: _Hook, exc: BaseException) -> None:
    log.warning(
        "hook %s callback %s from %s failed: %s: %s",
        name,
        getattr(hook.callback, "__qualname__", repr(hook.callback)),
        hook.owner or "code",
        type(exc).__name__,
        redact(str(exc)),
    )


def invoke_hook(name: str, **kwargs: Any) -> list[Any]:
    """Call every callback of ``name`` in registration order; return the non-None results.

    A failing callback is logged and skipped. Coroutine results are awaited (in a worker
    thread when an event loop already runs here, as in Jupyter).
    """
    return _invoke(name, _callbacks(name), kwargs)


def invoke_registered(name: str, **kwargs: Any) -> list[Any]:
    """``invoke_hook`` for the callbacks registered so far, loading no plugin (used while loading)."""
    return _invoke(name, _callbacks(name, load=False), kwargs)


def _invoke(name: str, callbacks: list[_Hook], kwargs: dict[str, Any]) -> list[Any]:
    results: list[Any] = []
    for hook in callbacks:
        try:
            value = hook.callback(**_kwargs_for(hook, kwargs))
            if inspect.isawaitable(value):
                value = run_sync(value)
        except Exception as exc:
            _log_failure(name, hook, exc)
            continue
        if value is not None:
            results.append(value)
    return results


async def ainvoke_hook(name: str, **kwargs: Any) -> list[Any]:
    """Async twin of ``invoke_hook``: coroutine callbacks are awaited on the current loop."""
    results: list[Any] = []
    for hook in _callbacks(name):
        try:
            value = hook.callback(**_kwargs_for(hook, kwargs))
            if inspect.isawaitable(value):
                value = await value
        except Exception as exc:
            _log_failure(name, hook, exc)
            continue
        if value is not None:
            results.append(value)
    return results


def has_hook(name: str) -> bool:
    """True if at least one callback is registered for ``name``."""
    return bool(_callbacks(name))


def list_hooks() -> list[dict[str, str]]:
    """One row per registered callback: ``{"hook", "callback", "owner"}`` (registration order)."""
    _ensure_loaded()
    with _lock:
        return [
            {
                "hook": name,
                "callback": getattr(h.callback, "__qualname__", type(h.callback).__name__),
                "owner": h.owner,
            }
            for name, entries in _hooks.items()
            for h in entries
        ]


def llm_context(
    user_message: str,
    *,
    session_id: str = "notebook",
    conversation_history: list[Any] | None = None,
    is_first_turn: bool = True,
    model: str = "",
    platform: str = "jupyter",
    **kw: Any,
) -> str:
    """Text that ``pre_llm_call`` hooks want appended to ``user_message`` (parts joined by a blank line).

    For users who drive their own LLM: ``prompt = msg + "\\n\\n" + hn.hooks.llm_context(msg)``.
    """
    kw.setdefault("task_id", None)
    kw.setdefault("turn_id", None)
    kw.setdefault("sender_id", None)
    parts: list[str] = []
    returned = invoke_hook(
        "pre_llm_call",
        user_message=user_message,
        session_id=session_id,
        conversation_history=copy.deepcopy(list(conversation_history or [])),
        is_first_turn=is_first_turn,
        model=model,
        platform=platform,
        **kw,
    )
    for value in returned:
        if isinstance(value, dict):
            value = value.get("context")
        if isinstance(value, str) and value.strip():
            parts.append(value)
    return "\n\n".join(parts)


def current_session_id() -> str | None:
    """The id of the session opened by ``session_start`` (None when none is open)."""
    with _lock:
        return _session.get("session_id")


def session_start(*, session_id: str | None = None, model: str = "", platform: str = "jupyter") -> bool:
    """Fire ``on_session_start`` unless a session is already open; True if it fired."""
    with _lock:
        if _session:
            return False
        _session.update(session_id=session_id or f"nb-{uuid.uuid4().hex[:8]}", model=model, platform=platform)
        info = dict(_session)
    invoke_hook("on_session_start", **info)
    return True


def session_end(*, completed: bool = True, interrupted: bool = False, **kw: Any) -> bool:
    """Fire ``on_session_end`` once for the open session; True if it fired.

    Safe to call from both the extension's unload and an ``atexit`` handler: only the first call fires.
    """
    with _lock:
        if not _session:
            return False
        info = dict(_session)
        _session.clear()
    kw.setdefault("task_id", None)
    kw.setdefault("turn_id", None)
    invoke_hook("on_session_end", completed=completed, interrupted=interrupted, **info, **kw)
    return True


def _session_end_at_exit() -> None:
    try:
        session_end(completed=True, interrupted=False)
    except Exception as exc:  # interpreter shutdown: never raise from atexit
        log.debug("on_session_end at exit failed: %s", redact(str(exc)))


def install_session_end_atexit() -> bool:
    """Make interpreter/kernel shutdown fire ``on_session_end`` (once); True the first time."""
    global _atexit_installed
    with _lock:
        if _atexit_installed:
            return False
        _atexit_installed = True
    atexit.register(_session_end_at_exit)
    return True


@on_reset
def _reset() -> None:
    with _lock:
        _hooks.clear()
        _session.clear()
