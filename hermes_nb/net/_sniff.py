"""Content-type and charset detection for fetched bodies (header, URL extension, magic bytes, BOM, meta)."""

from __future__ import annotations

import codecs
import re
from urllib.parse import urlsplit

from hermes_nb.net.encoding_labels import codec_for

__all__ = ["detect_content_type", "detect_charset", "is_textual"]

_WEAK = frozenset({"", "text/plain", "application/octet-stream", "binary/octet-stream",
                   "application/unknown", "unknown/unknown", "application/x-unknown"})
# text/* types precise enough to trust over the URL extension.
_STRONG_TEXT = frozenset({"text/html", "text/markdown", "text/x-markdown", "text/csv",
                          "text/tab-separated-values", "text/xml", "text/calendar", "text/vtt"})

_EXTENSIONS: dict[str, str] = {
    "html": "text/html", "htm": "text/html", "xhtml": "application/xhtml+xml",
    "md": "text/markdown", "markdown": "text/markdown", "json": "application/json",
    "jsonl": "application/x-ndjson", "ndjson": "application/x-ndjson", "geojson": "application/geo+json",
    "csv": "text/csv", "tsv": "text/tab-separated-values", "xml": "application/xml",
    "rss": "application/rss+xml", "atom": "application/atom+xml", "yaml": "application/yaml",
    "yml": "application/yaml", "txt": "text/plain",
    "pdf": "application/pdf", "doc": "application/msword",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xls": "application/vnd.ms-excel",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "ppt": "application/vnd.ms-powerpoint",
    "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "odt": "application/vnd.oasis.opendocument.text", "zip": "application/zip",
    "gz": "application/gzip", "tgz": "application/gzip", "tar": "application/x-tar",
    "bz2": "application/x-bzip2", "xz": "application/x-xz", "7z": "application/x-7z-compressed",
    "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
    "webp": "image/webp", "svg": "image/svg+xml", "bmp": "image/bmp", "ico": "image/x-icon",
    "avif": "image/avif", "mp3": "audio/mpeg", "mp4": "video/mp4", "webm": "video/webm",
}
# Source and config files read as plain text.
_TEXT_EXTENSIONS = frozenset(
    re.split(
        r"\s+",
        "py pyi ipynb js mjs cjs ts tsx jsx css scss less c h cc cpp hpp cs java kt kts go rs rb php pl "
        "pm lua r jl scala swift m mm sh bash zsh fish ps1 bat sql toml ini cfg conf env properties "
        "gradle make mk cmake dockerfile tex bib rst adoc org log diff patch proto graphql vue svelte "
        "dart ex exs erl hs ml clj el nim zig v",
    )
)

_MAGIC: list[tuple[int, bytes, str]] = [
    (0, b"%PDF-", "application/pdf"),
    (0, b"PK\x03\x04", "application/zip"),
    (0, b"\x1f\x8b", "application/gzip"),
    (0, b"BZh", "application/x-bzip2"),
    (0, b"\xfd7zXZ\x00", "application/x-xz"),
    (0, b"7z\xbc\xaf\x27\x1c", "application/x-7z-compressed"),
    (0, b"\x7fELF", "application/x-executable"),
    (0, b"MZ", "application/vnd.microsoft.portable-executable"),
    (0, b"\xfe\xed\xfa\xce", "application/x-mach-binary"),
    (0, b"\xfe\xed\xfa\xcf", "application/x-mach-binary"),
    (0, b"\xce\xfa\xed\xfe", "application/x-mach-binary"),
    (0, b"\xcf\xfa\xed\xfe", "application/x-mach-binary"),
    (0, b"\xff\xd8\xff", "image/jpeg"),
    (0, b"\x89PNG\r\n\x1a\n", "image/png"),
    (0, b"GIF87a", "image/gif"),
    (0, b"GIF89a", "image/gif"),
    (0, b"BM", "image/bmp"),
    (0, b"\x00\x00\x01\x00", "image/x-icon"),
    (0, b"OggS", "audio/ogg"),
    (0, b"fLaC", "audio/flac"),
    (0, b"ID3", "audio/mpeg"),
    (0, b"\x1a\x45\xdf\xa3", "video/x-matroska"),
]
_RIFF = {b"WEBP": "image/webp", b"WAVE": "audio/wav", b"AVI ": "video/x-msvideo"}
_FTYP = {b"avif": "image/avif", b"avis": "image/avif", b"heic": "image/heic", b"heix": "image/heic",
         b"mif1": "image/heif", b"M4A ": "audio/mp4", b"qt  ": "video/quicktime"}

