"""Notes on a call that its caller should see even when the result is never displayed.

``r = %web_search -n 1000 q`` on a provider that returns at most 20 shows no card, so the card's
own note is not enough: :func:`note` also issues a :class:`HermesWarning`. Every note is shown
(not once per code line, as Python shows a repeated warning), attributed to the caller's code
(the notebook cell, the script) rather than hermes_nb's internals, and the usual warning filters
apply: ``warnings.filterwarnings("ignore", category=hermes_nb.notices.HermesWarning)`` hides them.
"""

from __future__ import annotations

import sys
import warnings

__all__ = ["HermesWarning", "note"]

#: Frames of these packages are skipped when finding the caller's line.
_INTERNAL = (
    "hermes_nb", "IPython", "traitlets", "contextlib", "functools", "asyncio", "concurrent", "threading"
)


class HermesWarning(UserWarning):
    """A request was adjusted (a count capped, a size raised to its floor); the message says how."""


def _internal(module: str) -> bool:
    return module.split(".", 1)[0] in _INTERNAL


def note(message: str) -> None:
    """Issue ``message`` as a ``HermesWarning`` from the first frame outside hermes_nb, every time."""
    frame = sys._getframe(1)
    while frame.f_back is not None and _internal(str(frame.f_globals.get("__name__", ""))):
        frame = frame.f_back
    warnings.warn_explicit(
        message,
        HermesWarning,
        frame.f_code.co_filename,
        frame.f_lineno,
        module=str(frame.f_globals.get("__name__", "")),
        registry=None,  # no "already shown" registry: the same note on the next call shows again
        module_globals=frame.f_globals,
    )
