"""The one place that decides how a call uses the cache: read it, call, record, replay, or miss.

``cache.mode`` is a ``Mode``:

* ``read_write`` (default): answers in the store are served (searches and crawls while younger
  than ``cache.ttl``; pages and files always), new answers are stored;
* ``replay``: only the store, or the replay cassette, answers; a miss is ``CacheMissError``
  (``CACHE_MISS``) and no provider is ever called;
* ``refresh``: always call, overwrite what the store holds;
* ``off``: neither read nor write.

A replay cassette (``HERMES_NB_REPLAY=path`` or ``cache.replay_file``) means ``replay`` from that
file: no network, no keys. Per call, ``no_cache=True`` is ``off`` and ``refresh=True`` (for images
also ``new=True``) is ``refresh``; neither can lift replay.

Answers come in two shapes that follow the same flow:

* values (the web kinds: ``search``, ``extract``, ``crawl``): ``read`` / ``read_many`` by key,
  then ``keep`` a fresh answer;
* files (``image``; another media kind registers its store rows with ``register_file_rows``):
  ``read_files`` for a request's ``n`` files, then ``keep_file`` for each fresh one.

Every answer a call uses — from the store, a cassette or a provider — is shown to the active
recorders (``recording(path)``), so a recorded cassette holds exactly what the notebook used.
Keys come from ``hermes_nb.store.requests`` (one scheme), the file format from
``hermes_nb.store.cassette``.

Replay from a cassette matches requests normalised (query whitespace and case, URL host case;
``auto`` or the provider that answered; a recorded search with a larger limit serves a smaller
one); ``cache.replay_strict`` demands the same backend, limit and every parameter.
"""

from __future__ import annotations

import difflib
import enum
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from hermes_nb import config
from hermes_nb._state import on_reset
from hermes_nb.errors import CacheMissError, HermesError, InvalidInputError
from hermes_nb.store import cassette
from hermes_nb.store.cassette import Entry, iso, timestamp
from hermes_nb.store.database import get_store
from hermes_nb.store.requests import describe, digest, normalize_query, request_of

__all__ = [
    "Mode",
    "CACHE_MODES",
    "REPLAY_ENV",
    "cache_mode",
    "call_mode",
    "replay_path",
    "live",
    "Cassette",
    "replay_cassette",
    "miss",
    "ttl",
    "read",
    "read_many",
    "keep",
    "FileRows",
    "register_file_rows",
    "file_rows",
    "stored_files",
    "read_files",
    "keep_file",
    "Recorder",
    "recording",
]

log = logging.getLogger(__name__)

REPLAY_ENV = "HERMES_NB_REPLAY"
T = TypeVar("T")


class Mode(str, enum.Enum):
    """How a call uses the cache. A ``str``: ``Mode.REPLAY == "replay"``, config values stay strings."""

    READ_WRITE = "read_write"
    REPLAY = "replay"
    REFRESH = "refresh"
    OFF = "off"

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)

    @property
    def reads(self) -> bool:
        """The store (or the replay cassette) is asked before any provider."""
        return self in (Mode.READ_WRITE, Mode.REPLAY)

    @property
    def writes(self) -> bool:
        """A fresh answer is kept in the store."""
        return self in (Mode.READ_WRITE, Mode.REFRESH)

    @property
    def calls(self) -> bool:
        """A provider may be asked (never while replaying)."""
        return self is not Mode.REPLAY


#: The values ``cache.mode`` accepts, in the order the docs list them.
CACHE_MODES = tuple(mode.value for mode in Mode)


# --------------------------------------------------------------------------- the mode


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


def cache_mode() -> Mode:
    """The effective ``cache.mode`` (validated); ``Mode.REPLAY`` while a cassette is replayed."""
    if replay_path() is not None:
        return Mode.REPLAY
    value = str(config.get("cache.mode", Mode.READ_WRITE.value)).strip().lower()
    try:
        return Mode(value)
    except ValueError:
        raise InvalidInputError(
            f"cache.mode is {value!r}; set it to one of {', '.join(CACHE_MODES)} "
            "(hn.config.set('cache.mode', 'read_write'))"
        ) from None


def call_mode(*, no_cache: bool = False, refresh: bool = False) -> Mode:
    """The mode of one call: ``cache_mode()`` narrowed by ``no_cache`` / ``refresh``; replay stays."""
    mode = cache_mode()
    if mode is Mode.REPLAY:
        return mode
    if no_cache:
        return Mode.OFF
    return Mode.REFRESH if refresh and mode is not Mode.OFF else mode


