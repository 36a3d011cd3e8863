"""``VideoResult``: one generated video kept on disk, its poster frame, provenance and record."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_nb._services import services
from hermes_nb._version import __version__
from hermes_nb.store.video_files import POSTER_PX, poster_frame

__all__ = ["VideoResult", "provenance_of", "to_record", "from_record", "poster_path"]


def poster_path(video: Path) -> Path:
    """Where a video's poster frame is kept: ``<video>.poster.jpg`` beside it."""
    return video.with_name(video.name + ".poster.jpg")


@dataclass(eq=False)
class VideoResult:
    """A generated video: the file, what was asked, who answered, what it cost.

    ``text/plain`` is deterministic: ``VideoResult(provider='openai', model='sora-2', 4s, 1280x720,
    seed=None, sha256=ab12cd34ef56)`` — no path, no timestamp. The notebook shows a poster frame and
    a ``<video controls>`` element linking the file; the video bytes never go into the notebook.
    """

    path: Path
    prompt: str
    provider: str
    model: str
    aspect_ratio: str
    resolution: str
    sha256: str
    format: str = "mp4"
    length_s: float = 0.0  # the clip's length, from the file (0: unknown without the video extra)
    width: int = 0
    height: int = 0
    duration: int | None = None  # the seconds asked for
    seed: int | None = None
    negative_prompt: str | None = None
    audio: bool | None = None
    image: str | None = None  # what was animated: a digest or URL of the first frame (image-to-video)
    cost: dict[str, Any] | None = None
    duration_s: float = 0.0  # how long the generation took
    envelope: dict[str, Any] = field(default_factory=dict)
    parameters: dict[str, Any] = field(default_factory=dict)
    created: str = ""
    cached: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def modality(self) -> str:
        return "image" if self.image else "text"

    @property
    def provenance(self) -> dict[str, Any]:
        return provenance_of(self)

    def poster_bytes(self) -> bytes | None:
        """The poster frame, a small JPEG: kept beside the video once made; None when none can be made
        (no ``video`` extra and no thumbnail from the provider)."""
        path = poster_path(self.path)
        if path.is_file():
            return path.read_bytes()
        data = poster_frame(self.path, max_px=POSTER_PX) if self.path.is_file() else None
        if data is not None:
            try:
                tmp = path.with_name(f".{path.name}.part")
                tmp.write_bytes(data)
                tmp.replace(path)
            except OSError:  # a read-only folder (a shared cassette): the poster is simply made again
                pass
        return data

    def poster_data_uri(self) -> str | None:
        data = self.poster_bytes()
        return None if data is None else "data:image/jpeg;base64," + base64.b64encode(data).decode("ascii")

    def save(self, dest: str | Path) -> Path:
        """Copy the video file to ``dest`` (a file or a directory)."""
        import shutil

        target = Path(dest).expanduser()
        if target.is_dir():
            target = target / self.path.name
        shutil.copyfile(self.path, target)
        return target

    def __repr__(self) -> str:
        size = f"{self.width}x{self.height}" if self.width else self.resolution or "?"
        length = f"{self.length_s:g}s" if self.length_s else f"{self.duration or '?'}s"
        return (
            f"VideoResult(provider={self.provider!r}, model={self.model!r}, {length}, {size}, "
            f"seed={self.seed!r}, sha256={self.sha256[:12]})"
        )

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return services.render(self)


def provenance_of(result: VideoResult) -> dict[str, Any]:
    """What was asked and who answered (never a secret): kept in the store with the file."""
    return {
        "prompt": result.prompt,
        "provider": result.provider,
        "model": result.model,
        "seed": result.seed,
        "aspect_ratio": result.aspect_ratio,
        "resolution": result.resolution,
        "duration": result.duration,
        "negative_prompt": result.negative_prompt,
        "audio": result.audio,
        "image": result.image,
        "parameters": result.parameters,
        "cost": result.cost,
        "hermes_nb_version": __version__,
        "created": result.created,
    }


def to_record(result: VideoResult) -> dict[str, Any]:
    """A JSON-safe record of ``result`` (the store, cassettes and persisted batch jobs keep this)."""
    return {
        **provenance_of(result),
        "path": str(result.path),
        "sha256": result.sha256,
        "format": result.format,
        "length_s": result.length_s,
        "width": result.width,
        "height": result.height,
        "duration_s": result.duration_s,
        "envelope": result.envelope,
    }


def from_record(record: dict[str, Any]) -> VideoResult:
    """The ``VideoResult`` of a record made by ``to_record`` (marked ``cached``)."""
    return VideoResult(
        path=Path(str(record.get("path", ""))),
        prompt=str(record.get("prompt", "")),
        provider=str(record.get("provider", "")),
        model=str(record.get("model") or ""),
        aspect_ratio=str(record.get("aspect_ratio") or ""),
        resolution=str(record.get("resolution") or ""),
        sha256=str(record.get("sha256", "")),
        format=str(record.get("format") or "mp4"),
        length_s=float(record.get("length_s") or 0.0),
        width=int(record.get("width") or 0),
        height=int(record.get("height") or 0),
        duration=record.get("duration"),
        seed=record.get("seed"),
        negative_prompt=record.get("negative_prompt"),
        audio=record.get("audio"),
        image=record.get("image"),
        cost=record.get("cost"),
        duration_s=float(record.get("duration_s") or 0.0),
        envelope=dict(record.get("envelope") or {}),
        parameters=dict(record.get("parameters") or {}),
        created=str(record.get("created", "")),
        cached=True,
    )
