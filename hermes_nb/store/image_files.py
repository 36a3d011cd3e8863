"""Image files on disk: verify bytes with Pillow, embed provenance, make thumbnails, hash.

Verification happens before anything is kept: only PNG/JPEG/WebP/GIF are decoded, the pixel
count is checked from the header before decoding (decompression bombs), and the whole image is
decoded once so that truncated data fails here rather than in a notebook later.

Provenance is written without re-encoding the pixels: an ``iTXt`` chunk for PNG, a ``COM``
segment for JPEG and an XMP chunk for WebP, each holding the same JSON document.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import json
import struct
import threading
import warnings
import zlib
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from hermes_nb._state import on_reset
from hermes_nb.errors import ContentBlockedError, ParseError

__all__ = [
    "MAX_PIXELS",
    "DISPLAY_THUMBNAIL",
    "remember_verified",
    "recall_verified",
    "ImageInfo",
    "verify_image",
    "decode_b64",
    "embed_provenance",
    "read_provenance",
    "thumbnail",
    "sha256_bytes",
]

#: Largest image kept (about 64 megapixels); larger headers are refused before decoding.
MAX_PIXELS = 64 * 1024 * 1024
PROVENANCE_KEY = "hermes_nb:provenance"
#: (longest edge, format) of the thumbnail made while verifying: what notebooks display.
DISPLAY_THUMBNAIL = (256, "JPEG")

_FORMATS = {
    "PNG": ("png", "image/png"),
    "JPEG": ("jpg", "image/jpeg"),
    "WEBP": ("webp", "image/webp"),
    "GIF": ("gif", "image/gif"),
}
_XMP_NS = "https://hermes-nb.dev/ns/1.0/"
_QUOTE = {'"': "&quot;"}


@dataclass(frozen=True)
class ImageInfo:
    """What verification learned about an image."""

    format: str  # Pillow's name: PNG, JPEG, WEBP, GIF
    width: int
    height: int
    mode: str
    thumbnail: bytes | None = field(default=None, repr=False)  # DISPLAY_THUMBNAIL, made from the same decode

    @property
    def extension(self) -> str:
        return _FORMATS[self.format][0]

    @property
    def mime_type(self) -> str:
        return _FORMATS[self.format][1]


def verify_image(data: bytes, *, max_pixels: int = MAX_PIXELS, thumbnail_px: int | None = None) -> ImageInfo:
    """Decode fully: ``ParseError`` if it is not a supported image, ``ContentBlockedError`` if too large.

    ``thumbnail_px`` also makes a JPEG thumbnail from the decoded pixels (decoding is the cost).
    """
    from PIL import Image, UnidentifiedImageError

    if not data:
        raise ParseError("no image data was returned (0 bytes)")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=list(_FORMATS)) as img:
                width, height = img.size
                if width <= 0 or height <= 0:
                    raise ParseError("image has no pixels")
                if width * height > max_pixels:
                    raise ContentBlockedError(
                        f"image is {width}x{height} ({width * height:,} pixels), more than the "
                        f"{max_pixels:,}-pixel limit; refused as a possible decompression bomb"
                    )
                fmt = img.format or ""
                img.load()
                mode = img.mode
                thumb = _thumbnail_of(img, thumbnail_px, "JPEG", 80) if thumbnail_px else None
    except (ParseError, ContentBlockedError):
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ContentBlockedError(f"image refused as a possible decompression bomb: {exc}") from exc
    except UnidentifiedImageError as exc:
        raise ParseError(
            f"the data is not a PNG, JPEG, WebP or GIF image (starts with {data[:8]!r})"
        ) from exc
    except (OSError, SyntaxError, ValueError, struct.error, EOFError) as exc:
        raise ParseError(f"the image data is corrupt or truncated ({exc.__class__.__name__}: {exc})") from exc
    if fmt not in _FORMATS:
        raise ParseError(f"unsupported image format {fmt!r}")
    return ImageInfo(fmt, width, height, mode, thumb)


#: Files this process verified and wrote itself, so the SDK does not decode them a second time.
_verified: OrderedDict[str, tuple[int, int, ImageInfo]] = OrderedDict()
_verified_lock = threading.Lock()
_VERIFIED_MAX = 256


def remember_verified(path: Path, info: ImageInfo) -> None:
    """Note that ``path`` (as it is on disk now) holds the image ``info`` describes."""
    stat = path.stat()
    with _verified_lock:
        _verified[str(path)] = (stat.st_size, stat.st_mtime_ns, info)
        _verified.move_to_end(str(path))
        while len(_verified) > _VERIFIED_MAX:
            _verified.popitem(last=False)


def recall_verified(path: Path) -> ImageInfo | None:
    """The ``ImageInfo`` of a file verified by ``remember_verified`` and unchanged since, else None."""
    with _verified_lock:
        hit = _verified.get(str(path))
    if hit is None:
        return None
    try:
        stat = path.stat()
    except OSError:
        return None
    return hit[2] if (stat.st_size, stat.st_mtime_ns) == hit[:2] else None


@on_reset
def _forget_verified() -> None:
    with _verified_lock:
        _verified.clear()


def decode_b64(text: str) -> bytes:
    """Strict base64 decode; a ``data:image/...;base64,`` prefix is accepted. ``ParseError`` otherwise."""
    raw = (text or "").strip()
    if raw.startswith("data:"):
        header, sep, raw = raw.partition(",")
        if not sep or ";base64" not in header:
            raise ParseError("data URL is not base64-encoded")
    try:
        data = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        try:  # line-wrapped base64 is valid too; stripping whitespace only when needed keeps 2 MB fast
            data = base64.b64decode("".join(raw.split()), validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ParseError(f"invalid base64 image data ({exc})") from exc
    if not data:
        raise ParseError("base64 image data is empty")
    return data


def _provenance_json(provenance: dict[str, Any]) -> str:
    return json.dumps(provenance, sort_keys=True, ensure_ascii=False, default=str)


def _png_chunk(kind: bytes, payload: bytes) -> bytes:
    crc = zlib.crc32(kind + payload) & 0xFFFFFFFF
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", crc)


def _png_with_text(data: bytes, provenance: dict[str, Any]) -> bytes:
    # Chunks go right after IHDR (8-byte signature + 25-byte IHDR chunk); pixels are untouched.
    if data[12:16] != b"IHDR":
        raise ParseError("PNG does not start with an IHDR chunk")
    chunks = []
    text = _provenance_json(provenance).encode("utf-8")
    chunks.append(_png_chunk(b"iTXt", PROVENANCE_KEY.encode("latin-1") + b"\0\0\0\0\0" + text))
    prompt = str(provenance.get("prompt") or "")
    if prompt:
        chunks.append(_png_chunk(b"iTXt", b"Description\0\0\0\0\0" + prompt.encode("utf-8")))
    software = f"hermes_nb {provenance.get('hermes_nb_version', '')}".strip()
    chunks.append(_png_chunk(b"tEXt", b"Software\0" + software.encode("latin-1", "replace")))
    return data[:33] + b"".join(chunks) + data[33:]


def _jpeg_with_comment(data: bytes, provenance: dict[str, Any]) -> bytes:
    payload = _provenance_json(provenance).encode("utf-8")
    if len(payload) > 65533:
        payload = json.dumps({"truncated": True, "prompt": str(provenance.get("prompt", ""))[:2000]}).encode()
    segment = b"\xff\xfe" + struct.pack(">H", len(payload) + 2) + payload
    return data[:2] + segment + data[2:]


def _webp_with_xmp(data: bytes, info: ImageInfo, provenance: dict[str, Any]) -> bytes:
    xmp = (
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        f'<rdf:Description xmlns:hermes="{_XMP_NS}" '
        f'hermes:provenance="{escape(_provenance_json(provenance), _QUOTE)}"/>'
        "</rdf:RDF></x:xmpmeta>"
    ).encode()
    body = data[12:]
    chunks: list[tuple[bytes, bytes]] = []
    pos = 0
    while pos + 8 <= len(body):
        kind, size = body[pos : pos + 4], struct.unpack("<I", body[pos + 4 : pos + 8])[0]
        chunks.append((kind, body[pos + 8 : pos + 8 + size]))
        pos += 8 + size + (size & 1)
    chunks = [c for c in chunks if c[0] != b"XMP "]
    if chunks and chunks[0][0] == b"VP8X":
        flags = chunks[0][1][0] | 0x04
        chunks[0] = (b"VP8X", bytes([flags]) + chunks[0][1][1:])
    else:
        # A simple-format WebP must become the extended format to carry metadata.
        alpha = 0x10 if "A" in info.mode else 0
        header = bytes([0x04 | alpha, 0, 0, 0])
        header += (info.width - 1).to_bytes(3, "little") + (info.height - 1).to_bytes(3, "little")
        chunks.insert(0, (b"VP8X", header))
    chunks.append((b"XMP ", xmp))
    out = b"".join(k + struct.pack("<I", len(p)) + p + (b"\0" if len(p) & 1 else b"") for k, p in chunks)
    return b"RIFF" + struct.pack("<I", len(out) + 4) + b"WEBP" + out


def embed_provenance(data: bytes, info: ImageInfo, provenance: dict[str, Any]) -> bytes:
    """``data`` with ``provenance`` embedded in the file's own metadata (GIF is returned unchanged)."""
    if info.format == "PNG":
        return _png_with_text(data, provenance)
    if info.format == "JPEG":
        return _jpeg_with_comment(data, provenance)
    if info.format == "WEBP":
        return _webp_with_xmp(data, info, provenance)
    return data