_BOMS = [
    (codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"),
]
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:\-]+)""", re.I)
_XML_DECL = re.compile(rb"""^<\?xml[^>]+encoding\s*=\s*["']([A-Za-z0-9_.\-]+)["']""")
_HTML_START = re.compile(rb"^\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b", re.I | re.S)


def _media_type(header: str) -> str:
    return header.split(";", 1)[0].strip().lower()


def _param(header: str, name: str) -> str | None:
    for part in header.split(";")[1:]:
        key, _, value = part.partition("=")
        if key.strip().lower() == name:
            return value.strip().strip("\"'") or None
    return None


def _magic(body: bytes) -> str | None:
    for offset, sig, mime in _MAGIC:
        if body[offset:offset + len(sig)] == sig:
            if mime == "image/x-icon" and len(body) < 6:
                continue
            return mime
    if body[:4] == b"RIFF" and body[8:12] in _RIFF:
        return _RIFF[body[8:12]]
    if body[4:8] == b"ftyp":
        return _FTYP.get(body[8:12], "video/mp4")
    if body[:2] in (b"\xff\xfb", b"\xff\xf3", b"\xff\xf2"):
        return "audio/mpeg"
    return None


def is_textual(mime: str) -> bool:
    """True for types whose body is text (so a charset applies)."""
    return (mime.startswith("text/") or mime.endswith(("+xml", "+json")) or mime in (
        "application/json", "application/xml", "application/yaml", "application/javascript",
        "application/x-ndjson", "application/xhtml+xml", "image/svg+xml"))


def _looks_like_text(body: bytes) -> bool:
    sample = body[:4096]
    if any(sample.startswith(bom) for bom, _ in _BOMS):
        return True
    return b"\x00" not in sample


def detect_content_type(url: str, header: str, body: bytes) -> str:
    """Media type: strong header → URL extension → magic bytes (over weak headers) → weak header → sniff."""
    declared = _media_type(header)
    if declared and declared not in _WEAK and (not declared.startswith("text/") or declared in _STRONG_TEXT):
        return declared
    path = urlsplit(url).path.lower()
    name = path.rsplit("/", 1)[-1]
    ext = name.rsplit(".", 1)[-1] if "." in name else ("dockerfile" if name == "dockerfile" else "")
    if ext in _EXTENSIONS:
        return _EXTENSIONS[ext]
    if ext in _TEXT_EXTENSIONS:
        return "text/plain"
    magic = _magic(body)
    if magic:
        return magic
    if declared.startswith("text/") and declared != "text/plain":
        return declared
    head = body[:1024].lstrip(b"\xef\xbb\xbf")
    if _HTML_START.match(head):
        return "text/html"
    if declared == "text/plain" or _looks_like_text(body):
        return "text/plain"
    return "application/octet-stream"


def detect_charset(header: str, body: bytes, mime: str) -> str | None:
    """Charset of a textual body: BOM → header → ``<meta>`` → XML declaration → detection → UTF-8.

    The order and the label meanings are a browser's (``encoding_labels``): a byte-order mark wins
    over the header, and ``iso-8859-1`` reads as windows-1252.
    """
    if not is_textual(mime):
        return None
    for bom, name in _BOMS:
        if body.startswith(bom):
            return name
    found = codec_for(_param(header, "charset"))
    if found:
        return found
    head = body[:2048]
    for pattern in (_META_CHARSET, _XML_DECL):
        match = pattern.search(head)
        if match and codec_for(match.group(1), from_meta=True):
            return codec_for(match.group(1), from_meta=True)
    try:
        body[:65536].decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError as exc:
        if exc.start >= 65532 and len(body) > 65536:
            return "utf-8"  # only the sample cut a multi-byte character
    try:
        from charset_normalizer import from_bytes

        best = from_bytes(body[:65536]).best()
    except Exception:  # detection is best effort; UTF-8 with replacement still reads
        best = None
    return codec_for(best.encoding) if best is not None else "utf-8"
