"""The ``ImageGenProvider`` ABC and Hermes's image helpers (exact keys and file naming).

Plugins import these as ``agent.image_gen_provider`` (served by ``hermes_nb.compat._finder``).
``generate`` returns ``success_response(...)`` or ``error_response(...)`` and never raises by
convention; the SDK (``hermes_nb.images``) turns the envelope into an ``ImageResult``.
"""

from __future__ import annotations

import abc
import os
import re
import tempfile
import uuid
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from hermes_nb import config, errors
from hermes_nb.config import get_hermes_home
from hermes_nb.errors import HermesError, error_from_code
from hermes_nb.plugins.image_download import fetch_image_bytes
from hermes_nb.redaction import redact
from hermes_nb.store.image_files import DISPLAY_THUMBNAIL, decode_b64, remember_verified, verify_image

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
    "error_response_for",
    "answer_or_error",
    "reference_sources",
    "configured_model",
    "write_atomic",
    "image_path",
    "ERROR_TYPES",
    "error_type_for",
    "error_from_envelope",
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
        """Hermes's keys (``modalities``, ``max_reference_images``) plus, optionally, hermes_nb's
        ``seed``, ``negative_prompt``, ``aspect_ratios``, ``sizes``, ``models`` (defaults and meaning:
        ``hermes_nb.plugins.image_capabilities``). ``hn.imagine`` refuses what is not declared."""
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
    path = get_hermes_home() / "cache" / "images"
    path.mkdir(parents=True, exist_ok=True)
    return path


def image_path(prefix: str, extension: str) -> Path:
    """A fresh Hermes-named path in the images cache (sanitised prefix; cannot escape the directory)."""
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
    """Verify ``data`` is an image, then write it atomically as ``<prefix>_<YYYYMMDD_HHMMSS>_<uuid8>.<ext>``.

    The extension follows the detected format (``extension`` is Hermes's hint, used only when it
    agrees). Raises ``ParseError`` / ``ContentBlockedError`` before anything is written.
    """
    info = verify_image(data, thumbnail_px=DISPLAY_THUMBNAIL[0])
    ext = str(extension or "").lower().lstrip(".")
    if ext not in _EXTENSIONS or (ext != info.extension and not (ext == "jpeg" and info.format == "JPEG")):
        ext = info.extension
    path = image_path(prefix, ext)
    write_atomic(path, data)
    remember_verified(path, info)
    return path


def write_atomic(path: Path, data: bytes) -> None:
    """Write through a temporary file in the same directory and rename: never a partial file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".partial-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save_b64_image(b64_data: str, *, prefix: str = "image", extension: str = "png") -> Path:
    """Decode base64 (a ``data:`` URL prefix is accepted), verify and save it atomically."""
    return save_bytes_image(decode_b64(b64_data), prefix=prefix, extension=extension)


def save_url_image(
    url: str,
    *,
    prefix: str = "image",
    timeout: float = 60.0,
    max_bytes: int = 25 * 1024 * 1024,
) -> Path:
    """Download ``url`` at once through the SSRF-guarded client and save it (Hermes helper)."""
    return save_bytes_image(fetch_image_bytes(url, timeout=timeout, max_bytes=max_bytes), prefix=prefix)


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


#: Hermes's ``error_type`` values (and hermes_nb's additions) → the exception the SDK raises,
#: derived from the classes in ``hermes_nb.errors`` (each declares its ``error_types``).
#: Providers pick the value with ``error_type_for(exc)`` so that the class survives the envelope.
ERROR_TYPES = errors.ERROR_TYPES


def error_type_for(exc: BaseException) -> str:
    """The ``error_type`` for an exception caught inside ``generate`` (by class, most specific first)."""
    if isinstance(exc, HermesError):
        for error_type, code in ERROR_TYPES.items():
            if code == exc.code:
                return error_type
        return "api_error"
    if isinstance(exc, ImportError):
        return "missing_dependency"
    if isinstance(exc, OSError):
        return "io_error"
    return "provider_error"


def error_response_for(
    exc: BaseException,
    *,
    provider: str,
    model: str = "",
    prompt: str = "",
    aspect_ratio: str = DEFAULT_ASPECT_RATIO,
) -> dict[str, Any]:
    """``error_response`` for an exception caught in ``generate`` (message redacted, typed by class)."""
    return error_response(
        error=str(exc),
        error_type=error_type_for(exc),
        provider=provider,
        model=model,
        prompt=prompt,
        aspect_ratio=aspect_ratio,
    )


def reference_sources(image_url: str | None, reference_image_urls: list[str] | None) -> list[str]:
    """The images an edit starts from: Hermes's ``image_url`` first, then ``reference_image_urls``."""
    return [s for s in [image_url, *(reference_image_urls or [])] if s]


def answer_or_error(
    provider: str, prompt: str, aspect_ratio: Any, model: str, run: Callable[[str], dict[str, Any]]
) -> dict[str, Any]:
    """Hermes's ``generate`` contract around ``run(aspect)``: the aspect resolved, and a
    ``HermesError`` raised inside turned into ``error_response_for`` (never raised to Hermes)."""
    aspect = resolve_aspect_ratio(aspect_ratio)
    try:
        return run(aspect)
    except HermesError as exc:
        return error_response_for(exc, provider=provider, model=model, prompt=prompt, aspect_ratio=aspect)


def configured_model(provider: str, default: str | None, *, env: str | None = None) -> str | None:
    """A provider's model when none is passed: ``env`` var → ``image_gen.<provider>.model`` →
    ``image_gen.model`` → ``default``."""
    import os

    return (
        (os.environ.get(env, "").strip() if env else "")
        or config.get(f"image_gen.{provider}.model")
        or config.get("image_gen.model")
        or default
    )


def error_from_envelope(envelope: dict[str, Any]) -> HermesError:
    """The exception for an ``error_response`` envelope, chosen by its ``error_type``."""
    error_type = str(envelope.get("error_type") or "provider_error")
    provider = str(envelope.get("provider") or "") or None
    message = str(envelope.get("error") or "image generation failed")
    code = ERROR_TYPES.get(error_type)
    if code is None:
        # Hermes's fal adapter reports exception class names; hermes_nb codes are accepted too.
        code = {cls.__name__: code for code, cls in errors.CODES.items()}.get(error_type, error_type.upper())
    error = error_from_code(code, message, provider=provider)
    error.details["error_type"] = error_type
    return error
