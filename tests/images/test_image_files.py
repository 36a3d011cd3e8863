"""Image files: verification (bombs, garbage), provenance round trips, thumbnails, atomic saves."""

from __future__ import annotations

import base64
import io
import struct
import zlib

import pytest
from PIL import Image

from hermes_nb.errors import ContentBlockedError, ParseError
from hermes_nb.plugins.image_provider import images_cache_dir, save_b64_image, save_bytes_image
from hermes_nb.store.image_files import (
    decode_b64,
    embed_provenance,
    read_provenance,
    thumbnail,
    verify_image,
)


def _encode(fmt: str, size: tuple[int, int] = (96, 64), mode: str = "RGB") -> bytes:
    img = Image.new(mode, size, (200, 30, 60) if mode == "RGB" else (200, 30, 60, 128))
    out = io.BytesIO()
    img.save(out, format=fmt)
    return out.getvalue()


def _png_header_only(width: int, height: int) -> bytes:
    """A PNG whose IHDR claims a huge canvas (a decompression bomb) with almost no data."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    idat = zlib.compress(b"\0" * 16)
    chunk += struct.pack(">I", len(idat)) + b"IDAT" + idat + struct.pack(">I", zlib.crc32(b"IDAT" + idat))
    return (
        b"\x89PNG\r\n\x1a\n" + chunk + struct.pack(">I", 0) + b"IEND" + struct.pack(">I", zlib.crc32(b"IEND"))
    )


def _cache_files() -> list[str]:
    return sorted(p.name for p in images_cache_dir().iterdir())


@pytest.mark.parametrize(("fmt", "ext"), [("PNG", "png"), ("JPEG", "jpg"), ("WEBP", "webp"), ("GIF", "gif")])
def test_verify_detects_format(fmt: str, ext: str) -> None:
    info = verify_image(_encode(fmt))
    assert (info.format, info.extension, info.width, info.height) == (fmt, ext, 96, 64)


def test_verify_refuses_garbage_truncated_and_empty() -> None:
    with pytest.raises(ParseError, match="not a PNG, JPEG"):
        verify_image(b"<html>not an image</html>")
    with pytest.raises(ParseError, match="corrupt or truncated"):
        verify_image(_encode("PNG")[:60])
    with pytest.raises(ParseError, match="0 bytes"):
        verify_image(b"")


def test_verify_refuses_decompression_bomb_before_decoding() -> None:
    with pytest.raises(ContentBlockedError, match="decompression bomb"):
        verify_image(_png_header_only(20000, 20000))
    with pytest.raises(ContentBlockedError):
        verify_image(_encode("PNG", (64, 64)), max_pixels=1000)


def test_decode_b64_accepts_data_uri_and_rejects_garbage() -> None:
    raw = _encode("PNG")
    assert decode_b64(base64.b64encode(raw).decode()) == raw
    assert decode_b64("data:image/png;base64," + base64.b64encode(raw).decode()) == raw
    with pytest.raises(ParseError, match="invalid base64"):
        decode_b64("!!!not base64!!!")
    with pytest.raises(ParseError):
        decode_b64("data:image/png,plain")


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "WEBP"])
def test_provenance_round_trip(tmp_path, fmt: str) -> None:
    raw = _encode(fmt, mode="RGBA" if fmt == "WEBP" else "RGB")
    info = verify_image(raw)
    prov = {"prompt": "a fox ü 🦊", "model": "m", "provider": "p", "seed": 7, "hermes_nb_version": "0.1.0"}
    out = embed_provenance(raw, info, prov)
    again = verify_image(out)  # still a valid image of the same size
    assert (again.width, again.height, again.format) == (96, 64, fmt)
    path = tmp_path / f"x.{info.extension}"
    path.write_bytes(out)
    assert read_provenance(path) == prov


def test_png_provenance_keeps_pixels_and_adds_text_chunks(tmp_path) -> None:
    raw = _encode("PNG")
    out = embed_provenance(raw, verify_image(raw), {"prompt": "hello", "hermes_nb_version": "0.1.0"})
    with Image.open(io.BytesIO(out)) as a, Image.open(io.BytesIO(raw)) as b:
        assert a.tobytes() == b.tobytes()
        assert a.info["Description"] == "hello"
        assert a.info["Software"] == "hermes_nb 0.1.0"


def test_read_provenance_none_for_plain_file(tmp_path) -> None:
    path = tmp_path / "plain.png"
    path.write_bytes(_encode("PNG"))
    assert read_provenance(path) is None


@pytest.mark.parametrize("fmt", ["JPEG", "WEBP"])
def test_thumbnail_longest_edge(fmt: str) -> None:
    data = thumbnail(_encode("PNG", (1536, 1024)), max_px=256, fmt=fmt)
    with Image.open(io.BytesIO(data)) as img:
        assert max(img.size) == 256 and img.size == (256, 171)
        assert img.format == fmt


def test_thumbnail_never_enlarges_and_handles_palettes() -> None:
    with Image.open(io.BytesIO(thumbnail(_encode("PNG", (40, 30)), max_px=256))) as img:
        assert img.size == (40, 30)
    with Image.open(io.BytesIO(thumbnail(_encode("GIF", (600, 300)), max_px=256))) as img:
        assert img.size == (256, 128) and img.mode == "RGB"


def test_thumbnail_flattens_alpha_for_jpeg() -> None:
    data = thumbnail(_encode("PNG", (300, 300), mode="RGBA"), max_px=100, fmt="JPEG")
    with Image.open(io.BytesIO(data)) as img:
        assert img.mode == "RGB" and img.size == (100, 100)


def test_save_bytes_image_names_and_extension_follow_detected_format() -> None:
    path = save_bytes_image(_encode("JPEG"), prefix="../../evil/ prefix", extension="png")
    assert path.parent == images_cache_dir().resolve()
    assert path.suffix == ".jpg" and path.name.startswith("evil_prefix_")


@pytest.mark.parametrize(
    "payload",
    [b"not an image at all", _png_header_only(20000, 20000), b""],
    ids=["garbage", "bomb", "empty"],
)
def test_save_bytes_image_writes_nothing_on_bad_data(payload: bytes) -> None:
    before = _cache_files()
    with pytest.raises((ParseError, ContentBlockedError)):
        save_bytes_image(payload, prefix="x")
    assert _cache_files() == before == []


def test_save_b64_image_invalid_base64_writes_nothing() -> None:
    with pytest.raises(ParseError):
        save_b64_image("%%%%")
    assert _cache_files() == []
