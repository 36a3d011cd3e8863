"""Calculator plugin — the Hermes guide's example as a bundled general plugin (tools, a hook, a skill)."""

from __future__ import annotations

import logging
from collections import deque
from pathlib import Path
from typing import Any

from . import schemas, tools

logger = logging.getLogger(__name__)

#: The last 100 tool calls seen by the hook (every tool, not just ours).
call_log: deque[dict[str, Any]] = deque(maxlen=100)


def _on_post_tool_call(tool_name, args, result, task_id, **kwargs):
    """Hook: runs after every tool call (not just ours)."""
    call_log.append({"tool": tool_name, "session": task_id, "status": kwargs.get("status")})
    logger.debug("Tool called: %s (session %s)", tool_name, task_id)


def register(ctx):
    """Wire schemas to handlers, subscribe the hook and ship the skill."""
    ctx.register_tool(
        name="calculate", toolset="calculator", schema=schemas.CALCULATE, handler=tools.calculate
    )
    ctx.register_tool(
        name="unit_convert", toolset="calculator", schema=schemas.UNIT_CONVERT, handler=tools.unit_convert
    )
    ctx.register_hook("post_tool_call", _on_post_tool_call)
    ctx.register_skill(
        "calculator",
        Path(__file__).parent / "skill.md",
        description="When and how to use the calculate and unit_convert tools",
    )
