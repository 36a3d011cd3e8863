"""``%hermes tools [list | call NAME JSON]``: the registered tools, and one call of a tool."""

from __future__ import annotations

import json
from typing import Any

from IPython.core.error import UsageError

from hermes_nb.notebook.commands.answers import Table, expect

__all__ = ["run"]


def run(args: list[str]) -> Any:
    from hermes_nb import tools  # lazy: keeps %load_ext fast

    action = args[0] if args else "list"
    if action == "list":
        expect(args, 1, "%hermes tools list")
        rows = [
            [t["name"], t["toolset"], t["owner"], "✅" if t["available"] else "❌", t["description"][:60]]
            for t in tools.list_tools()
        ]
        return Table("Tools", ["tool", "toolset", "plugin", "available", "description"], rows)
    if action == "call" and len(args) >= 2:
        raw = " ".join(args[2:]).strip() or "{}"
        if len(raw) > 1 and raw[0] == raw[-1] and raw[0] in "'\"":  # '{"x": 1}' as typed in a shell
            raw = raw[1:-1]
        try:
            payload = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise UsageError(
                f"tool arguments must be a JSON object, e.g. '{{\"x\": 1}}' ({exc.msg})"
            ) from None
        return tools.call(args[1], payload)
    raise UsageError("usage: %hermes tools [list | call NAME JSON]")
