"""The tool-call pipeline (Hermes ``model_tools.handle_function_call``).

coerce string arguments to the schema's types → ``pre_tool_call`` hooks (the first
``{"action": "block", "message": m}`` blocks) → timed dispatch → ``post_tool_call`` →
``transform_tool_result`` (the first string returned replaces the result). Plugins' ``tool_call``
middleware (``ctx.register_middleware``) wraps the dispatch, inside the hooks.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterable
from typing import Any

from hermes_nb.plugins import hooks, middleware, tool_registry
from hermes_nb.redaction import redact

__all__ = [
    "coerce_args",
    "error_message",
    "handle_function_call",
    "ahandle_function_call",
    "handle_unregistered_call",
]

_TRUE = {"true", "yes", "1"}
_FALSE = {"false", "no", "0"}


def _coerce(value: str, types: list[str]) -> Any:
    text = value.strip()
    for kind in types:
        try:
            if kind == "integer":
                return int(text)
            if kind == "number":
                number = float(text)
                return (
                    int(number)
                    if number.is_integer() and "." not in text and "e" not in text.lower()
                    else number
                )
            if kind == "boolean" and text.lower() in _TRUE | _FALSE:
                return text.lower() in _TRUE
            if kind in ("array", "object"):
                parsed = json.loads(text)
                if isinstance(parsed, list if kind == "array" else dict):
                    return parsed
            if kind == "null" and text.lower() in ("null", "none"):
                return None
        except (ValueError, OverflowError):
            continue
    return value


def coerce_args(schema: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """Convert string values to the types the JSON schema declares (``"5"`` → ``5`` for integer)."""
    props = (schema.get("parameters") or {}).get("properties") or {}
    out = dict(args)
    for key, value in args.items():
        spec = props.get(key)
        if not isinstance(value, str) or not isinstance(spec, dict):
            continue
        declared = spec.get("type")
        types = [declared] if isinstance(declared, str) else list(declared or [])
        if not types or "string" in types:
            continue
        out[key] = _coerce(value, types)
    return out


def _prepare_args(name: str, args: Any) -> tuple[dict[str, Any] | None, str | None]:
    if args is None:
        args = {}
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except json.JSONDecodeError as exc:
            return None, tool_registry.tool_error(f"Invalid JSON arguments for tool {name}: {exc.msg}")
    if not isinstance(args, dict):
        return None, tool_registry.tool_error(
            f"Arguments for tool {name} must be a JSON object, got {type(args).__name__}"
        )
    entry = tool_registry.registry.get_entry(name)
    return (coerce_args(entry.schema, args) if entry else args), None


def _blocked(name: str, args: dict[str, Any], ctx: dict[str, Any]) -> str | None:
    for verdict in hooks.invoke_hook("pre_tool_call", tool_name=name, args=args, middleware_trace=[], **ctx):
        if isinstance(verdict, dict) and verdict.get("action") == "block":
            return str(verdict.get("message") or f"Tool {name} was blocked by a pre_tool_call hook")
    return None


def error_message(result: str) -> str | None:
    """The ``error`` of a JSON result object, or None for a success."""
    try:
        data = json.loads(result)
    except (ValueError, TypeError):
        return None
    if isinstance(data, dict) and data.get("error"):
        return str(data["error"])
    return None


def _after(
    name: str,
    args: dict[str, Any],
    ctx: dict[str, Any],
    result: str,
    started: float,
    status: str,
    error_type: str | None,
) -> str:
    message = error_message(result)
    if status == "ok" and message is not None:
        status, error_type = "error", error_type or "tool_error"
    common = dict(
        tool_name=name,
        args=args,
        result=result,
        duration_ms=round((time.perf_counter() - started) * 1000, 3),
        status=status,
        error_type=error_type,
        error_message=message,
        **ctx,
    )
    hooks.invoke_hook("post_tool_call", middleware_trace=[], **common)
    for replacement in hooks.invoke_hook("transform_tool_result", **common):
        if isinstance(replacement, str):
            return replacement
    return result


def _context(
    task_id: Any, tool_call_id: Any, session_id: Any, turn_id: Any, api_request_id: Any
) -> dict[str, Any]:
    return dict(
        task_id=task_id,
        session_id=session_id,
        tool_call_id=tool_call_id,
        turn_id=turn_id,
        api_request_id=api_request_id,
    )


def _gate(
    name: str,
    raw_args: Any,
    ctx: dict[str, Any],
    enabled: Iterable[str] | None,
    skip_pre: bool,
    started: float,
) -> tuple[dict[str, Any], str | None]:
    """Arguments ready for dispatch, or the finished result when the call stops before dispatch."""
    args, error = _prepare_args(name, raw_args)
    if args is None:
        return {}, _after(
            name,
            {},
            ctx,
            error or tool_registry.tool_error("invalid arguments"),
            started,
            "error",
            "invalid_arguments",
        )
    if enabled is not None and name not in set(enabled):
        result = tool_registry.tool_error(f"Tool {name} is not enabled for this call")
        return args, _after(name, args, ctx, result, started, "error", "tool_not_enabled")
    message = None if skip_pre else _blocked(name, args, ctx)
    if message is not None:
        return args, _after(name, args, ctx, tool_registry.tool_error(message), started, "blocked", "blocked")
    return args, None


def _dispatch(name: str, args: dict[str, Any], ctx: dict[str, Any], **kwargs: Any) -> tuple[str, str | None]:
    """The registry's dispatch, wrapped in the plugins' tool middleware when there is any."""
    if not middleware.tool_middleware():
        return tool_registry.registry._dispatch(name, args, **kwargs)
    error_type: list[str | None] = [None]

    def call(final_args: dict[str, Any]) -> str:
        result, error_type[0] = tool_registry.registry._dispatch(name, final_args, **kwargs)
        return result

    try:
        return middleware.run_tool_call(name, args, call, ctx), error_type[0]
    except Exception as exc:
        message = redact(f"Tool middleware failed: {type(exc).__name__}: {exc}")
        return tool_registry.tool_error(message), "middleware_error"


def handle_function_call(
    function_name: str,
    function_args: Any = None,
    task_id: str | None = None,
    tool_call_id: str | None = None,
    session_id: str | None = None,
    turn_id: str | None = None,
    api_request_id: str | None = None,
    user_task: str | None = None,
    enabled_tools: Iterable[str] | None = None,
    skip_pre_tool_call_hook: bool = False,
    **kwargs: Any,
) -> str:
    """Hermes's tool-call pipeline; returns the (possibly transformed) JSON result string.

    String arguments are coerced to the schema's types, ``pre_tool_call`` may block, the dispatch
    is timed for ``post_tool_call``, and the first string from ``transform_tool_result`` wins.
    """
    ctx = _context(task_id, tool_call_id, session_id, turn_id, api_request_id)
    started = time.perf_counter()
    args, done = _gate(function_name, function_args, ctx, enabled_tools, skip_pre_tool_call_hook, started)
    if done is not None:
        return done
    result, error_type = _dispatch(
        function_name, args, ctx, task_id=task_id, session_id=session_id, user_task=user_task, **kwargs
    )
    return _after(
        function_name, args, ctx, result, started, "ok" if error_type is None else "error", error_type
    )


async def ahandle_function_call(
    function_name: str,
    function_args: Any = None,
    task_id: str | None = None,
    tool_call_id: str | None = None,
    session_id: str | None = None,
    turn_id: str | None = None,
    api_request_id: str | None = None,
    user_task: str | None = None,
    enabled_tools: Iterable[str] | None = None,
    skip_pre_tool_call_hook: bool = False,
    **kwargs: Any,
) -> str:
    """Async twin of ``handle_function_call``: async handlers run on the caller's event loop."""
    ctx = _context(task_id, tool_call_id, session_id, turn_id, api_request_id)
    started = time.perf_counter()
    args, done = _gate(function_name, function_args, ctx, enabled_tools, skip_pre_tool_call_hook, started)
    if done is not None:
        return done
    extra = dict(task_id=task_id, session_id=session_id, user_task=user_task, **kwargs)
    if middleware.tool_middleware():  # middleware is synchronous: the wrapped call runs in a thread
        result, error_type = await asyncio.to_thread(_dispatch, function_name, args, ctx, **extra)
    else:
        result, error_type = await tool_registry.registry._adispatch(function_name, args, **extra)
    return _after(
        function_name, args, ctx, result, started, "ok" if error_type is None else "error", error_type
    )


def handle_unregistered_call(
    function_name: str,
    function_args: Any,
    handler: Callable[[dict[str, Any]], str],
    *,
    session_id: str | None = None,
    tool_call_id: str | None = None,
) -> str:
    """The same pipeline (hooks included) for a tool served outside the registry (the MCP server's
    ``web_crawl``): ``handler(args)`` returns the JSON result string; an exception becomes an error result."""
    ctx = _context(None, tool_call_id, session_id, None, None)
    started = time.perf_counter()
    args, done = _gate(function_name, function_args, ctx, None, False, started)
    if done is not None:
        return done
    try:
        result, error_type = handler(args), None
    except Exception as exc:
        result, error_type = (
            tool_registry.tool_error(redact(f"Tool execution failed: {type(exc).__name__}: {exc}")),
            type(exc).__name__,
        )
    return _after(
        function_name, args, ctx, result, started, "ok" if error_type is None else "error", error_type
    )