# --------------------------------------------------------------------------- replaying a cassette


def _backend_fits(wanted: str, entry: Entry) -> bool:
    return wanted == "auto" or wanted in (entry.request.get("backend"), entry.provider)


def _same_prompt(a: Any, b: Any) -> bool:
    return " ".join(str(a or "").split()) == " ".join(str(b or "").split())


class Cassette:
    """A cassette loaded for replay: answers value requests by key and file requests by fields."""

    def __init__(self, path: Path, entries: list[Entry], *, strict: bool = False) -> None:
        self.path = path
        self.entries = entries
        self.strict = strict

    def _value_match(self, wanted: dict[str, Any], entry: Entry) -> bool:
        if entry.kind != wanted["kind"]:
            return False
        if self.strict:
            return entry.request == wanted
        if not _backend_fits(wanted["backend"], entry):
            return False
        if wanted["kind"] == "search":
            same = normalize_query(entry.request["query"]) == normalize_query(wanted["query"])
            return same and int(entry.request["limit"]) >= int(wanted["limit"])
        # pages read with their figures answer only for them, and pages read without only for those
        same_figures = bool(entry.request.get("images")) == bool(wanted.get("images"))
        if wanted["kind"] == "crawl":
            return (
                entry.request["url"] == wanted["url"]
                and entry.request["depth"] == wanted["depth"]
                and int(entry.request["limit"]) >= int(wanted["limit"])
                and same_figures
            )
        return entry.request.get("url") == wanted.get("url") and same_figures

    def answer(self, key: str) -> tuple[dict[str, Any], str, float]:
        """``(value, provider, recorded)`` for a value key; ``CacheMissError`` when not recorded."""
        wanted = request_of(key)
        found = [e for e in self.entries if self._value_match(wanted, e)]
        if not found:
            raise miss(wanted, cassette=self)
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

    def _file_match(self, kind: str, wanted: dict[str, Any], entry: Entry) -> bool:
        if entry.kind != kind:
            return False
        got = entry.request
        for name in ("provider", "model"):  # None: replay without resolving a provider
            if wanted.get(name) is not None and wanted[name] != got.get(name):
                return False
        if self.strict:
            same_prompt = wanted.get("prompt") == got.get("prompt")
        else:
            same_prompt = _same_prompt(wanted.get("prompt"), got.get("prompt"))
        others = (set(wanted) | set(got)) - {"provider", "model", "prompt"}
        return same_prompt and all(wanted.get(name) == got.get(name) for name in others)

    def files(self, kind: str, wanted: dict[str, Any]) -> list[tuple[dict[str, Any], Path | None, float]]:
        """``[(value, file, recorded)]`` of a request's ``n`` files in order; else ``CacheMissError``."""
        found: dict[int, Entry] = {}
        for entry in self.entries:
            if self._file_match(kind, wanted, entry):
                found.setdefault(entry.index, entry)
        n = int(wanted.get("n") or 1)
        if not all(i in found for i in range(n)):
            raise miss({"kind": kind, **wanted}, cassette=self)
        return [(dict(found[i].value), found[i].source, timestamp(found[i].recorded)) for i in range(n)]


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
        found = Cassette(path, cassette.read(path), strict=strict)
        with _loaded_lock:
            _loaded.clear()
            _loaded[cache_key] = found
    return found


# --------------------------------------------------------------------------- the miss


def miss(request: dict[str, Any], *, more: int = 0, cassette: Cassette | None = None) -> CacheMissError:
    """The one ``CACHE_MISS``: names the request (and ``more`` missing beside it) and the fix.

    From a cassette it also names the closest recorded request of the same kind.
    """
    text = describe(request) + (f" (and {more} more)" if more else "")
    if cassette is None:
        return CacheMissError(
            f"cache.mode is 'replay' and the store has no {text}; run it once with "
            "hn.config.set('cache.mode', 'read_write') to record it"
        )
    kind = request.get("kind")
    candidates = {describe(e.request if not e.is_file else {"kind": e.kind, **e.request})
                  for e in cassette.entries if e.kind == kind}  # fmt: skip
    ranked = sorted(candidates, key=lambda c: difflib.SequenceMatcher(None, text, c).ratio(), reverse=True)
    closest = f"; closest recorded: {ranked[0]}" if ranked else f"; it holds no {kind} at all"
    strict = " (strict matching)" if cassette.strict else ""
    return CacheMissError(
        f"replaying {cassette.path.name}{strict}: no recorded {text}{closest}. Record it again against "
        f"live providers (with hn.cache.record({str(cassette.path)!r}): …) or unset {REPLAY_ENV} and "
        "cache.replay_file"
    )


