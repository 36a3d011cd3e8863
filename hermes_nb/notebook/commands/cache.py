"""``%hermes cache …``: stats, entries, clear, export, load, drift and costs as tables.

``%hermes cache export PATH [--since ISO]`` writes a cassette; ``load PATH`` puts one into the
store; ``drift PATH`` re-runs one live. Everything here is ``hn.cache`` from plain Python too.
"""

from __future__ import annotations

from typing import Any

from IPython.core.error import UsageError

from hermes_nb import cache
from hermes_nb.notebook.commands.answers import Message, Table

__all__ = ["run", "USAGE"]

USAGE = (
    "usage: %hermes cache [stats | entries [KIND] | clear [cache|pages|images|batch]"
    " | export PATH [--since ISO] | load PATH | drift PATH | costs]"
)


def _one_path(args: list[str], action: str) -> str:
    if len(args) != 2:
        raise UsageError(
            f"%hermes cache {action} needs one cassette path, e.g. tests/cassettes/analysis.hnb.jsonl"
        )
    return args[1]


def _export(args: list[str]) -> Message:
    since = None
    rest = list(args[1:])
    if "--since" in rest:
        at = rest.index("--since")
        if at + 1 >= len(rest):
            raise UsageError("--since needs an ISO time, e.g. --since 2026-11-24T10:00:00Z")
        since = rest[at + 1]
        del rest[at : at + 2]
    if len(rest) != 1:
        raise UsageError(USAGE)
    path = cache.export(rest[0], since=since)
    return Message(f"cassette written: {path}")


def run(args: list[str]) -> Any:
    """Dispatch ``%hermes cache <action> …``."""
    action = args[0] if args else "stats"
    if action == "stats" and len(args) <= 1:
        stats = cache.stats()
        rows = [[k, v] for k, v in stats.items() if k not in ("path", "mode", "replay_file")]
        replaying = f"; replaying {stats['replay_file']}" if stats["replay_file"] else ""
        return Table("Result store", ["item", "count"], rows, note=f"cache.mode: {stats['mode']}{replaying}")
    if action == "entries" and len(args) <= 2:
        found = cache.entries(kind=args[1] if len(args) > 1 else None, limit=50)
        cells = [[r["kind"], r["request"], r["provider"], r["created"], r["items"]] for r in found]
        return Table("Cached answers (newest 50)", ["kind", "request", "provider", "created", "items"], cells)
    if action == "clear" and len(args) <= 2:
        cache.clear(args[1] if len(args) > 1 else None)
        return Message("result store cleared" + (f" ({args[1]})" if len(args) > 1 else ""))
    if action == "export":
        return _export(args)
    if action == "load":
        count = cache.load(_one_path(args, "load"))
        return Message(f"{count} recorded answer(s) loaded into the store")
    if action == "drift":
        return cache.drift(_one_path(args, "drift"))
    if action == "costs" and len(args) == 1:
        usd = "{}${:.3f}".format
        rows = [
            [r["provider"], r["model"], r["day"], r["images"], usd("~" if r["estimated"] else "", r["usd"])]
            for r in cache.costs()
        ]
        return Table("Image costs", ["provider", "model", "day", "images", "usd"], rows)
    raise UsageError(USAGE)
