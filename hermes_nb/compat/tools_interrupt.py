"""``tools.interrupt``: a notebook has no agent-level interrupt, so nothing is ever interrupted."""

from __future__ import annotations

from typing import Any

HERMES_NAME = "tools.interrupt"
__all__ = ["is_interrupted"]


def is_interrupted(*args: Any, **kwargs: Any) -> bool:
    """Always False: in a kernel, KeyboardInterrupt reaches the running code directly."""
    return False