# --------------------------------------------------------------------------- values (web kinds)


def ttl() -> float | None:
    """``cache.ttl`` in seconds (how long a search or crawl is served), or None for no limit."""
    value = config.get("cache.ttl")
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def read_many(
    keys: Sequence[str], mode: Mode, *, expires: bool = True
) -> dict[str, tuple[Any, str, float]]:
    """``{key: (value, provider, created)}`` for the keys the cache answers (none unless ``mode.reads``).

    ``expires``: entries older than ``cache.ttl`` are not served (searches and crawls; pages do not
    expire). In replay, any key not answered is ``CACHE_MISS`` (naming the first and how many more).
    """
    if not mode.reads:
        return {}
    replaying = replay_cassette() if mode is Mode.REPLAY else None
    max_age = ttl() if expires and mode is Mode.READ_WRITE else None
    found: dict[str, tuple[Any, str, float]] = {}
    for key in keys:
        if replaying is not None:
            hit: tuple[Any, str, float] | None = replaying.answer(key)  # a miss raises CacheMissError
        else:
            try:
                hit = get_store().cache_get(key, max_age=max_age)
            except HermesError as exc:
                if mode is Mode.REPLAY:
                    raise
                log.warning("cache read skipped: %s", exc)
                return found
        if hit is not None:
            found[key] = hit
    missing = [key for key in keys if key not in found]
    if missing and mode is Mode.REPLAY:
        raise miss(request_of(missing[0]), more=len(missing) - 1)
    for key, (value, provider, created) in found.items():
        _note_value(key, provider, value, created)
    return found


def read(key: str, mode: Mode, *, expires: bool = True) -> tuple[Any, str, float] | None:
    """``(value, provider, created)`` for ``key``; None when a provider must be asked (``read_many``)."""
    return read_many([key], mode, expires=expires).get(key)


def keep(key: str, provider: str, value: Any, mode: Mode, *, store: bool = True) -> None:
    """Show a fresh answer to active recorders; keep it in the store when ``mode.writes`` and ``store``.

    ``store=False`` is for answers that are a view of the store itself (``local`` search): kept,
    they would go stale when the index changes.
    """
    _note_value(key, provider, value, time.time())
    if not (mode.writes and store):
        return
    try:
        get_store().cache_put(key, key.partition("|")[0], provider, value)
    except HermesError as exc:
        log.warning("cache write skipped: %s", exc)


# --------------------------------------------------------------------------- files (image, …)


@dataclass(frozen=True)
class FileRows:
    """Where a file kind keeps its rows in the store: ``find(request)`` (newest first) and ``add(row)``.

    A row holds the file's record plus ``path``, ``created`` and ``params`` (``request_hash``,
    ``run``, ``index``, ``request`` and the record's other fields).
    """

    find: Callable[[dict[str, Any]], list[dict[str, Any]]]
    add: Callable[[dict[str, Any]], None]


def _find_images(request: dict[str, Any]) -> list[dict[str, Any]]:
    return get_store().find_images(limit=200, provider=request["provider"], prompt=request["prompt"])


def _add_image(row: dict[str, Any]) -> None:
    get_store().record_image(row)


_file_rows: dict[str, FileRows] = {"image": FileRows(_find_images, _add_image)}


def register_file_rows(kind: str, rows: FileRows) -> None:
    """Let a new file kind (``video`` …) use this flow: ``rows`` finds and adds its rows in the store."""
    _file_rows[kind] = rows


def file_rows(kind: str) -> FileRows:
    """The registered store rows of a file kind (``InvalidInputError`` for a kind none registered)."""
    try:
        return _file_rows[kind]
    except KeyError:
        raise InvalidInputError(
            f"no store rows are registered for {kind!r} files; call "
            "hermes_nb.store.replay.register_file_rows first"
        ) from None


