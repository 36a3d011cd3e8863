"""Cassettes: the searches, pages and images a notebook used, as one diff-friendly JSONL file.

Line one is a header (``{"format": "hermes_nb.cassette", "version": 1}``); then one entry per
line, keys sorted, entries sorted by request, so that re-recording an unchanged notebook gives
an unchanged file. An entry is ``{"kind", "request", "provider", "recorded", "value"}``; image
entries add ``"index"`` and ``"file"``, the image itself lying beside the cassette in
``<name>.files/``. Nothing secret is written: secret-named fields are dropped and every string
is redacted.

Replay (``HERMES_NB_REPLAY=path`` or ``cache.replay_file``) answers from a cassette only. Requests
match when normalised (query whitespace and case, URL host case; ``auto`` or the provider that
answered; a recorded search with a larger limit serves a smaller one); ``cache.replay_strict``
demands the same backend, limit and every parameter. A miss raises ``CacheMissError`` naming the
request and the closest recorded one.
"""

from __future__ import annotations

import difflib
import json
import os
import shutil
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from hermes_nb import config
from hermes_nb._state import on_reset
from hermes_nb.errors import CacheMissError, InvalidInputError
from hermes_nb.store.database import _scrub
from hermes_nb.store.requests import describe, key_of, normalize_query, request_of

__all__ = [
    "FORMAT",
    "VERSION",
    "REPLAY_ENV",
    "Entry",
    "Cassette",
    "Recorder",
    "files_dir",
    "iso",
    "timestamp",
    "read",
    "write",
    "replay_path",
    "live",
    "replay_cassette",
    "recording",
    "note_web",
    "note_image",
]

FORMAT = "hermes_nb.cassette"
VERSION = 1
REPLAY_ENV = "HERMES_NB_REPLAY"


def iso(moment: float) -> str:
    """``2026-11-24T10:31:02Z`` (UTC, seconds)."""
    return datetime.fromtimestamp(moment, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def timestamp(text: str) -> float:
    """Inverse of ``iso`` (0.0 for text that is not such a time)."""
    try:
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc).timestamp()
    except (TypeError, ValueError):
        return 0.0


@dataclass
class Entry:
    """One recorded answer: a web call's cached value or one image of an image request."""

    kind: str
    request: dict[str, Any]
    provider: str
    recorded: str
    value: dict[str, Any]
    index: int = 0
    file: str | None = None
    #: where the image lies now (not written; ``file`` is the name beside the cassette)
    source: Path | None = field(default=None, repr=False)

    @property
    def identity(self) -> str:
        """What makes two entries the same (the later one wins)."""
        if self.kind == "image":
            return json.dumps([self.request, self.index], sort_keys=True, default=str)
        return key_of(self.request)

    def line(self) -> str:
        data: dict[str, Any] = {
            "kind": self.kind,
            "request": self.request,
            "provider": self.provider,
            "recorded": self.recorded,
            "value": self.value,
        }
        if self.kind == "image":
            data.update(index=self.index, file=self.file)
        return json.dumps(_scrub(data), sort_keys=True, ensure_ascii=False, default=str)


def files_dir(path: Path) -> Path:
    """``analysis.hnb.jsonl`` → ``analysis.hnb.files`` (the images beside it)."""
    stem = path.name[: -len(".jsonl")] if path.name.endswith(".jsonl") else path.name
    return path.with_name(stem + ".files")


def write(path: str | Path, entries: Iterable[Entry]) -> Path:
    """Write ``entries`` (deduplicated, sorted) and copy their images beside the file."""
    target = Path(path).expanduser()
    target.parent.mkdir(parents=True, exist_ok=True)
    unique = {entry.identity: entry for entry in entries}
    ordered = sorted(unique.values(), key=lambda e: (e.kind, e.identity))
    images = files_dir(target)
    lines = [json.dumps({"format": FORMAT, "version": VERSION}, sort_keys=True)]
    for entry in ordered:
        if entry.kind == "image" and entry.source is not None:
            digest = str(entry.value.get("sha256") or "")[:16] or f"{abs(hash(entry.identity)):x}"
            name = f"{digest}{entry.source.suffix.lower() or '.png'}"
            images.mkdir(parents=True, exist_ok=True)
            if not (images / name).is_file():
                shutil.copyfile(entry.source, images / name)
            entry.file = f"{images.name}/{name}"
        lines.append(entry.line())
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.replace(tmp, target)
    return target


