"""``MagicError``: a failed magic as an error cell whose whole traceback is one short message.

IPython prints a plain ``UsageError`` to stderr and leaves no error output, so notebook runners
that look for error outputs (nbval, nbval-lax, nbmake) pass a cell whose magic failed. A
``MagicError`` is a ``UsageError`` (``except UsageError`` still catches it) that IPython shows
through the ``_render_traceback_`` convention instead: the kernel sends a real error output whose
traceback is the message alone, so the cell fails under nbval, nbmake, papermill and
``nbconvert --execute`` alike, and a person still reads one short line naming the fix.
"""

from __future__ import annotations

from IPython.core.error import UsageError

__all__ = ["MagicError"]


class MagicError(UsageError):
    """A magic failed; rendered as its message, without a Python traceback."""

    def _render_traceback_(self) -> list[str]:
        # IPython tests ``type(exc) is UsageError`` for the stderr-only path, so this subclass gets
        # the error-output path, and this method replaces the structured traceback there.
        return str(self).splitlines() or [type(self).__name__]
