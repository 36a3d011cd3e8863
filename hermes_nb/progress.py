"""Progress bars that show only in interactive use, so saved notebook outputs stay stable.

A bar (``tqdm.auto``) appears when a person is watching: an IPython kernel or a terminal. It is
silent when ``HERMES_NB_PROGRESS=0``, when ``CI`` is set (nbval, nbconvert and CI runs), and
when there is neither a kernel nor a TTY. ``HERMES_NB_PROGRESS=1`` or ``progress=True`` forces it
on; ``progress=False`` forces it off. A detected (not forced) bar waits ``AUTO_DELAY_S`` before it
draws, so quick batches never leave a bar in a saved output, even under a local ``pytest --nbval``.
Inside one item of a batch (``batch_item``) a detected bar stays hidden: the batch's own view stands
for its items, so a batch of videos shows one view, not a polling bar for each video.
Without tqdm (``pip install 'hermes_nb[progress]'``) there is no bar, and one warning says so.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from hermes_nb.extras import FeatureNotInstalledError, require

__all__ = ["Progress", "batch_item", "in_kernel", "is_interactive", "progress"]

_FALSE = {"0", "false", "no", "off", ""}
AUTO_DELAY_S = 2.0

log = logging.getLogger(__name__)
#: the missing-tqdm warning is given once per session
_warned_missing = False
#: True while the running code is one item of a batch (each worker thread and task has its own value)
_IN_BATCH_ITEM: ContextVar[bool] = ContextVar("hermes_nb_in_batch_item", default=False)


def _in_kernel() -> bool:
    shell: Any = None
    ipython = sys.modules.get("IPython")
    if ipython is not None:
        try:
            shell = ipython.get_ipython()
        except Exception:
            shell = None
    return shell is not None and getattr(shell, "kernel", None) is not None


def in_kernel() -> bool:
    """True inside an IPython kernel (a notebook or console), where outputs can update in place."""
    return _in_kernel()


def _on_tty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def is_interactive() -> bool:
    """True when a progress bar would be seen by a person (see the module docstring)."""
    forced = os.environ.get("HERMES_NB_PROGRESS")
    if forced is not None:
        return forced.strip().lower() not in _FALSE
    if os.environ.get("CI", "").strip().lower() not in _FALSE:
        return False
    return _in_kernel() or _on_tty()


class Progress:
    """A counter with an optional tqdm bar behind it (``update`` is always safe to call)."""

    def __init__(self, total: int | None, desc: str, bar: Any = None) -> None:
        self.total = total
        self.desc = desc
        self.done = 0
        self._bar = bar

    @property
    def visible(self) -> bool:
        return self._bar is not None

    def update(self, n: int = 1) -> None:
        self.done += n
        if self._bar is not None:
            self._bar.update(n)

    def note(self, text: str) -> None:
        """Show ``text`` after the bar's counts (e.g. a rate limiter's state)."""
        if self._bar is not None:
            self._bar.set_postfix_str(text)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _make_bar(total: int | None, desc: str, delay: float) -> Any:
    global _warned_missing
    try:
        tqdm_auto = require("tqdm.auto", "a progress bar")
    except FeatureNotInstalledError as exc:
        if not _warned_missing:
            _warned_missing = True
            log.warning("%s; the batch runs without one", exc)
        return None
    return tqdm_auto.tqdm(total=total, desc=desc, leave=False, delay=delay)


@contextmanager
def batch_item() -> Iterator[None]:
    """Within: this code is one item of a batch, and a detected (not forced) bar stays hidden."""
    token = _IN_BATCH_ITEM.set(True)
    try:
        yield
    finally:
        _IN_BATCH_ITEM.reset(token)


@contextmanager
def progress(total: int | None, desc: str = "", *, enabled: bool | None = None) -> Iterator[Progress]:
    """``with progress(n, "searching") as bar: ... bar.update()``; ``enabled`` overrides detection."""
    show = is_interactive() and not _IN_BATCH_ITEM.get() if enabled is None else bool(enabled)
    delay = AUTO_DELAY_S if enabled is None else 0.0
    tracker = Progress(total, desc, _make_bar(total, desc, delay) if show else None)
    try:
        yield tracker
    finally:
        tracker.close()