def read(path: str | Path) -> list[Entry]:
    """The entries of a cassette file; a file that is not one raises ``InvalidInputError``."""
    source = Path(path).expanduser()
    try:
        lines = source.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InvalidInputError(f"cannot read the cassette {source}: {exc.strerror or exc}") from exc
    try:
        header = json.loads(lines[0]) if lines else {}
        if header.get("format") != FORMAT:
            raise ValueError("no hermes_nb.cassette header")
        if int(header.get("version", 0)) > VERSION:
            raise ValueError(f"version {header['version']} is newer than this hermes_nb reads")
        entries = []
        for line in lines[1:]:
            if not line.strip():
                continue
            data = json.loads(line)
            entry = Entry(
                kind=str(data["kind"]),
                request=dict(data["request"]),
                provider=str(data.get("provider", "")),
                recorded=str(data.get("recorded", "")),
                value=dict(data.get("value") or {}),
                index=int(data.get("index", 0)),
                file=data.get("file"),
            )
            if entry.file:
                entry.source = source.parent / entry.file
            entries.append(entry)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise InvalidInputError(
            f"{source} is not a hermes_nb cassette ({exc}); write one with hn.cache.export(path)"
        ) from exc
    return entries


# --------------------------------------------------------------------------- replay


def _backend_fits(wanted: str, entry: Entry) -> bool:
    return wanted == "auto" or wanted in (entry.request.get("backend"), entry.provider)


def _same_prompt(a: Any, b: Any) -> bool:
    return " ".join(str(a or "").split()) == " ".join(str(b or "").split())


class Cassette:
    """A cassette loaded for replay: answers web requests by key and image requests by fields."""

    def __init__(self, path: Path, entries: list[Entry], *, strict: bool = False) -> None:
        self.path = path
        self.entries = entries
        self.strict = strict

    def _web_match(self, wanted: dict[str, Any], entry: Entry) -> bool:
        if entry.kind != wanted["kind"]:
            return False
        if self.strict:
            return entry.request == wanted
        if not _backend_fits(wanted["backend"], entry):
            return False
        if wanted["kind"] == "search":
            same = normalize_query(entry.request["query"]) == normalize_query(wanted["query"])
            return same and int(entry.request["limit"]) >= int(wanted["limit"])
        if wanted["kind"] == "crawl":
            return (
                entry.request["url"] == wanted["url"]
                and entry.request["depth"] == wanted["depth"]
                and int(entry.request["limit"]) >= int(wanted["limit"])
            )
        return entry.request.get("url") == wanted.get("url")

    def answer(self, key: str) -> tuple[dict[str, Any], str, float]:
        """``(value, provider, recorded)`` for a web cache key; ``CacheMissError`` when not recorded."""
        wanted = request_of(key)
        found = [e for e in self.entries if self._web_match(wanted, e)]
        if not found:
            raise self._miss(wanted)
        exact = [e for e in found if e.request == wanted]
        entry = (exact or sorted(found, key=lambda e: (e.request.get("limit", 0), e.recorded)))[0]
        value = dict(entry.value)
        limit = wanted.get("limit")
        if wanted["kind"] == "search" and isinstance(limit, int):
            value["hits"] = list(value.get("hits") or [])[:limit]
            value["effective_limit"] = min(int(value.get("effective_limit", limit)), limit)
        elif wanted["kind"] == "crawl" and isinstance(limit, int):
            value["pages"] = list(value.get("pages") or [])[:limit]
        return value, entry.provider, timestamp(entry.recorded)

    def _image_match(self, wanted: dict[str, Any], entry: Entry) -> bool:
        if entry.kind != "image":
            return False
        got = entry.request
        for name in ("provider", "model"):
            if wanted.get(name) is not None and wanted[name] != got.get(name):
                return False
        if self.strict:
            same_prompt = wanted.get("prompt") == got.get("prompt")
        else:
            same_prompt = _same_prompt(wanted.get("prompt"), got.get("prompt"))
        return same_prompt and all(
            wanted.get(name) == got.get(name) for name in ("aspect_ratio", "seed", "n", "parameters")
        )

    def images(self, wanted: dict[str, Any]) -> list[tuple[dict[str, Any], Path | None, float]]:
        """``[(record, file, recorded)]`` of a request's ``n`` images in order; else ``CacheMissError``."""
        found: dict[int, Entry] = {}
        for entry in self.entries:
            if self._image_match(wanted, entry):
                found.setdefault(entry.index, entry)
        n = int(wanted.get("n") or 1)
        if not all(i in found for i in range(n)):
            raise self._miss({"kind": "image", **wanted})
        return [(dict(found[i].value), found[i].source, timestamp(found[i].recorded)) for i in range(n)]

    def _miss(self, wanted: dict[str, Any]) -> CacheMissError:
        text = describe(wanted)
        kind = wanted.get("kind")
        candidates = [describe(e.request if e.kind != "image" else {"kind": "image", **e.request})
                      for e in self.entries if e.kind == kind]  # fmt: skip
        ranked = sorted(
            set(candidates), key=lambda c: difflib.SequenceMatcher(None, text, c).ratio(), reverse=True
        )
        closest = f"; closest recorded: {ranked[0]}" if ranked else f"; it holds no {kind} at all"
        mode = " (strict matching)" if self.strict else ""
        return CacheMissError(
            f"replaying {self.path.name}{mode}: no recorded {text}{closest}. Record it again against live "
            f"providers (with hn.cache.record({str(self.path)!r}): …) or unset {REPLAY_ENV} and "
            "cache.replay_file"
        )


