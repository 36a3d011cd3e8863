"""Video files on disk: recognise the container from its bytes, write atomically, read a poster frame.

A video is kept only when its first bytes say what it is — an ISO base-media file (MP4, MOV: a
``ftyp`` box at offset 4) or an EBML file (WebM, Matroska: ``1A 45 DF A3``) — and when it is not
larger than ``MAX_VIDEO_BYTES``. Files are written through a temporary file and renamed, so a
failed or refused download never leaves a partial file.

Poster frames, duration and resolution come from the file itself through PyAV (the ``video``
extra: ``pip install 'hermes_nb[video]'``); without it ``probe`` answers what the container's bytes
say (format only) and no poster is made — never an error.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import json
import logging
import os
import re
import tempfile
import uuid
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from hermes_nb.config import get_hermes_home
from hermes_nb.errors import InvalidInputError, ParseError

__all__ = [
    "MAX_VIDEO_BYTES",
    "POSTER_PX",
    "VideoFormat",
    "VideoInfo",
    "sniff_video",
    "decode_video_b64",
    "videos_cache_dir",
    "video_path",
    "write_video",
    "probe",
    "poster_frame",
    "sha256_file",
    "write_provenance",
    "read_tag",
    "MAX_REMUX_BYTES",
]

logger = logging.getLogger(__name__)

#: Size cap of one video (Hermes's ``save_url_video`` limit).
MAX_VIDEO_BYTES = 200 * 1024 * 1024
#: Largest file whose container metadata ``write_provenance`` rewrites (a remux reads it all).
MAX_REMUX_BYTES = 512 * 1024 * 1024
#: Longest title written into a file's metadata (the prompt, cut).
TITLE_CHARS = 120
#: Longest JSON written into a file's ``comment`` metadata (MP4 tags have no practical limit).
COMMENT_CHARS = 16_000
#: Longest edge of the poster-frame thumbnail a notebook embeds (a few KB of JPEG).
POSTER_PX = 192

_PREFIX_SAFE = re.compile(r"[^A-Za-z0-9_-]+")
_QUICKTIME_BRANDS = (b"qt  ",)


@dataclass(frozen=True)
class VideoFormat:
    """What the bytes are: ``extension`` (mp4, mov, webm, mkv) and ``mime_type``."""

    extension: str
    mime_type: str


@dataclass(frozen=True)
class VideoInfo:
    """A kept video: its format, and what PyAV read from it (0 when the ``video`` extra is missing)."""

    format: VideoFormat
    width: int = 0
    height: int = 0
    duration_s: float = 0.0


def sniff_video(head: bytes) -> VideoFormat:
    """The container of a video from its first bytes; ``ParseError`` for anything else."""
    if len(head) >= 12 and head[4:8] == b"ftyp":
        brand = head[8:12]
        if brand in _QUICKTIME_BRANDS:
            return VideoFormat("mov", "video/quicktime")
        return VideoFormat("mp4", "video/mp4")
    if head[:4] == b"\x1a\x45\xdf\xa3":
        # The EBML header names its DocType within its first few dozen bytes.
        return (
            VideoFormat("webm", "video/webm")
            if b"webm" in head[:64]
            else VideoFormat("mkv", "video/x-matroska")
        )
    shown = head[:12].hex(" ") if head else "nothing"
    raise ParseError(f"not a video (MP4/MOV/WebM/Matroska): the data starts with {shown}")


def decode_video_b64(text: str) -> bytes:
    """Base64 (or a ``data:video/...;base64,`` URI) → bytes; ``ParseError`` for bad base64."""
    payload = text.split(",", 1)[1] if text.startswith("data:") else text
    try:
        return base64.b64decode(payload, validate=False)
    except (binascii.Error, ValueError) as exc:
        raise ParseError(f"video data is not valid base64: {exc}") from exc


def videos_cache_dir() -> Path:
    """``$HERMES_HOME/cache/videos`` (created)."""
    path = get_hermes_home() / "cache" / "videos"
    path.mkdir(parents=True, exist_ok=True)
    return path


def video_path(prefix: str, extension: str) -> Path:
    """A fresh Hermes-named path ``<prefix>_<YYYYMMDD_HHMMSS>_<uuid8>.<ext>`` in the videos cache."""
    safe = _PREFIX_SAFE.sub("_", str(prefix or "video")).strip("_.")[:64] or "video"
    ext = str(extension or "mp4").lower().lstrip(".")
    if ext not in ("mp4", "mov", "webm", "mkv"):
        ext = "mp4"
    stamp = datetime.now().strftime("%Y%m%d_%H%M%S")
    directory = videos_cache_dir().resolve()
    path = (directory / f"{safe}_{stamp}_{uuid.uuid4().hex[:8]}.{ext}").resolve()
    if path.parent != directory:  # defence in depth: the sanitised prefix cannot escape
        raise ValueError("video path escapes the cache directory")
    return path


def write_video(data: bytes, *, prefix: str = "video", max_bytes: int = MAX_VIDEO_BYTES) -> Path:
    """Check ``data`` is a video within the cap, then write it atomically in the videos cache."""
    if not data:
        raise ParseError("the video is empty (0 bytes)")
    if len(data) > max_bytes:
        raise InvalidInputError(
            f"the video is {len(data)} bytes, more than the {max_bytes // (1024 * 1024)} MiB cap; refused"
        )
    kind = sniff_video(data[:64])
    path = video_path(prefix, kind.extension)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".partial-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _av() -> Any:
    """PyAV (the ``video`` extra), or None: without it videos are kept and shown, without a poster."""
    from hermes_nb.extras import FeatureNotInstalledError, require

    try:
        return require("av", "poster frames of videos")
    except FeatureNotInstalledError:
        return None


def probe(path: str | Path) -> VideoInfo:
    """Format from the bytes; width, height and duration from PyAV when it is installed."""
    source = Path(path)
    with source.open("rb") as handle:
        kind = sniff_video(handle.read(64))
    av = _av()
    if av is None:
        return VideoInfo(kind)
    try:
        with av.open(str(source)) as container:
            stream = container.streams.video[0]
            seconds = float(container.duration) / 1_000_000 if container.duration else 0.0
            if not seconds and stream.duration and stream.time_base:
                seconds = float(stream.duration * stream.time_base)
            return VideoInfo(kind, int(stream.width or 0), int(stream.height or 0), round(seconds, 3))
    except Exception:  # a file PyAV cannot read is still a kept video: show what is known
        return VideoInfo(kind)


def poster_frame(path: str | Path, *, max_px: int = POSTER_PX) -> bytes | None:
    """The first frame as a small JPEG (``max_px`` longest edge), or None without PyAV / Pillow."""
    av = _av()
    if av is None:
        return None
    try:
        with av.open(str(path)) as container:
            frame = next(container.decode(video=0))
            image = frame.to_image()
    except Exception:
        return None
    image.thumbnail((max_px, max_px))
    out = io.BytesIO()
    image.convert("RGB").save(out, format="JPEG", quality=70)
    return out.getvalue()


_MUXERS = {"mp4": "mp4", "mov": "mov", "webm": "webm", "mkv": "matroska"}


def _metadata(provenance: dict[str, str]) -> dict[str, str]:
    """Container tags for ``provenance``: ``comment`` the compact JSON, ``title`` the prompt, cut."""
    comment = json.dumps(provenance, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    if len(comment) > COMMENT_CHARS:
        raise ValueError(f"provenance JSON is {len(comment)} characters, more than {COMMENT_CHARS}")
    tags = {"comment": comment}
    title = " ".join(str(provenance.get("prompt") or "").split())
    if title:
        tags["title"] = title if len(title) <= TITLE_CHARS else title[: TITLE_CHARS - 1] + "…"
    return tags


def _remux(av: Any, source: Path, target: Path, muxer: str, tags: dict[str, str]) -> None:
    """Copy every stream's packets from ``source`` to ``target`` (no re-encoding), with ``tags``."""
    with av.open(str(source)) as src, av.open(str(target), "w", format=muxer) as dst:
        mapping: dict[int, Any] = {}
        for stream in src.streams:
            if stream.type not in ("video", "audio", "subtitle"):
                continue
            copy = (
                dst.add_stream_from_template(stream)
                if hasattr(dst, "add_stream_from_template")
                else dst.add_stream(template=stream)
            )
            mapping[stream.index] = copy
        if not mapping or not src.streams.video:
            raise ValueError("no video stream to copy")
        kept = {k: v for k, v in src.metadata.items() if k.lower() not in tags}
        dst.metadata.update({**kept, **tags})
        for packet in src.demux(*[s for s in src.streams if s.index in mapping]):
            if packet.dts is None:  # the demuxer's flush packet: nothing to copy
                continue
            packet.stream = mapping[packet.stream.index]
            dst.mux(packet)


