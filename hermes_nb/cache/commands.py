"""``hermes-nb cache ACTION``: the store from a shell (stats, entries, clear, export, load, drift, costs)."""

from __future__ import annotations

import argparse
import json

from hermes_nb.cache.drift import drift
from hermes_nb.cache.inventory import clear, costs, entries, stats
from hermes_nb.cache.recording import export, load
from hermes_nb.errors import InvalidInputError

__all__ = ["ACTIONS", "run"]

ACTIONS = ("stats", "entries", "clear", "export", "load", "drift", "costs")


def _path(args: argparse.Namespace) -> str:
    if not args.path:
        raise InvalidInputError(f"hermes-nb cache {args.action} needs a cassette path, e.g. x.hnb.jsonl")
    return str(args.path)


def run(args: argparse.Namespace) -> int:
    """Carry out ``args.action``; the exit status is 1 when a drift report finds changes."""
    if args.action == "stats":
        for key, value in stats().items():
            print(f"{key:<14} {value}")
    elif args.action == "entries":
        for row in entries(kind=args.kind, since=args.since):
            print(f"{row['created']}  {row['kind']:<8} {row['provider']:<12} {row['request']}")
    elif args.action == "clear":
        clear(args.kind)
        print("result store cleared" + (f" ({args.kind})" if args.kind else ""))
    elif args.action == "export":
        print(f"cassette written: {export(_path(args), since=args.since)}")
    elif args.action == "load":
        print(f"{load(_path(args))} recorded answer(s) loaded into the store")
    elif args.action == "drift":
        report = drift(_path(args))
        print(repr(report))
        return 1 if report.changed else 0
    elif args.action == "costs":
        for row in costs():
            print(json.dumps(row, sort_keys=True))
    return 0
