"""``%hermes config [show | get KEY | set KEY VALUE]``: the effective settings (never secrets)."""

from __future__ import annotations

import json
from typing import Any

from IPython.core.error import UsageError

from hermes_nb.notebook.commands.answers import Message, Table, expect

__all__ = ["run"]


def run(args: list[str]) -> Any:
    from hermes_nb import config  # lazy: keeps %load_ext fast

    action = args[0] if args else "show"
    if action == "show":
        expect(args, 1, "%hermes config show")
        items = config.show()
        rows = [[item.key, json.dumps(item.value, default=str), item.source] for item in items]
        if not any(item.problem for item in items):
            return Table("Configuration", ["key", "value", "source"], rows)
        for row, item in zip(rows, items, strict=True):  # what would be refused at use, and the repair
            fix = f"; fix: %hermes config set {item.repair} VALUE"
            row.append(f"❌ {item.problem}{fix}" if item.problem else "")
        return Table("Configuration", ["key", "value", "source", "problem"], rows)
    if action == "get" and len(args) == 2:
        item = config.effective(args[1])
        return Message(f"{item.key} = {json.dumps(item.value, default=str)}  ({item.source})")
    if action == "set" and len(args) >= 3:
        import yaml

        raw = " ".join(args[2:])
        try:
            value = yaml.safe_load(raw)
        except yaml.YAMLError:
            value = raw
        from hermes_nb.plugins.config_schema import check_setting  # lazy: loads the provider registries

        check_setting(args[1], value, providers=True)  # a typed command: unknown providers refused too
        config.set(args[1], value)
        return Message(f"{args[1]} = {json.dumps(value, default=str)}  (runtime)")
    raise UsageError("usage: %hermes config [show | get KEY | set KEY VALUE]")