def read_tag(metadata: Any, key: str) -> str | None:
    """A container tag by name, whatever its case (Matroska reads tags back upper-cased)."""
    for name, value in dict(metadata).items():
        if str(name).lower() == key.lower():
            return str(value)
    return None


def write_provenance(path: str | Path, provenance: dict[str, str]) -> bool:
    """Write ``provenance`` into the video's container metadata; True when the file now carries it.

    The file is remuxed with PyAV (stream copy, never re-encoded) into a temporary file beside it,
    tagged (``comment``: the compact JSON of ``provenance``; ``title``: the prompt, cut), and renamed
    over the original. False — the file untouched, never partial — without the ``video`` extra, for a
    file larger than ``MAX_REMUX_BYTES``, a container PyAV cannot remux, or any other failure.
    """
    source = Path(path)
    try:
        if not source.is_file() or source.stat().st_size > MAX_REMUX_BYTES:
            return False
        with source.open("rb") as handle:
            muxer = _MUXERS[sniff_video(handle.read(64)).extension]
        tags = _metadata({str(k): str(v) for k, v in provenance.items()})
    except (OSError, ValueError, ParseError) as exc:
        logger.debug("provenance not written into %s: %s", source.name, exc)
        return False
    av = _av()
    if av is None:
        return False
    try:  # a read-only folder (a shared cassette's) cannot take the copy: the file stays as it is
        fd, tmp = tempfile.mkstemp(dir=source.parent, prefix=".partial-", suffix=source.suffix)
        os.close(fd)
    except OSError as exc:
        logger.debug("provenance not written into %s: %s", source.name, exc)
        return False
    try:
        _remux(av, source, Path(tmp), muxer, tags)
        with av.open(tmp) as check:  # the copy must read back before it replaces the original
            if read_tag(check.metadata, "comment") != tags["comment"] or not check.streams.video:
                raise ValueError("the remuxed file does not carry the provenance")
        os.replace(tmp, source)
    except Exception as exc:  # any failure leaves the original as it was
        Path(tmp).unlink(missing_ok=True)
        logger.debug("provenance not written into %s: %s", source.name, exc)
        return False
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return True


def sha256_file(path: str | Path) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
