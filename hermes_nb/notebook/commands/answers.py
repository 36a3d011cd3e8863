"""What a ``%hermes`` subcommand returns: a ``Table`` or a ``Message`` (stable text, escaped HTML)."""

from __future__ import annotations

import html
from typing import Any

from IPython.core.error import UsageError

from hermes_nb.notebook.rendering import BOX, HEAD, MUTED

__all__ = ["Table", "Message", "expect"]


class Table:
    """A small titled table for ``%hermes`` listings: HTML with escaped cells and aligned plain text."""

    def __init__(self, title: str, headers: list[str], rows: list[list[Any]], note: str = "") -> None:
        self.title, self.headers, self.note = title, headers, note
        self.rows = [["" if c is None else str(c) for c in row] for row in rows]

    def __repr__(self) -> str:
        widths = [len(h) for h in self.headers]
        for row in self.rows:
            widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]
        fmt = "  ".join(f"{{:<{w}}}" for w in widths)
        lines = [self.title, fmt.format(*self.headers).rstrip()]
        lines += [fmt.format(*row).rstrip() for row in self.rows]
        if self.note:
            lines.append(self.note)
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        cell = "padding:2px 8px;border-bottom:1px solid rgba(127,127,127,.3);text-align:left;color:inherit"
        head = "".join(f'<th style="{cell}">{html.escape(h)}</th>' for h in self.headers)
        body = "".join(
            "<tr>" + "".join(f'<td style="{cell}">{html.escape(c)}</td>' for c in row) + "</tr>"
            for row in self.rows
        )
        note = f'<div style="{MUTED}">{html.escape(self.note)}</div>' if self.note else ""
        return (
            f'<div class="hermes-nb" style="{BOX}"><div style="{HEAD}">{html.escape(self.title)}</div>'
            f'<table style="border-collapse:collapse;color:inherit"><tr>{head}</tr>{body}</table>{note}</div>'
        )


class Message:
    """A one-line answer of a ``%hermes`` command (stable text, escaped HTML)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        return f'<div class="hermes-nb" style="{BOX}">{html.escape(self.text)}</div>'


def expect(args: list[str], allowed: int, usage: str) -> None:
    if len(args) > allowed:
        raise UsageError(f"unexpected argument(s) {' '.join(args[allowed:])!r}; usage: {usage}")
