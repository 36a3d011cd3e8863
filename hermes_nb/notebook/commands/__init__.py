"""``%hermes`` subcommands, one module each: plugins, providers, use, config, tools, cache, doctor.

``run(tokens)`` dispatches ``%hermes <subcommand> args…`` to ``commands/<subcommand>.py``'s
``run(args)``, importing that module on first use (so ``%load_ext`` stays fast). Each subcommand
returns a displayable answer (``answers.Table`` or ``answers.Message``); errors are
``UsageError`` lines or ``HermesError``s that the magic turns into one line. A new subcommand is
a module here with ``run(args)`` and its name in ``SUBCOMMANDS``; its CLI twin lives in ``cli.py``.
"""

from __future__ import annotations

import importlib
from typing import Any

from IPython.core.error import UsageError

from hermes_nb.notebook.commands.answers import Message, Table

__all__ = ["run", "SUBCOMMANDS", "Table", "Message"]

#: Every subcommand, in the order ``%hermes?`` lists them; each is the module of that name here.
SUBCOMMANDS = ("plugins", "providers", "use", "config", "tools", "cache", "doctor", "mcp")


def run(tokens: list[str]) -> Any:
    """Dispatch ``%hermes <subcommand> args…``."""
    if not tokens:
        raise UsageError(f"%hermes needs a subcommand: {', '.join(SUBCOMMANDS)} (see %hermes?)")
    if tokens[0] not in SUBCOMMANDS:
        raise UsageError(f"unknown %hermes subcommand {tokens[0]!r}; use one of {', '.join(SUBCOMMANDS)}")
    _pre_command(tokens)
    command = importlib.import_module(f"{__name__}.{tokens[0]}")
    return command.run(tokens[1:])


def _pre_command(tokens: list[str]) -> None:
    """Hermes's ``pre_command`` hook: observers see the command; ``{"action": "block", "message": m}``
    stops it with ``m``."""
    from hermes_nb.plugins import hooks  # lazy: keeps %load_ext fast

    for verdict in hooks.invoke_hook(
        "pre_command", command=tokens[0], args=list(tokens[1:]), raw="%hermes " + " ".join(tokens),
        platform="jupyter",
    ):  # fmt: skip
        if isinstance(verdict, dict) and verdict.get("action") == "block":
            raise UsageError(str(verdict.get("message") or f"%hermes {tokens[0]} was blocked by a plugin"))
