"""What a running batch shows: a live view in a notebook, a progress bar in a terminal, a summary.

In a notebook the view is one display output updated in place (``update_display``, which every
frontend understands, widgets or not): counts, rate, ETA, errors by code, the provider's rate
limiter and the last rows finished (a DataFrame's HTML with ``as_frame=True``). When the batch
ends, that output is replaced by a one-line summary, so the saved notebook keeps a few hundred
bytes, not the rows. Elsewhere the batch shows a ``tqdm`` bar (``hermes_nb.progress``). Whether
anything shows follows ``hermes_nb.progress``: only when someone watches, and a detected (not
forced) view waits ``AUTO_DELAY_S`` before it appears, so quick batches leave nothing behind.
"""

from __future__ import annotations

import html
import logging
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from hermes_nb import progress as _progress
from hermes_nb.batch.result import BatchError
from hermes_nb.extras import FeatureNotInstalledError, require
from hermes_nb.net import rate_limits
from hermes_nb.redaction import redact

__all__ = ["BatchView", "LIVE_ROWS", "REFRESH_S", "view_for"]

#: Rows of the live table (the last ones finished).
LIVE_ROWS = 8
#: Seconds between two redraws of the live view.
REFRESH_S = 0.25
#: Characters of one cell of the live table.
CELL_CHARS = 60

log = logging.getLogger("hermes_nb.batch")

Publish = Callable[[dict[str, str], str, bool], None]


def _ipython_publish(bundle: dict[str, str], display_id: str, update: bool) -> None:
    from IPython.display import display, update_display  # only ever called inside a kernel

    if update:
        update_display(bundle, raw=True, display_id=display_id)
    else:
        display(bundle, raw=True, display_id=display_id)


def _short(value: Any) -> Any:
    """A cell of the live table: long text cut to ``CELL_CHARS``."""
    if isinstance(value, str) and len(value) > CELL_CHARS:
        return value[: CELL_CHARS - 1] + "…"
    return value


def _seconds(value: float) -> str:
    if value >= 3600:
        return f"{value / 3600:.1f} h"
    if value >= 90:
        return f"{value / 60:.1f} min"
    return f"{value:.1f} s"