def read_provenance(path: str | Path) -> dict[str, Any] | None:
    """The provenance document embedded by ``embed_provenance``, or ``None``."""
    import re
    from xml.sax.saxutils import unescape

    from PIL import Image

    with Image.open(path) as img:
        info = dict(img.info)
    raw: Any = info.get(PROVENANCE_KEY)
    if raw is None and isinstance(info.get("comment"), bytes):
        raw = info["comment"].decode("utf-8", "replace")
    if raw is None and info.get("xmp"):
        xmp = info["xmp"].decode("utf-8", "replace") if isinstance(info["xmp"], bytes) else str(info["xmp"])
        match = re.search(r'hermes:provenance="([^"]*)"', xmp)
        if match:
            raw = unescape(match.group(1), {v: k for k, v in _QUOTE.items()})
    if raw is None:
        return None
    try:
        value = json.loads(str(raw))
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _thumbnail_of(img: Any, max_px: int, fmt: str, quality: int) -> bytes:
    from PIL import Image

    small: Image.Image = img.convert("RGBA") if img.mode == "P" else img  # palettes would resize as nearest
    target = _fit(img.size, max_px)
    factor = min(small.size[0] // target[0], small.size[1] // target[1]) // 2
    if factor >= 2:
        small = small.reduce(factor)  # box-filter the bulk of the shrink: much cheaper than LANCZOS
    small = small.resize(target, Image.Resampling.LANCZOS) if small.size != target else small.copy()
    if fmt == "JPEG" and small.mode != "RGB":
        # JPEG has no alpha: flatten onto white so transparent areas do not turn black.
        rgba = small.convert("RGBA")
        small = Image.new("RGB", rgba.size, (255, 255, 255))
        small.paste(rgba, mask=rgba.getchannel("A"))
    out = io.BytesIO()
    options: dict[str, Any] = {"optimize": True} if fmt == "PNG" else {"quality": quality}
    small.save(out, format=fmt, **options)
    return out.getvalue()


def _fit(size: tuple[int, int], max_px: int) -> tuple[int, int]:
    width, height = size
    if max(width, height) <= max_px:
        return size  # never enlarge
    scale = max_px / max(width, height)
    return max(1, round(width * scale)), max(1, round(height * scale))


def thumbnail(
    source: str | Path | bytes, *, max_px: int = 256, fmt: str = "JPEG", quality: int = 80
) -> bytes:
    """A JPEG/WebP/PNG thumbnail whose longest edge is at most ``max_px``."""
    from PIL import Image

    fmt = fmt.upper()
    if fmt not in ("JPEG", "WEBP", "PNG"):
        raise ValueError(f"thumbnail format must be JPEG, WEBP or PNG, not {fmt!r}")
    handle = io.BytesIO(source) if isinstance(source, bytes) else source
    with Image.open(handle) as img:
        img.draft("RGB", (max_px, max_px))  # JPEG decodes at a reduced scale: much faster
        return _thumbnail_of(img, max_px, fmt, quality)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
