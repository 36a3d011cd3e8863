"""The ``ImageGenProvider`` contract (its ``generate`` a template) and Hermes's image file helpers.

Plugins import this module's names as ``agent.image_gen_provider`` (served by ``hermes_nb.compat``);
the envelope helpers (``success_response``, ``error_response`` …) live in ``image_envelopes`` and are
re-exported here. ``generate`` returns an envelope and never raises by convention; the SDK
(``hermes_nb.images``) turns it into an ``ImageResult``.
"""

from __future__ import annotations

import abc
import os
import re
import tempfile
import uuid
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_nb import config
from hermes_nb.config import get_hermes_home
from hermes_nb.errors import HermesError, InvalidInputError, ProviderError
from hermes_nb.plugins.image_download import fetch_image_bytes
from hermes_nb.plugins.image_envelopes import (
    DEFAULT_ASPECT_RATIO,
    ERROR_TYPES,
    VALID_ASPECT_RATIOS,
    answer_or_error,
    error_from_envelope,
    error_response,
    error_response_for,
    error_type_for,
    resolve_aspect_ratio,
    success_response,
)
from hermes_nb.plugins.media_provider import MediaProvider, configured_model
from hermes_nb.store.image_files import DISPLAY_THUMBNAIL, decode_b64, remember_verified, verify_image

if TYPE_CHECKING:  # httpx and the client load on the first request, not with the plugin system

    from hermes_nb.net.http_client import ErrorMap

__all__ = [
    "VALID_ASPECT_RATIOS",
    "DEFAULT_ASPECT_RATIO",
    "ImageGenProvider",
    "ImageRequest",
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
    "first_item",
]

_PREFIX_SAFE = re.compile(r"[^A-Za-z0-9_-]+")
_EXTENSIONS = {"png", "jpg", "jpeg", "webp", "gif"}


