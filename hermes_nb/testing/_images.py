"""Deterministic image bytes of a requested size and format (Pillow), for the image APIs."""

from __future__ import annotations

import hashlib
import io
import random

from PIL import Image, ImageDraw

__all__ = ["render", "blackout", "MAX_EDGE", "MIME"]

MAX_EDGE = 4096
MIME = {"png": "image/png", "jpeg": "image/jpeg", "jpg": "image/jpeg", "webp": "image/webp"}
_PIL_FORMAT = {"png": "PNG", "jpeg": "JPEG", "jpg": "JPEG", "webp": "WEBP"}


def _encode(image: Image.Image, fmt: str) -> bytes:
    fmt = fmt.lower()
    if fmt not in _PIL_FORMAT:
        raise ValueError(f"unsupported image format {fmt!r}; use png, jpeg or webp")
    out = io.BytesIO()
    # fixed encoder settings so the same inputs always give the same bytes
    if fmt == "png":
        image.save(out, "PNG", optimize=False, compress_level=1)
    elif fmt == "webp":
        image.save(out, "WEBP", quality=80, method=0)
    else:
        image.save(out, "JPEG", quality=85)
    return out.getvalue()


def render(key: str, width: int, height: int, fmt: str = "png") -> bytes:
    """A valid ``fmt`` image of ``width`` x ``height``; the same ``key`` gives the same bytes."""
    if not (1 <= width <= MAX_EDGE and 1 <= height <= MAX_EDGE):
        raise ValueError(f"image size {width}x{height} outside 1..{MAX_EDGE}")
    rng = random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))
    background = tuple(rng.randrange(256) for _ in range(3))
    image = Image.new("RGB", (width, height), background)
    draw = ImageDraw.Draw(image)
    for _ in range(6):
        x0, x1 = sorted(rng.randrange(width + 1) for _ in range(2))
        y0, y1 = sorted(rng.randrange(height + 1) for _ in range(2))
        colour = tuple(rng.randrange(256) for _ in range(3))
        shape = draw.ellipse if rng.random() < 0.5 else draw.rectangle
        shape((x0, y0, x1, y1), fill=colour)
    return _encode(image, fmt)


def blackout(width: int, height: int, fmt: str = "png") -> bytes:
    """An all-black image, as moderated providers return for flagged prompts."""
    return _encode(Image.new("RGB", (width, height), (0, 0, 0)), fmt)
