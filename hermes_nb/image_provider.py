"""The ``ImageGenProvider`` ABC and Hermes's image helpers (exact keys and file naming).

Plugins import these as ``agent.image_gen_provider`` (served by ``hermes_nb._compat``).
``generate`` returns ``success_response(...)`` or ``error_response(...)`` and never raises by
convention; the SDK (``hermes_nb.images``) turns the envelope into an ``ImageResult``.
"""

from __future__ import annotations

import abc
import base64
import binascii
import os
import re
import tempfile
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

__all__ = [
    "VALID_ASPECT_RATIOS",
    "DEFAULT_ASPECT_RATIO",
    "ImageGenProvider",
    "resolve_aspect_ratio",
    "normalize_reference_images",
    "images_cache_dir",
    "save_bytes_image",
    "save_b64_image",
    "save_url_image",
    "success_response",
    "error_response",
]

VALID_ASPECT_RATIOS = ("landscape", "square", "portrait")
DEFAULT_ASPECT_RATIO = "landscape"
_PREFIX_SAFE = re.compile(r"[^A-Za-z0-9_-]+")
_EXTENSIONS = {"png", "jpg", "jpeg", "webp", "gif"}


class ImageGenProvider(abc.ABC):
    """Base class of every image provider."""

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """Stable id: the value of ``image_gen.provider``."""

    @property
    def display_name(self) -> str:
        return self.name.title()

    def is_available(self) -> bool:
        return True

    def list_models(self) -> list[dict[str, Any]]:
        return []

    def default_model(self) -> str | None:
        models = self.list_models()
        return models[0]["id"] if models else None

    def get_setup_schema(self) -> dict[str, Any]:
        return {"name": self.display_name, "badge": "", "tag": "", "env_vars": []}

    def capabilities(self) -> dict[str, Any]:
        return {"modalities": ["text"], "max_reference_images": 0}

    @abc.abstractmethod
    def generate(
        self,
        prompt: str,
        aspect_ratio: str = DEFAULT_ASPECT_RATIO,
        *,
        image_url: str | None = None,
        reference_image_urls: list[str] | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """Generate one image; return ``success_response``/``error_response``."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name!r}>"


def resolve_aspect_ratio(value: Any) -> str:
    """Hermes rule: non-str or unknown → ``"landscape"`` (coerce, never reject)."""
    if not isinstance(value, str):
        return DEFAULT_ASPECT_RATIO
    value = value.strip().lower()
    return value if value in VALID_ASPECT_RATIOS else DEFAULT_ASPECT_RATIO


def normalize_reference_images(value: Any) -> list[str] | None:
    """str → [str]; list/tuple of non-blank strs (stripped); anything else or empty → None."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)):
        return None
    items = [v.strip() for v in value if isinstance(v, str) and v.strip()]
    return items or None


def images_cache_dir() -> Path:
    """``$HERMES_HOME/cache/images`` (created)."""
    from hermes_nb.config import get_hermes_home

    path = get_hermes_home() / "cache" / "images"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _image_path(prefix: str, extension: str) -> Path:
    safe_prefix = _PREFIX_SAFE.sub("_", str(prefix or "image")).strip("_.")[:64] or "image"
    ext = str(extension or "png").lower().lstrip(".")
    if ext not in _EXTENSIONS:
        ext = "png"
    stamp = datetime.now().strftime("%Y%m%d_%H%M%S")
    directory = images_cache_dir().resolve()
    path = (directory / f"{safe_prefix}_{stamp}_{uuid.uuid4().hex[:8]}.{ext}").resolve()
    if path.parent != directory:  # defence in depth: the sanitised prefix cannot escape
        raise ValueError("image path escapes the cache directory")
    return path


def save_bytes_image(data: bytes, *, prefix: str = "image", extension: str = "png") -> Path:
    """Write ``data`` atomically as ``<prefix>_<YYYYMMDD_HHMMSS>_<uuid8>.<ext>``; return the absolute path."""
    if not data:
        raise ValueError("image data is empty")
    path = _image_path(prefix, extension)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".partial-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def save_b64_image(b64_data: str, *, prefix: str = "image", extension: str = "png") -> Path:
    """Decode base64 (a ``data:`` URL prefix is accepted) and save it atomically."""
    text = (b64_data or "").strip()
    if text.startswith("data:") and "," in text:
        text = text.split(",", 1)[1]
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"invalid base64 image data: {exc}") from exc
    return save_bytes_image(data, prefix=prefix, extension=extension)


def save_url_image(
    url: str,
    *,
    prefix: str = "image",
    timeout: float = 60.0,
    max_bytes: int = 25 * 1024 * 1024,
) -> Path:
    """Download ``url`` at once through the SSRF-guarded client and save it (Hermes helper)."""
    from hermes_nb.image_download import download_image

    return download_image(url, prefix=prefix, timeout=timeout, max_bytes=max_bytes)


def success_response(
    *,
    image: str,
    model: str,
    prompt: str,
    aspect_ratio: str,
    provider: str,
    modality: str = "text",
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Hermes's success envelope; ``extra`` keys never overwrite the core keys."""
    out: dict[str, Any] = {
        "success": True,
        "image": image,
        "model": model,
        "prompt": prompt,
        "aspect_ratio": aspect_ratio,
        "modality": modality,
        "provider": provider,
    }
    for key, value in (extra or {}).items():
        out.setdefault(key, value)
    return out


def error_response(
    *,
    error: str,
    error_type: str = "provider_error",
    provider: str = "",
    model: str = "",
    prompt: str = "",
    aspect_ratio: str = DEFAULT_ASPECT_RATIO,
) -> dict[str, Any]:
    """Hermes's error envelope (no ``modality`` key)."""
    from hermes_nb.redaction import redact

    return {
        "success": False,
        "image": None,
        "error": redact(str(error)),
        "error_type": error_type,
        "model": model,
        "prompt": prompt,
        "aspect_ratio": aspect_ratio,
        "provider": provider,
    }