class ImageGenProvider(MediaProvider, abc.ABC):
    """Base class of every image provider: Hermes's contract plus what hermes_nb reads, declared here.

    Metadata is class attributes; a Hermes-style plugin may define ``name`` or ``display_name`` as a
    ``@property`` instead, and one that overrides ``generate`` itself keeps working unchanged.
    A bundled provider writes only ``_generate(request)``: ``generate`` is a template that resolves
    the aspect ratio, the model and the reference images, refuses what the class declares it cannot
    take, and turns a ``HermesError`` into Hermes's error envelope.
    """

    # -- what the SDK reads (every name here is part of the contract; defaults are Hermes's). The
    # metadata both media kinds share (tier, aliases, docs_url, key_env, model_env, default_base_url,
    # price_note, badge, tag, install_hint) is declared on ``MediaProvider``; for images an empty
    # ``price_note`` means the default model's ``price`` from ``list_models``.
    section = "image_gen"
    #: ``capabilities``: reference images accepted (0: text-to-image only), and hermes_nb's option
    #: flags; ``None`` leaves the key out (the SDK then reads its default: seed yes, negative no).
    max_reference_images: int = 0
    accepts_seed: bool | None = None
    accepts_negative_prompt: bool | None = None
    accepts_sizes: tuple[str, ...] = ()  # "WxH" strings, or ("any",) for any WIDTHxHEIGHT
    #: False: never chosen automatically, only by ``image_gen.provider`` / ``backend=`` (a key that is
    #: usually set for something else, as DeepInfra's for chat, is no consent to image billing)
    auto_select: bool = True
    #: Hermes's ``supports_upscale``: ``upscale=True`` runs the vendor's high-resolution pass
    supports_upscale: bool = False
    #: Hermes's ``creative_controls``: the vendor's creative options this provider takes by name
    creative_controls: tuple[str, ...] = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> ImageGenProvider:
        # Hermes makes ``generate`` abstract; here either it or the template's ``_generate`` is enough.
        if cls.generate is ImageGenProvider.generate and cls._generate is ImageGenProvider._generate:
            raise TypeError(f"Can't instantiate {cls.__name__}: define generate() or _generate()")
        return super().__new__(cls)

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """Stable id, the value of ``image_gen.provider`` (lowercase): a class attribute or a property."""

    def default_model(self) -> str | None:
        models = self.list_models()
        return models[0]["id"] if models else None

    def estimate_usd(self, model: str, aspect_ratio: str, options: dict[str, Any]) -> float | None:
        """The price of one image of ``model`` at ``aspect_ratio`` before it is asked for (USD), or None.

        hermes_nb's addition to the contract: budgets check this before every paid call, so a
        provider whose price depends on size or quality says so here; None falls back to the last
        price recorded for the model, then to the one ``list_models`` shows.
        """
        return None

    def capabilities(self) -> dict[str, Any]:
        """Hermes's keys (``modalities``, ``max_reference_images``) plus, optionally, hermes_nb's
        ``seed``, ``negative_prompt``, ``aspect_ratios``, ``sizes``, ``models`` (defaults and meaning:
        ``hermes_nb.plugins.image_capabilities``). ``hn.imagine`` refuses what is not declared."""
        refs = self.max_reference_images
        caps: dict[str, Any] = {
            "modalities": ["text", "image"] if refs else ["text"],
            "max_reference_images": refs,
        }
        if self.accepts_seed is not None:
            caps["seed"] = self.accepts_seed
        if self.accepts_negative_prompt is not None:
            caps["negative_prompt"] = self.accepts_negative_prompt
        if self.accepts_sizes:
            caps["sizes"] = list(self.accepts_sizes)
        if self.supports_upscale:
            caps["supports_upscale"] = True
        if self.creative_controls:
            caps["creative_controls"] = list(self.creative_controls)
        return caps

    def generate(
        self,
        prompt: str,
        aspect_ratio: str = DEFAULT_ASPECT_RATIO,
        *,
        image_url: str | None = None,
        reference_image_urls: list[str] | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """Generate one image; ``success_response`` or ``error_response``, never an exception.

        Hermes's signature: unknown keyword options are passed on in ``request.options`` (the
        provider takes what it knows), ``model=`` is resolved by ``resolve_model``.
        """
        aspect = resolve_aspect_ratio(aspect_ratio)
        model = ""
        try:
            model = self.resolve_model(kwargs.pop("model", None)) or ""
            request = ImageRequest(
                prompt=_required_prompt(prompt),
                aspect_ratio=aspect,
                model=model,
                references=reference_sources(image_url, reference_image_urls),
                options=kwargs,
                timeout_s=float(config.get("image_gen.timeout", 120.0)),
            )
            self._check_references(request)
            return self._generate(request)
        except HermesError as exc:
            return error_response_for(
                exc, provider=self.name, model=model, prompt=prompt, aspect_ratio=aspect
            )

    def _generate(self, request: ImageRequest) -> dict[str, Any]:
        """The provider's own work for the template ``generate``: raise ``HermesError`` subclasses."""
        raise NotImplementedError(f"{type(self).__name__} must define _generate() or generate()")

    def _check_references(self, request: ImageRequest) -> None:
        count, limit = len(request.references), self.max_reference_images
        if count and not limit:
            raise InvalidInputError(
                f"the {self.name} provider takes no reference images (text-to-image only)",
                provider=self.name,
                details={"error_type": "modality_unsupported"},
            )
        if count > limit:
            raise InvalidInputError(
                f"{self.display_name} takes at most {limit} reference images, got {count}",
                provider=self.name,
                details={"error_type": "too_many_references"},
            )

    def post_bearer(
        self, path: str, body: dict[str, Any], request: ImageRequest, *, error_map: ErrorMap | None = None
    ) -> dict[str, Any]:
        """POST ``body`` as JSON to ``path`` under ``base_url()`` with the key as a Bearer token (sent
        once: billed when started), within the request's timeout; the answer's JSON object."""
        response = self.send(
            "POST",
            f"{self.base_url()}{path}",
            json=body,
            headers={"Authorization": f"Bearer {self.api_key()}"},
            timeout=request.timeout_s,
            error_map=error_map,
        )
        return self.json_answer(response)


    def answer(self, request: ImageRequest, image: str | Path, **extra: Any) -> dict[str, Any]:
        """Hermes's success envelope for ``request``; ``extra`` keys never overwrite the core ones."""
        return success_response(
            image=str(image),
            model=request.model,
            prompt=request.prompt,
            aspect_ratio=request.aspect_ratio,
            provider=self.name,
            modality=request.modality,
            extra=extra,
        )

    def no_image(self, message: str) -> ProviderError:
        """The error for an answer without an image (Hermes's ``error_type`` ``empty_response``)."""
        return ProviderError(message, provider=self.name, details={"error_type": "empty_response"})



@dataclass(frozen=True)
class ImageRequest:
    """One ``generate`` call as the template hands it to ``_generate``."""

    prompt: str  # stripped, never empty
    aspect_ratio: str  # one of VALID_ASPECT_RATIOS
    model: str  # resolved (argument → env → config → default); may be "" when none is known
    references: list[str]  # Hermes's image_url first, then reference_image_urls
    options: dict[str, Any]  # every other keyword the caller passed (seed, size, quality, …)
    timeout_s: float = 120.0  # image_gen.timeout: the whole generation, polling included

    @property
    def modality(self) -> str:
        """``"image"`` for an edit (reference images given), else ``"text"``."""
        return "image" if self.references else "text"


def _required_prompt(prompt: str | None) -> str:
    text = (prompt or "").strip()
    if not text:
        raise InvalidInputError("prompt is required for image generation")
    return text


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


def reference_sources(image_url: str | None, reference_image_urls: list[str] | None) -> list[str]:
    """The images an edit starts from: Hermes's ``image_url`` first, then ``reference_image_urls``."""
    return [s for s in [image_url, *(reference_image_urls or [])] if s]


def first_item(payload: dict[str, Any], key: str = "data") -> dict[str, Any]:
    """The first object of ``payload[key]`` (OpenAI-style ``data: [{b64_json | url …}]``), or ``{}``."""
    items = payload.get(key)
    return items[0] if isinstance(items, list) and items and isinstance(items[0], dict) else {}
