"""``agent.image_routing``: the image type of some bytes, read from their magic numbers."""

from __future__ import annotations

HERMES_NAME = "agent.image_routing"
__all__ = ["_sniff_mime_from_bytes"]

_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"BM", "image/bmp"),
    (b"II*\x00", "image/tiff"),
    (b"MM\x00*", "image/tiff"),
    (b"\x00\x00\x01\x00", "image/x-icon"),
)


def _sniff_mime_from_bytes(raw: bytes) -> str | None:
    """``image/png``, ``image/jpeg``, ``image/webp``, ... or ``None`` when the bytes are no known image."""
    if not isinstance(raw, (bytes, bytearray)):
        return None
    head = bytes(raw[:512])
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if head[4:12] in (b"ftypavif", b"ftypavis"):
        return "image/avif"
    for magic, mime in _SIGNATURES:
        if head.startswith(magic):
            return mime
    text = head.lstrip().lower()
    if text.startswith(b"<svg") or (text.startswith(b"<?xml") and b"<svg" in text):
        return "image/svg+xml"
    return None