_live = threading.Event()


@contextmanager
def live() -> Iterator[None]:
    """Inside the block nothing is replayed (the drift report asks the live providers)."""
    _live.set()
    try:
        yield
    finally:
        _live.clear()


def replay_path() -> Path | None:
    """The cassette being replayed: ``$HERMES_NB_REPLAY``, else ``cache.replay_file``, else None."""
    if _live.is_set():
        return None
    value = os.environ.get(REPLAY_ENV) or config.get("cache.replay_file")
    return Path(str(value)).expanduser() if value else None


_loaded: dict[tuple[Path, float, bool], Cassette] = {}
_loaded_lock = threading.Lock()


def replay_cassette() -> Cassette | None:
    """The loaded replay cassette (re-read when the file changes), or None when not replaying."""
    path = replay_path()
    if path is None:
        return None
    try:
        mtime = path.stat().st_mtime
    except OSError as exc:
        raise InvalidInputError(
            f"the replay cassette {path} does not exist; record it first or unset {REPLAY_ENV}"
        ) from exc
    strict = bool(config.get("cache.replay_strict", False))
    cache_key = (path.resolve(), mtime, strict)
    with _loaded_lock:
        found = _loaded.get(cache_key)
    if found is None:
        found = Cassette(path, read(path), strict=strict)
        with _loaded_lock:
            _loaded.clear()
            _loaded[cache_key] = found
    return found


# --------------------------------------------------------------------------- recording


class Recorder:
    """Collects what calls used while a ``recording`` is active (cache hits and fresh answers)."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self._lock = threading.Lock()

    def add(self, entry: Entry) -> None:
        with self._lock:
            self.entries.append(entry)


_recorders: list[Recorder] = []
_recorders_lock = threading.Lock()


def note_web(key: str, provider: str, value: Any, created: float) -> None:
    """Tell active recorders that a web call used ``value`` (cheap when nothing records)."""
    if not _recorders:
        return
    request = request_of(key)
    entry = Entry(str(request["kind"]), request, provider, iso(created), dict(value))
    with _recorders_lock:
        for recorder in _recorders:
            recorder.add(entry)


def note_image(
    request: dict[str, Any], index: int, record: dict[str, Any], path: Path, created: float
) -> None:
    """Tell active recorders that an image request used the image at ``path``."""
    if not _recorders:
        return
    value = {k: v for k, v in record.items() if k not in ("path", "envelope")}
    entry = Entry("image", dict(request), str(record.get("provider", "")), iso(created), value, index,
                  source=path)  # fmt: skip
    with _recorders_lock:
        for recorder in _recorders:
            recorder.add(entry)


@contextmanager
def recording(path: str | Path) -> Iterator[Recorder]:
    """Record every search, page and image used inside the block into the cassette ``path``."""
    recorder = Recorder()
    with _recorders_lock:
        _recorders.append(recorder)
    try:
        yield recorder
    finally:
        with _recorders_lock:
            _recorders.remove(recorder)
        write(path, recorder.entries)


@on_reset
def _forget() -> None:
    with _loaded_lock:
        _loaded.clear()
