"""How web calls use the cache: the effective mode per call, reads, writes, recording and replay.

``cache.mode``: ``read_write`` (default: fresh cached searches — younger than ``cache.ttl`` — and
cached pages are served, new answers are stored), ``replay`` (only the store answers; a miss raises
``CacheMissError`` and no provider is called), ``refresh`` (always call, overwrite), ``off``.
A replay cassette (``HERMES_NB_REPLAY`` / ``cache.replay_file``) means ``replay`` from that file.
Per call, ``no_cache=True`` is ``off`` and ``refresh=True`` is ``refresh``; neither can lift replay
(no network while replaying).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

from hermes_nb import config
from hermes_nb.errors import CacheMissError, HermesError
from hermes_nb.store import cassette, get_store
from hermes_nb.store.modes import CACHE_MODES, cache_mode
from hermes_nb.web.results import Page

__all__ = ["CACHE_MODES", "cache_mode", "call_mode", "ttl", "cache_get", "keep", "index_pages", "miss"]

log = logging.getLogger(__name__)


def call_mode(no_cache: bool = False, refresh: bool = False) -> str:
    """The mode of one call: ``cache_mode()`` narrowed by the per-call ``no_cache`` / ``refresh``."""
    mode = cache_mode()
    if mode == "replay":
        return mode
    if no_cache:
        return "off"
    return "refresh" if refresh and mode != "off" else mode


def ttl() -> float | None:
    value = config.get("cache.ttl")
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def cache_get(key: str, mode: str, max_age: float | None) -> tuple[Any, str, float] | None:
    """``(value, provider, created)`` for ``key`` from the replay cassette or the store, or None."""
    replaying = cassette.replay_cassette() if mode == "replay" else None
    if replaying is not None:
        found: tuple[Any, str, float] | None = replaying.answer(key)  # a miss raises CacheMissError
    else:
        try:
            found = get_store().cache_get(key, max_age=max_age)
        except HermesError as exc:
            if mode == "replay":
                raise
            log.warning("cache read skipped: %s", exc)
            return None
    if found is not None:
        cassette.note_web(key, found[1], found[0], found[2])
    return found


def keep(key: str, kind: str, provider: str, value: Any, mode: str) -> None:
    """Store a fresh answer (when ``mode`` writes) and show it to active recorders."""
    cassette.note_web(key, provider, value, time.time())
    if mode not in ("read_write", "refresh"):
        return
    try:
        get_store().cache_put(key, kind, provider, value)
    except HermesError as exc:
        log.warning("cache write skipped: %s", exc)


def index_pages(pages: Sequence[Page], provider: str) -> None:
    """Keep successful pages' full text in the store so ``local`` search finds them offline."""
    try:
        store = get_store()
        for page in pages:
            if page.error is None:
                text = page.raw_content or page.content
                store.put_page(page.url, page.title, text, metadata=page.metadata, provider=provider)
    except HermesError as exc:
        log.warning("page index skipped: %s", exc)


def miss(what: str) -> CacheMissError:
    return CacheMissError(
        f"cache.mode is 'replay' and the store has no {what}; run it once with "
        "hn.config.set('cache.mode', 'read_write') to record it"
    )
