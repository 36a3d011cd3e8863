"""The cassette file format: the searches, pages and images a notebook used, as one JSONL file.

Line one is a header (``{"format": "hermes_nb.cassette", "version": 1}``); then one entry per
line, keys sorted, entries sorted by request, so that re-recording an unchanged notebook gives
an unchanged file. An entry is ``{"kind", "request", "provider", "recorded", "value"}``; entries
of file kinds (``image``, and any kind outside ``requests.WEB_KINDS``) add ``"index"`` and
``"file"``, the file itself lying beside the cassette in ``<name>.files/``. Nothing secret is
written: secret-named fields are dropped and every string is redacted.

How a cassette is replayed and recorded (matching, misses, recorders) is ``hermes_nb.store.replay``.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from hermes_nb.errors import InvalidInputError
from hermes_nb.store.database import _scrub
from hermes_nb.store.requests import WEB_KINDS, key_of

__all__ = ["FORMAT", "VERSION", "Entry", "files_dir", "iso", "timestamp", "read", "write"]

FORMAT = "hermes_nb.cassette"
VERSION = 1


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
    """One recorded answer: a web call's cached value or one file (image …) of a file request."""

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
    def is_file(self) -> bool:
        """An entry of a file kind (an image …), with ``index`` and ``file``."""
        return self.kind not in WEB_KINDS

    @property
    def identity(self) -> str:
        """What makes two entries the same (the later one wins); it also orders the file."""
        if self.is_file:
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
        if self.is_file:
            data.update(index=self.index, file=self.file)
        return json.dumps(_scrub(data), sort_keys=True, ensure_ascii=False, default=str)


def files_dir(path: Path) -> Path:
    """``analysis.hnb.jsonl`` → ``analysis.hnb.files`` (the images beside it)."""
    stem = path.name[: -len(".jsonl")] if path.name.endswith(".jsonl") else path.name
    return path.with_name(stem + ".files")


def write(path: str | Path, entries: Iterable[Entry]) -> Path:
    """Write ``entries`` (deduplicated, sorted) and copy their files beside the cassette."""
    target = Path(path).expanduser()
    target.parent.mkdir(parents=True, exist_ok=True)
    unique = {entry.identity: entry for entry in entries}
    ordered = sorted(unique.values(), key=lambda e: (e.kind, e.identity))
    images = files_dir(target)
    lines = [json.dumps({"format": FORMAT, "version": VERSION}, sort_keys=True)]
    for entry in ordered:
        if entry.is_file and entry.source is not None:
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