def _stored_rows(kind: str, request: dict[str, Any]) -> list[dict[str, Any]] | None:
    wanted = digest(request)
    groups: dict[str, dict[int, dict[str, Any]]] = {}
    for row in file_rows(kind).find(request):  # newest first
        params = row.get("params") or {}
        if params.get("request_hash") != wanted or not Path(str(row.get("path", ""))).is_file():
            continue
        groups.setdefault(str(params.get("run", "")), {}).setdefault(int(params.get("index", 0)), row)
    n = int(request["n"])
    for group in groups.values():
        if all(i in group for i in range(n)):
            return [group[i] for i in range(n)]
    return None


def stored_files(kind: str, request: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The records of a request's ``n`` files in the store (newest complete run, files on disk), or None.

    A row matches when its ``request_hash`` is ``requests.digest(request)``; rows written before
    the key scheme was shared keep the same digest, so they still match.
    """
    rows = _stored_rows(kind, request)
    return None if rows is None else [{**row, **row["params"]} for row in rows]


def read_files(
    kind: str,
    mode: Mode,
    request: dict[str, Any],
    *,
    decode: Callable[[dict[str, Any]], T],
    encode: Callable[[T], dict[str, Any]],
    wanted: dict[str, Any] | None = None,
) -> list[T] | None:
    """A request's ``n`` files from the replay cassette or the store; None when a provider must be asked.

    ``decode`` turns a record (with ``path``) into the caller's result, ``encode`` a result back
    into its record (what recorders keep). ``wanted`` is the request as cassette replay sees it
    (provider and model may be None: replay needs no provider). In replay a miss is ``CACHE_MISS``.
    """
    if not mode.reads:
        return None
    replaying = replay_cassette() if mode is Mode.REPLAY else None
    if replaying is not None:
        asked = wanted or request
        recorded = replaying.files(kind, asked)
        results = [decode({**value, "path": str(path or "")}) for value, path, _ in recorded]
        for index, result in enumerate(results):
            _note_file(kind, asked, index, encode(result), time.time())
        return results
    try:
        rows = _stored_rows(kind, request)
    except HermesError as exc:
        if mode is Mode.REPLAY:
            raise
        log.warning("%s cache read skipped: %s", kind, exc)
        rows = None
    if rows is None:
        if mode is Mode.REPLAY:
            raise miss({"kind": kind, **request})
        return None
    results = [decode({**row, **row["params"]}) for row in rows]
    for index, (result, row) in enumerate(zip(results, rows, strict=True)):
        _note_file(kind, request, index, encode(result), float(row["created"]))
    return results


def keep_file(
    kind: str, request: dict[str, Any], record: dict[str, Any], mode: Mode, *, run: str, index: int
) -> None:
    """Show a fresh file to active recorders; keep its row in the store when ``mode.writes``."""
    _note_file(kind, request, index, record, time.time())
    if not mode.writes:
        return
    # "request_hash", not "*_key": the store drops secret-looking names.
    row = {**record, "n": request["n"], "request_hash": digest(request), "run": run, "index": index,
           "request": request}  # fmt: skip
    try:
        file_rows(kind).add(row)
    except HermesError as exc:  # the file is on disk already; a store hiccup must not lose it
        log.warning("could not record the %s in the store: %s", kind, exc)


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


def _note(entry: Entry) -> None:
    with _recorders_lock:
        for recorder in _recorders:
            recorder.add(entry)


def _note_value(key: str, provider: str, value: Any, created: float) -> None:
    if not _recorders:  # cheap when nothing records
        return
    request = request_of(key)
    _note(Entry(str(request["kind"]), request, provider, iso(created), dict(value)))


def _note_file(
    kind: str, request: dict[str, Any], index: int, record: dict[str, Any], created: float
) -> None:
    if not _recorders:  # cheap when nothing records
        return
    value = {k: v for k, v in record.items() if k not in ("path", "envelope")}
    source = Path(str(record["path"])) if record.get("path") else None
    provider = str(record.get("provider", ""))
    _note(Entry(kind, dict(request), provider, iso(created), value, index, source=source))


@contextmanager
def recording(path: str | Path) -> Iterator[Recorder]:
    """Record every answer used inside the block (searches, pages, files) into the cassette ``path``."""
    recorder = Recorder()
    with _recorders_lock:
        _recorders.append(recorder)
    try:
        yield recorder
    finally:
        with _recorders_lock:
            _recorders.remove(recorder)
        cassette.write(path, recorder.entries)


@on_reset
def _forget() -> None:
    with _loaded_lock:
        _loaded.clear()
