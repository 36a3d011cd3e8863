"""``ImageResult`` (one generated image kept on disk), ``ImageGallery`` (several), and their records."""

from __future__ import annotations

import base64
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

from hermes_nb._services import services
from hermes_nb._version import __version__
from hermes_nb.store.image_files import DISPLAY_THUMBNAIL, recall_verified, thumbnail

__all__ = ["ImageResult", "ImageGallery", "provenance_of", "to_record", "from_record"]


@dataclass(eq=False)
class ImageResult:
    """A generated image: the verified file, its provenance and the provider's envelope.

    ``text/plain`` is deterministic: ``ImageResult(provider='openai', model='gpt-image-2-medium',
    1536x1024, sha256=ab12cd34)`` — no path, no timestamp.
    """

    path: Path
    prompt: str
    provider: str
    model: str
    aspect_ratio: str
    width: int
    height: int
    sha256: str
    format: str = "PNG"
    seed: int | None = None
    revised_prompt: str | None = None
    cost: dict[str, Any] | None = None
    duration_s: float = 0.0
    envelope: dict[str, Any] = field(default_factory=dict)
    parameters: dict[str, Any] = field(default_factory=dict)
    created: str = ""
    cached: bool = False
    #: short remarks shown with the image (e.g. the provider ignored the seed)
    notes: list[str] = field(default_factory=list)
    #: the providers an ``image_gen.fallback`` chain tried: ``{"provider", "code", "message"}``
    #: (``code`` None for the one that served); empty when the first provider served
    attempts: list[dict[str, Any]] = field(default_factory=list)
    _thumbs: dict[tuple[int, str], bytes] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def size(self) -> tuple[int, int]:
        return (self.width, self.height)

    @property
    def served_by(self) -> str:
        """The provider that made this image (after a fallback chain, not always the first tried)."""
        return self.provider

    @property
    def image(self) -> Any:
        """The image as a ``PIL.Image.Image`` (read from disk on each access, file closed)."""
        from PIL import Image

        with Image.open(self.path) as img:
            img.load()
            return img

    @property
    def provenance(self) -> dict[str, Any]:
        """What was asked and who answered: the document embedded in the file and kept in the store."""
        return provenance_of(self)

    def thumbnail_bytes(self, max_px: int = 256, fmt: str = "JPEG") -> bytes:
        """A thumbnail (longest edge ≤ ``max_px``) encoded as JPEG or WebP at quality 80; cached."""
        key = (int(max_px), fmt.upper())
        with self._lock:
            hit = self._thumbs.get(key)
        if hit is None and key == DISPLAY_THUMBNAIL:
            known = recall_verified(self.path)  # made while the image was verified: no second decode
            hit = known.thumbnail if known is not None else None
        if hit is None:
            hit = thumbnail(self.path, max_px=key[0], fmt=key[1])
            with self._lock:
                self._thumbs[key] = hit
        return hit

    def thumbnail_data_uri(self, max_px: int = 256, fmt: str = "JPEG") -> str:
        data = base64.b64encode(self.thumbnail_bytes(max_px, fmt)).decode("ascii")
        return f"data:image/{fmt.lower()};base64,{data}"

    def save(self, dest: str | Path) -> Path:
        """Copy the image file (provenance included) to ``dest`` (a file or a directory)."""
        import shutil

        target = Path(dest).expanduser()
        if target.is_dir():
            target = target / self.path.name
        shutil.copyfile(self.path, target)
        return target

    def __repr__(self) -> str:
        return (
            f"ImageResult(provider={self.provider!r}, model={self.model!r}, "
            f"{self.width}x{self.height}, sha256={self.sha256[:8]})"
        )

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return services.render(self)


class ImageGallery(Sequence[ImageResult]):
    """Several ``ImageResult`` from one request (``n > 1``); behaves like a read-only list."""

    def __init__(self, results: Sequence[ImageResult], *, prompt: str = "", provider: str = "") -> None:
        self.results: list[ImageResult] = list(results)
        self.prompt = prompt or (self.results[0].prompt if self.results else "")
        self.provider = provider or (self.results[0].provider if self.results else "")

    @overload
    def __getitem__(self, index: int) -> ImageResult: ...

    @overload
    def __getitem__(self, index: slice) -> list[ImageResult]: ...

    def __getitem__(self, index: int | slice) -> ImageResult | list[ImageResult]:
        return self.results[index]

    def __len__(self) -> int:
        return len(self.results)

    def __iter__(self) -> Iterator[ImageResult]:
        return iter(self.results)

    @property
    def paths(self) -> list[Path]:
        return [r.path for r in self.results]

    @property
    def envelope(self) -> list[dict[str, Any]]:
        return [r.envelope for r in self.results]

    @property
    def cost(self) -> dict[str, Any] | None:
        """Summed cost; ``estimated`` when any part is; ``None`` when any part is unknown."""
        costs = [r.cost for r in self.results]
        if not costs or any(c is None for c in costs):
            return None
        return {
            "usd": round(sum(float(c["usd"]) for c in costs if c), 6),
            "estimated": any(bool(c.get("estimated")) for c in costs if c),
        }

    @property
    def duration_s(self) -> float:
        return sum(r.duration_s for r in self.results)

    def __repr__(self) -> str:
        model = self.results[0].model if self.results else ""
        return f"ImageGallery(provider={self.provider!r}, model={model!r}, n={len(self.results)})"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return services.render(self)


def provenance_of(result: ImageResult) -> dict[str, Any]:
    """The provenance document of ``result`` (never holds a secret)."""
    return {
        "prompt": result.prompt,
        "provider": result.provider,
        "model": result.model,
        "seed": result.seed,
        "aspect_ratio": result.aspect_ratio,
        "size": f"{result.width}x{result.height}",
        "parameters": result.parameters,
        "revised_prompt": result.revised_prompt,
        "hermes_nb_version": __version__,
        "created": result.created,
    }


def to_record(result: ImageResult) -> dict[str, Any]:
    """A JSON-safe record of ``result`` (the store and persisted batch jobs keep this)."""
    return {
        **provenance_of(result),
        "path": str(result.path),
        "sha256": result.sha256,
        "width": result.width,
        "height": result.height,
        "format": result.format,
        "cost": result.cost,
        "duration_s": result.duration_s,
        "envelope": result.envelope,
    }


def from_record(record: dict[str, Any]) -> ImageResult:
    """The ``ImageResult`` of a record made by ``to_record`` (marked ``cached``)."""
    return ImageResult(
        path=Path(str(record.get("path", ""))),
        prompt=str(record.get("prompt", "")),
        provider=str(record.get("provider", "")),
        model=str(record.get("model") or ""),
        aspect_ratio=str(record.get("aspect_ratio", "")),
        width=int(record.get("width") or 0),
        height=int(record.get("height") or 0),
        sha256=str(record.get("sha256", "")),
        format=str(record.get("format") or "PNG"),
        seed=record.get("seed"),
        revised_prompt=record.get("revised_prompt"),
        cost=record.get("cost"),
        duration_s=float(record.get("duration_s") or 0.0),
        envelope=dict(record.get("envelope") or {}),
        parameters=dict(record.get("parameters") or {}),
        created=str(record.get("created", "")),
        cached=True,
    )
