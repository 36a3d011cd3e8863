"""Deterministic image bytes of a requested size and format (Pillow), for the image APIs."""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import random
from email.parser import BytesParser
from email.policy import HTTP

from PIL import Image, ImageDraw

__all__ = [
    "render",
    "blackout",
    "is_image",
    "parse_multipart",
    "decode_data_uri",
    "sizes",
    "MAX_EDGE",
    "MIME",
]

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


def sizes(table: str) -> dict[str, tuple[int, int]]:
    """A vendor's size table written compactly: ``sizes("1:1=1024x1024 16:9=1344x768")``.

    Each whitespace-separated entry is ``name=WIDTHxHEIGHT``; the dict keeps the written order.
    """
    found: dict[str, tuple[int, int]] = {}
    for entry in table.split():
        name, _, size = entry.partition("=")
        width, _, height = size.partition("x")
        if not (name and width.isdigit() and height.isdigit()) or name in found:
            raise ValueError(f"size table entry {entry!r}: write each size once as name=WIDTHxHEIGHT")
        found[name] = (int(width), int(height))
    return found


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


def parse_multipart(content_type: str, body: bytes) -> tuple[dict[str, str], list[tuple[str, bytes]]]:
    """``(fields, files)`` of a ``multipart/form-data`` body; files as ``(field name, bytes)``."""
    message = BytesParser(policy=HTTP).parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode() + body)
    fields: dict[str, str] = {}
    files: list[tuple[str, bytes]] = []
    if not message.is_multipart():
        return fields, files
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition") or ""
        data = part.get_payload(decode=True) or b""
        if part.get_filename() is not None:
            files.append((str(name), bytes(data)))
        else:
            fields[str(name)] = bytes(data).decode("utf-8", "replace")
    return fields, files


def is_image(data: bytes) -> bool:
    try:
        with Image.open(io.BytesIO(data)) as image:
            image.verify()
        return True
    except Exception:  # Pillow raises many unrelated types for bad input
        return False


def decode_data_uri(uri: str) -> bytes:
    try:
        return base64.b64decode(uri.split(",", 1)[1], validate=True)
    except (IndexError, binascii.Error):
        return b""
