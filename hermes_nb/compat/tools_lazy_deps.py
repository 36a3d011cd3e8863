"""``tools.lazy_deps``: install-on-first-use of allow-listed vendor packages."""

from __future__ import annotations

from hermes_nb.plugins import lazy_deps
from hermes_nb.plugins.lazy_deps import *  # noqa: F403 - this module re-exports exactly that API

HERMES_NAME = "tools.lazy_deps"
__all__ = list(getattr(lazy_deps, "__all__", ["ensure", "FeatureUnavailable"]))
