"""The drift report: re-run a cassette's requests live and say, per request, what changed.

Searches compare hit URLs (added, removed, reordered among those kept); extracted pages compare
their text (similarity 0..1); crawls compare the pages reached; images are listed, not compared
(a model is not expected to draw the same picture twice). Nothing is replayed or cached while the
report runs, so a failing regression notebook tells whether the web or the code changed.
"""

from __future__ import annotations

import difflib
import html
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from hermes_nb import web
from hermes_nb.errors import HermesError, InvalidInputError
from hermes_nb.extras import require
from hermes_nb.store import cassette, replay
from hermes_nb.store.cassette import Entry
from hermes_nb.store.requests import describe
from hermes_nb.web.extraction.formats import markdown_to_text

__all__ = ["DriftRow", "DriftReport", "drift", "COLUMNS"]

COLUMNS = ["kind", "request", "status", "added", "removed", "reordered", "similarity", "note"]
#: Pages whose text is at least this similar count as unchanged.
SAME_TEXT = 0.999
_COMPARED_CHARS = 20_000


@dataclass
class DriftRow:
    """What changed for one recorded request: ``status`` is same, changed, error or not compared."""

    kind: str
    request: str
    status: str
    added: int = 0
    removed: int = 0
    reordered: int = 0
    similarity: float | None = None
    note: str = ""


class DriftReport(list[DriftRow]):
    """Rows in cassette order; ``.changed`` are the requests whose answer moved."""

    def __init__(self, rows: list[DriftRow], path: Path) -> None:
        super().__init__(rows)
        self.path = path

    @property
    def changed(self) -> list[DriftRow]:
        return [row for row in self if row.status in ("changed", "error")]

    def to_pandas(self) -> Any:
        pd = require("pandas", "to_pandas()")

        return pd.DataFrame([asdict(row) for row in self], columns=COLUMNS)

    def _cells(self, row: DriftRow) -> list[str]:
        similarity = "" if row.similarity is None else f"{row.similarity:.3f}"
        return [row.kind, row.request, row.status, str(row.added), str(row.removed), str(row.reordered),
                similarity, row.note]  # fmt: skip

    def __repr__(self) -> str:
        head = f"DriftReport({self.path.name}: {len(self.changed)} of {len(self)} request(s) changed)"
        lines = [head]
        for row in self:
            cells = self._cells(row)
            lines.append(f"  {cells[2]:<13} {cells[1]}" + (f"  [{cells[7]}]" if cells[7] else ""))
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(c)}</th>" for c in COLUMNS)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in self._cells(row)) + "</tr>" for row in self
        )
        caption = html.escape(f"drift of {self.path.name}: {len(self.changed)} of {len(self)} changed")
        return f'<table class="hermes-nb hermes-nb-drift"><caption>{caption}</caption>{head}{body}</table>'


def _backend(request: dict[str, Any]) -> str | None:
    backend = request.get("backend")
    return None if backend in (None, "auto") else str(backend)


def _reordered(old: list[str], new: list[str]) -> int:
    kept_old = [u for u in old if u in new]
    kept_new = [u for u in new if u in old]
    return sum(1 for a, b in zip(kept_old, kept_new, strict=True) if a != b)


def _similarity(old: str, new: str) -> float:
    """How alike two readings of a page are, by the words a reader sees: a link or a mark that a newer
    extractor writes is no change of the page."""
    if old == new:
        return 1.0
    old, new = markdown_to_text(old[: 2 * _COMPARED_CHARS]), markdown_to_text(new[: 2 * _COMPARED_CHARS])
    if old == new:
        return 1.0
    matcher = difflib.SequenceMatcher(None, old[:_COMPARED_CHARS], new[:_COMPARED_CHARS], autojunk=False)
    return round(matcher.ratio(), 3)


def _search_row(entry: Entry, text: str) -> DriftRow:
    request = entry.request
    live = web.search(request["query"], request["limit"], backend=_backend(request), no_cache=True)
    old = [str(hit.get("url")) for hit in entry.value.get("hits") or []]
    new = live.urls
    added = len([u for u in new if u not in old])
    removed = len([u for u in old if u not in new])
    reordered = _reordered(old, new)
    status = "changed" if added or removed or reordered else "same"
    return DriftRow("search", text, status, added, removed, reordered, note=f"live: {live.provider}")


def _extract_row(entry: Entry, text: str) -> DriftRow:
    request = entry.request
    figures = bool(request.get("images"))  # a page recorded with its figures is read with them again
    live = web.extract(request["url"], backend=_backend(request), no_cache=True, images=figures)
    page = live.pages[0]
    if page.error:
        return DriftRow("extract", text, "error", note=f"{page.error_code}: {page.error}")
    old = str(entry.value.get("raw_content") or entry.value.get("content") or "")
    similarity = _similarity(old, page.raw_content or page.content)
    return DriftRow("extract", text, "same" if similarity >= SAME_TEXT else "changed", similarity=similarity)


def _crawl_row(entry: Entry, text: str) -> DriftRow:
    request = entry.request
    depth, limit = request["depth"], request["limit"]
    live = web.crawl(
        request["url"], depth=depth, limit=limit, backend=_backend(request), no_cache=True,
        images=bool(request.get("images")),
    )
    old = [str(page.get("url")) for page in entry.value.get("pages") or []]
    new = [page.url for page in live.pages]
    added, removed = len(set(new) - set(old)), len(set(old) - set(new))
    return DriftRow("crawl", text, "changed" if added or removed else "same", added, removed)


_COMPARE = {"search": _search_row, "extract": _extract_row, "crawl": _crawl_row}


def drift(path: str | Path) -> DriftReport:
    """Re-run every request recorded in the cassette ``path`` live and report what changed."""
    source = Path(path).expanduser()
    entries = cassette.read(source)
    if not entries:
        raise InvalidInputError(f"the cassette {source} records no requests; nothing to compare")
    rows: list[DriftRow] = []
    with replay.live():
        for entry in entries:
            if entry.kind == "image":
                if entry.index == 0:
                    rows.append(
                        DriftRow("image", describe({"kind": "image", **entry.request}), "not compared")
                    )
                continue
            text = describe(entry.request)
            try:
                rows.append(_COMPARE[entry.kind](entry, text))
            except HermesError as exc:
                rows.append(DriftRow(entry.kind, text, "error", note=f"{exc.code}: {exc.message}"))
    return DriftReport(rows, source)
