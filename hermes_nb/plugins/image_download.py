"""Getting image bytes from elsewhere: provider URLs (downloaded at once) and user reference images.

URLs go through ``hermes_nb.net.fetch`` (SSRF guard, redirect checks, size cap); provider URLs are
often ephemeral (Hermes #13), so they are materialised immediately and never handed to the user.
A URL on the origin of the base URL the user configured for the provider being called
(``configured_base_urls``: a local rig, a gateway, a private host) is fetched even when that origin
is private; the SDK wraps each provider call in ``net.url_guard.provider_origins`` for that.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hermes_nb import config
from hermes_nb.errors import ContentFetchError, InvalidInputError, ParseError
from hermes_nb.store.image_files import decode_b64, verify_image

__all__ = [
    "MAX_IMAGE_BYTES",
    "ImageSource",
    "configured_base_urls",
    "fetch_image_bytes",
    "read_image_source",
]

#: Size cap of one downloaded image (Hermes's ``save_url_image`` limit).
MAX_IMAGE_BYTES = 25 * 1024 * 1024
_ACCEPT = "image/png,image/jpeg,image/webp,image/gif;q=0.9,*/*;q=0.1"


def configured_base_urls(provider: Any) -> list[str]:
    """The base URLs the user configured for an image provider, never its vendor default.

    ``image_gen.<name>.base_url`` (``-`` also read as ``_``), then ``<NAME>_BASE_URL`` (session key,
    environment or ``$HERMES_HOME/.env``: ``XAI_BASE_URL``, ``OPENAI_BASE_URL`` … as Hermes's
    plugins and the vendors' SDKs read them) and the provider's own ``base_url_env`` if it has one.
    """
    try:
        name = str(provider.name).strip().lower()
    except Exception:
        return []
    keys = dict.fromkeys((name, name.replace("-", "_")))
    found = [config.get(f"image_gen.{key}.base_url") for key in keys]
    variables = [re.sub(r"[^A-Z0-9]+", "_", name.upper()) + "_BASE_URL"]
    own = getattr(provider, "base_url_env", "")
    if isinstance(own, str) and own:
        variables.append(own)
    found += [config.get_env_value(variable) for variable in dict.fromkeys(variables)]
    return [str(url).strip() for url in found if isinstance(url, str) and url.strip()]


@dataclass(frozen=True)
class ImageSource:
    """Verified image bytes with their MIME type and a file name for multipart uploads."""

    data: bytes
    mime_type: str
    filename: str

    def data_uri(self) -> str:
        import base64

        return f"data:{self.mime_type};base64,{base64.b64encode(self.data).decode('ascii')}"


def fetch_image_bytes(url: str, *, timeout: float | None = 60.0, max_bytes: int = MAX_IMAGE_BYTES) -> bytes:
    """Download ``url`` through the guarded fetcher and return verified image bytes."""
    from hermes_nb.net.fetch import fetch  # lazy: httpx stays off the %load_ext path
    if url.startswith("data:"):
        data = decode_b64(url)
    else:
        page = fetch(url, max_bytes=max_bytes, timeout=timeout, accept=_ACCEPT)
        if page.truncated or len(page.content) > max_bytes:
            raise ContentFetchError(
                f"image at {url} is larger than {max_bytes // (1024 * 1024)} MiB; refused", status=page.status
            )
        kind = (page.content_type or "").split(";")[0].strip().lower()
        if kind and not kind.startswith("image/") and kind != "application/octet-stream":
            raise ContentFetchError(f"{url} returned {kind}, not an image", status=page.status)
        data = page.content
    try:
        verify_image(data)
    except ParseError as exc:
        raise ContentFetchError(f"{url} did not return a usable image: {exc}") from exc
    return data


def read_image_source(source: str | Path, *, timeout: float | None = 60.0) -> ImageSource:
    """A reference image from a local path, an http(s) URL or a ``data:`` URI, verified."""
    text = str(source).strip()
    if text.startswith(("http://", "https://", "data:")):
        data = fetch_image_bytes(text, timeout=timeout)
        name = "reference"
    else:
        path = Path(text).expanduser()
        if not path.is_file():
            raise InvalidInputError(f"reference image {text!r} is not a file, an http(s) URL or a data: URI")
        if path.stat().st_size > MAX_IMAGE_BYTES:
            raise InvalidInputError(f"reference image {path.name} is larger than 25 MiB")
        data = path.read_bytes()
        name = path.stem or "reference"
    try:
        info = verify_image(data)
    except ParseError as exc:
        raise InvalidInputError(f"reference image {text[:80]!r} is not a usable image: {exc}") from exc
    return ImageSource(data, info.mime_type, f"{name}.{info.extension}")