class BatchView:
    """Counts a batch's finished items and shows them (see the module docstring).

    ``rows(items, results)`` turns finished items into table rows (the batch's DataFrame rows);
    ``publish`` replaces IPython's display for tests; ``clock`` is injectable.
    """

    def __init__(
        self,
        total: int,
        desc: str,
        *,
        enabled: bool | None = None,
        items: Sequence[Any] = (),
        rows: Callable[[list[Any], list[Any]], list[dict[str, Any]]] | None = None,
        columns: Sequence[str] = (),
        as_frame: bool = False,
        provider: str | None = None,
        publish: Publish | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total = total
        self.desc = desc
        self.done = 0
        self.errors: Counter[str] = Counter()
        self._items = items
        self._rows = rows
        self._columns = list(columns)
        self._as_frame = as_frame
        self._provider = provider
        self._clock = clock
        self._start = clock()
        self._resumed = 0
        self._recent: list[tuple[int, Any]] = []
        self._shown_at: float | None = None
        self._noted_at: float | None = None
        self._display_id = f"hermes-batch-{uuid.uuid4().hex[:12]}"
        live = publish is not None or (_progress.in_kernel() and (enabled or enabled is None))
        show = _progress.is_interactive() if enabled is None else bool(enabled)
        self._publish: Publish | None = (publish or _ipython_publish) if live and show else None
        self._delay = _progress.AUTO_DELAY_S if enabled is None else 0.0
        self._bar: _progress.Progress | None = None
        if self._publish is None:
            self._bar_cm = _progress.progress(total, desc, enabled=enabled)
            self._bar = self._bar_cm.__enter__()

    def resumed(self, count: int) -> None:
        """``count`` items were already finished by an earlier run of the job."""
        self._resumed += count
        self.done += count
        if self._bar is not None:
            self._bar.update(count)

    def item(self, index: int, value: Any) -> None:
        """One item finished with ``value`` (a result or a ``BatchError``)."""
        self.done += 1
        if isinstance(value, BatchError):
            self.errors[value.code] += 1
        if self._bar is not None:
            self._bar.update()
        elif self._publish is not None:
            self._recent.append((index, value))
            del self._recent[:-LIVE_ROWS]

    def tick(self) -> None:
        """Redraw the live view when it is due (at most every ``REFRESH_S``)."""
        now = self._clock()
        if self._bar is not None:
            self._note_limiter(self._bar, now)
        if self._publish is None:
            return
        if now - self._start < self._delay:
            return
        if self._shown_at is not None and now - self._shown_at < REFRESH_S:
            return
        self._show(self._bundle(final=False), self._shown_at is not None)
        self._shown_at = now

    def _note_limiter(self, bar: _progress.Progress, now: float) -> None:
        """The terminal bar shows the provider's limiter once it has acted (at most every ``REFRESH_S``)."""
        if not bar.visible or self._provider is None:
            return
        if self._noted_at is not None and now - self._noted_at < REFRESH_S:
            return
        self._noted_at = now
        state = rate_limits.limits().get(self._provider)
        if state is not None and state.throttled:
            bar.note(state.summary())

    def _show(self, bundle: dict[str, str], update: bool) -> None:
        if self._publish is None:
            return
        try:
            self._publish(bundle, self._display_id, update)
        except Exception as exc:  # the view is only a view: a failing display never fails the batch
            log.warning("hermes_nb: the batch's live view stopped: %s", redact(str(exc)))
            self._publish = None

    def close(self) -> None:
        """The batch ended: the live output becomes the summary line (nothing, if it never showed)."""
        if self._bar is not None:
            self._bar_cm.__exit__(None, None, None)
            self._bar = None
        if self._publish is not None and self._shown_at is not None:
            self._show(self._bundle(final=True), True)
        self._publish = None

    # -- what is shown ---------------------------------------------------------------------------
    def summary(self) -> str:
        """Counts, rate, ETA, errors by code and the provider's limiter, on one line."""
        elapsed = max(1e-9, self._clock() - self._start)
        ran = self.done - self._resumed
        rate = ran / elapsed
        parts = [f"{self.desc}: {self.done}/{self.total} done", f"{_seconds(elapsed)}", f"{rate:.1f}/s"]
        left = self.total - self.done
        if left and rate > 0:
            parts.append(f"ETA {_seconds(left / rate)}")
        if self.errors:
            codes = ", ".join(f"{code} {count}" for code, count in self.errors.most_common())
            parts.append(f"{sum(self.errors.values())} error(s): {codes}")
        if self._provider is not None:
            state = rate_limits.limits().get(self._provider)
            if state is not None:
                parts.append(state.summary())
        return " · ".join(parts)

    def _table(self) -> str:
        if self._rows is None or not self._recent:
            return ""
        indices = [index for index, _ in self._recent]
        items = [self._items[i] if i < len(self._items) else i for i in indices]
        rows = self._rows(items, [value for _, value in self._recent])[-LIVE_ROWS:]
        columns = [c for c in self._columns if c not in ("content",)] or sorted({k for r in rows for k in r})
        if self._as_frame:
            try:  # the DataFrame view only when pandas imports; the plain table otherwise
                pd = require("pandas", "the live DataFrame view")
            except FeatureNotInstalledError:
                pass
            else:
                short = [{c: _short(row.get(c)) for c in columns} for row in rows]
                return str(pd.DataFrame(short, columns=columns).to_html(na_rep="", border=0, index=False))
        head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
        cells = ["".join(f"<td>{html.escape(str(_short(row.get(c)) or ''))}</td>" for c in columns)
                 for row in rows]  # fmt: skip
        body = "".join(f"<tr>{line}</tr>" for line in cells)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    def _bundle(self, *, final: bool) -> dict[str, str]:
        line = self.summary()
        if final:
            return {"text/plain": line, "text/html": f"<div class='hermes-batch'>{html.escape(line)}</div>"}
        share = self.done / self.total if self.total else 1.0
        bar = f"<progress value='{self.done}' max='{max(self.total, 1)}'></progress> {share:.0%}"
        return {
            "text/plain": line,
            "text/html": f"<div class='hermes-batch'>{bar} {html.escape(line)}{self._table()}</div>",
        }


def view_for(
    desc: str,
    progress: bool | None,
    items: Sequence[Any],
    rows: Callable[[list[Any], list[Any]], list[dict[str, Any]]] | None,
    columns: Sequence[str],
    as_frame: bool,
    provider: str | None,
) -> Callable[[int], BatchView]:
    """What a ``*_many`` call shows, built when its batch starts: ``view_for(…)(total)``."""

    def make(total: int) -> BatchView:
        return BatchView(total, desc, enabled=progress, items=items, rows=rows, columns=columns,
                         as_frame=as_frame, provider=provider)  # fmt: skip

    return make
