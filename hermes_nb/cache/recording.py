"""Record and replay: ``export`` the store to a cassette, ``record`` a block into one, ``load`` one back.

A cassette (the format: ``hermes_nb.store.cassette``; recording and replay: ``hermes_nb.store.replay``)
is one JSONL file to commit beside a notebook; replay it with ``HERMES_NB_REPLAY=path`` or
``cache.replay_file``: no network, no keys.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hermes_nb.cache.inventory import since_timestamp
from hermes_nb.plugins.image_provider import images_cache_dir
from hermes_nb.store import cassette, get_store, replay
from hermes_nb.store.cassette import Entry, iso
from hermes_nb.store.replay import Recorder
from hermes_nb.store.requests import digest, key_of, request_of

__all__ = ["export", "record", "load"]

#: Fields of a stored image row that are bookkeeping, not part of the image's record.
_BOOKKEEPING = ("id", "path", "params", "envelope", "request", "request_hash", "run", "index", "source")


def _web_entries(since: float, kinds: tuple[str, ...]) -> Iterator[Entry]:
    for row in get_store().cache_entries(None, since):
        if row["kind"] in kinds:
            request = request_of(row["key"])
            yield Entry(row["kind"], request, row["provider"], iso(row["created"]), row["value"])


def _image_entries(since: float) -> Iterator[Entry]:
    for row in get_store().find_images(limit=1_000_000):
        params = row.get("params") or {}
        path = Path(str(row.get("path") or ""))
        if float(row["created"]) < since or "request" not in params or not path.is_file():
            continue  # images recorded before requests were kept cannot be matched again
        merged = {**row, **params}
        value = {k: v for k, v in merged.items() if k not in _BOOKKEEPING}
        value["created"] = params.get("created") or iso(float(row["created"]))
        provider, created = str(row.get("provider") or ""), iso(float(row["created"]))
        index = int(params.get("index", 0))
        yield Entry("image", dict(params["request"]), provider, created, value, index, source=path)


def export(
    path: str | Path, since: Any = None, kinds: tuple[str, ...] = ("search", "extract", "crawl", "image")
) -> Path:
    """Write what the store holds (since ``since``) to the cassette ``path``; returns the path.

    Images are copied beside it into ``<name>.files/``; nothing secret is written.
    """
    start = since_timestamp(since)
    entries = list(_web_entries(start, kinds))
    if "image" in kinds:
        entries += list(_image_entries(start))
    return cassette.write(path, entries)


@contextmanager
def record(path: str | Path) -> Iterator[Recorder]:
    """``with hn.cache.record("analysis.hnb.jsonl"):`` — every search, page and image used in the block
    (fresh or from the cache) is written to the cassette when the block ends."""
    with replay.recording(path) as recorder:
        yield recorder


def load(path: str | Path) -> int:
    """Put a cassette's answers into the store (read_write mode then serves them); returns how many."""
    store = get_store()
    count = 0
    for entry in cassette.read(path):
        if not entry.is_file:
            created = cassette.timestamp(entry.recorded)
            store.cache_put(key_of(entry.request), entry.kind, entry.provider, entry.value, created=created)
        else:
            if entry.source is None or not entry.source.is_file():
                continue
            target = images_cache_dir() / f"cassette-{entry.source.name}"
            if not target.is_file():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(entry.source, target)
            wanted = digest(entry.request)
            replay.file_rows(entry.kind).add(
                {**entry.value, "path": str(target), "n": entry.request.get("n", 1), "request_hash": wanted,
                 "run": f"cassette-{wanted}", "index": entry.index, "request": entry.request,
                 "source": "cassette"}
            )  # fmt: skip
        count += 1
    return count
