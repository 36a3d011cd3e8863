"""The effective cache mode: ``cache.mode``, or ``replay`` while a cassette is replayed."""

from __future__ import annotations

from hermes_nb import config
from hermes_nb.errors import InvalidInputError
from hermes_nb.store.cassette import replay_path

__all__ = ["CACHE_MODES", "cache_mode"]

CACHE_MODES = ("read_write", "replay", "refresh", "off")


def cache_mode() -> str:
    """The effective ``cache.mode`` (validated); ``replay`` while a cassette is replayed."""
    if replay_path() is not None:
        return "replay"
    mode = str(config.get("cache.mode", "read_write")).strip().lower()
    if mode not in CACHE_MODES:
        raise InvalidInputError(
            f"cache.mode is {mode!r}; set it to one of {', '.join(CACHE_MODES)} "
            "(hn.config.set('cache.mode', 'read_write'))"
        )
    return mode
