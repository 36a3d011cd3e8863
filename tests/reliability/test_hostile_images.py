"""Hostile images from a provider: clear errors, nothing written outside the images cache."""

from __future__ import annotations

import base64
import io
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

import hermes_nb as hn
from hermes_nb.errors import HermesError
from hermes_nb.plugins.image_download import MAX_IMAGE_BYTES
from hermes_nb.plugins.image_provider import ImageGenProvider, images_cache_dir, save_b64_image
from hermes_nb.plugins.registry import image_providers


def _png(size: tuple[int, int] = (8, 8)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (1, 2, 3)).save(out, format="PNG")
    return out.getvalue()


def _png_header_only(width: int, height: int) -> bytes:
    """A PNG that claims ``width × height`` pixels: a few hundred bytes that would decode to gigabytes."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = zlib.compress(b"\x00" * 1024, 9)  # far too little data: the claim is what counts
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")


def _bomb() -> bytes:
    """A real decompression bomb: 20,000 × 20,000 black pixels compressed to a small file."""
    width = height = 20_000
    raw = zlib.compressobj(9)
    row = b"\x00" + b"\x00" * (width * 3)
    body = b"".join(raw.compress(row) for _ in range(200)) + raw.flush()  # only the first rows: enough
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


def _b64(data: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(data).decode()


class Hostile(ImageGenProvider):
    def __init__(self) -> None:
        self.answer: Any = None

    @property
    def name(self) -> str:
        return "hostile"

    def is_available(self) -> bool:
        return True

    def generate(self, prompt: str, aspect_ratio: str = "landscape", **kwargs: Any) -> dict[str, Any]:
        image = self.answer() if callable(self.answer) else self.answer
        return {"success": True, "image": image, "model": "m", "prompt": prompt, "aspect_ratio": aspect_ratio,
                "provider": "hostile"}


@pytest.fixture
def hostile(hermetic: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Hostile]:
    monkeypatch.setattr(image_providers, "loader", lambda kind, name: None)
    provider = Hostile()
    image_providers.register(provider)
    yield provider


def _written(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize(
    ("answer", "needle"),
    [
        ("data:image/png;base64,!!!not base64!!!", "base64"),
        (_b64(b"just some text, not an image"), "image"),
        (_b64(b"<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'/>"), "image"),
        (_b64(_png_header_only(100_000, 100_000)), "pixels"),
        (_b64(_bomb()), "pixels"),
        ("/etc/passwd", "image"),
        ("../../../../etc/passwd", "neither a URL nor an existing file"),
        ("relative/path.png", "neither a URL nor an existing file"),
        ("file:///etc/passwd", ""),
        ("", "'image' is empty"),
    ],
    ids=["bad-base64", "text", "svg-script", "huge-dimensions", "bomb", "system-file", "traversal",
         "relative", "file-url", "empty"],
)
def test_hostile_answers_fail_clearly_and_write_nothing(
    hostile: Hostile, hermetic: Path, tmp_path: Path, answer: str, needle: str
) -> None:
    before = _written(tmp_path)
    hostile.answer = answer
    with pytest.raises(HermesError) as info:
        hn.imagine("a cat", backend="hostile", no_cache=True)
    assert needle.lower() in info.value.message.lower(), info.value.message
    assert not [p for p in _written(tmp_path) - before if p.suffix in (".png", ".jpg", ".webp", ".partial")]


def test_a_huge_local_file_outside_the_cache_is_refused_unread(hostile: Hostile, tmp_path: Path) -> None:
    big = tmp_path / "huge.png"
    with big.open("wb") as handle:
        handle.write(_png())
        handle.truncate(MAX_IMAGE_BYTES + 1)  # sparse: no disk used
    hostile.answer = str(big)
    with pytest.raises(HermesError, match="MiB"):
        hn.imagine("a cat", backend="hostile", no_cache=True)
    assert not list(images_cache_dir().glob("*"))


def test_a_good_local_file_outside_the_cache_is_copied_in(hostile: Hostile, tmp_path: Path) -> None:
    outside = tmp_path / "fine.png"
    outside.write_bytes(_png())
    hostile.answer = str(outside)
    result = hn.imagine("a cat", backend="hostile", no_cache=True)
    assert result.path.parent == images_cache_dir().resolve() and outside.read_bytes() == _png()


@pytest.mark.parametrize("prefix", ["../../escape", "/etc/evil", "..", "a/../../b", "\x00nul", "C:\\win"])
def test_traversal_prefixes_stay_in_the_cache(hermetic: Path, prefix: str) -> None:
    path = save_b64_image(base64.b64encode(_png()).decode(), prefix=prefix)
    assert path.parent == images_cache_dir().resolve()
