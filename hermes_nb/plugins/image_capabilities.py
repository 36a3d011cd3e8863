"""What an image provider can do, read from its ``capabilities()`` dict with safe defaults.

Hermes's providers return ``{"modalities": [...], "max_reference_images": N}`` (N > 0 means
edits / reference images; they also list ``"image"`` in the modalities). hermes_nb reads these
optional keys as well; a provider that leaves one out gets the default in brackets:

- ``seed`` (True: unknown means yes; ``False`` → ``hn.imagine(seed=…)`` warns, as before)
- ``negative_prompt`` (False: ``negative_prompt=`` is refused before any request)
- ``aspect_ratios`` (Hermes's three: landscape, square, portrait)
- ``sizes`` (none: ``size=`` is refused); a list of ``"WxH"`` strings, or ``["any"]`` for any ``WxH``
- ``models`` (the ids of ``list_models()``)
- ``text_to_image`` (True); ``"text"`` in the modalities says the same
- ``supports_upscale`` (False: ``upscale=True`` is refused); Hermes's key for a provider that runs a
  high-resolution pass when asked
- ``creative_controls`` (none): the names of the vendor's creative options the provider takes (Krea's
  ``creativity``, ``styles`` …), or ``["any"]`` for a provider whose every option is one (a ComfyUI
  workflow's placeholders). Hermes forwards only declared controls; here a known creative control
  the provider does not declare is refused before any request, never silently dropped
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from hermes_nb.errors import InvalidInputError
from hermes_nb.plugins.image_provider import ImageGenProvider

__all__ = ["ImageCapabilities", "capabilities_of", "check_options", "ANY_SIZE", "CREATIVE_CONTROLS"]

log = logging.getLogger(__name__)

ANY_SIZE = "any"
_SIZE = re.compile(r"^\s*(\d{2,5})\s*[xX×]\s*(\d{2,5})\s*$")
_HERMES_ASPECTS = ("landscape", "square", "portrait")
#: Creative-control option names some vendor takes; a provider that does not declare one refuses it
CREATIVE_CONTROLS = frozenset(
    {"creativity", "styles", "moodboards", "image_style_references", "style", "style_preset", "intensity"}
)


@dataclass(frozen=True)
class ImageCapabilities:
    """One provider's declared surface (see the module docstring for the keys and defaults)."""

    text_to_image: bool = True
    edit: bool = False
    max_reference_images: int = 0
    seed: bool = True
    negative_prompt: bool = False
    aspect_ratios: tuple[str, ...] = _HERMES_ASPECTS
    sizes: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    upscale: bool = False
    creative_controls: tuple[str, ...] = ()

    def labels(self) -> tuple[str, ...]:
        """Short names for listings (``text-to-image``, ``edit (≤N refs)``, ``seed``, ...)."""
        out = []
        if self.text_to_image:
            out.append("text-to-image")
        if self.edit:
            out.append(f"edit (≤{self.max_reference_images} refs)")
        if self.seed:
            out.append("seed")
        if self.negative_prompt:
            out.append("negative prompt")
        if self.sizes:
            out.append("any size" if ANY_SIZE in self.sizes else "sizes " + ", ".join(self.sizes))
        if self.upscale:
            out.append("upscale")
        if self.creative_controls:
            out.append("creative controls " + ", ".join(self.creative_controls))
        return tuple(out)


def capabilities_of(provider: ImageGenProvider) -> ImageCapabilities:
    """The provider's ``ImageCapabilities``; a ``capabilities()`` that raises reads as the defaults."""
    try:
        raw = provider.capabilities() or {}
    except Exception as exc:  # a plugin's declaration must not break generation or listings
        log.warning("image provider %r: capabilities() raised %s", provider.name, exc)
        raw = {}
    if not isinstance(raw, dict):
        raw = {}
    modalities = [str(m) for m in raw.get("modalities") or ["text"]]
    try:
        limit = max(0, int(raw.get("max_reference_images", 0) or 0))
    except (TypeError, ValueError):
        limit = 0
    models = raw.get("models")
    if models is None:
        try:
            models = [m.get("id") for m in provider.list_models() if isinstance(m, dict) and m.get("id")]
        except Exception:
            models = []
    return ImageCapabilities(
        text_to_image=bool(raw.get("text_to_image", "text" in modalities)),
        edit=limit > 0,  # Hermes's tool routes references by the limit alone
        max_reference_images=limit,
        seed=bool(raw.get("seed", True)),
        negative_prompt=bool(raw.get("negative_prompt", False)),
        aspect_ratios=tuple(str(a) for a in raw.get("aspect_ratios") or _HERMES_ASPECTS),
        sizes=tuple(str(s).lower() for s in raw.get("sizes") or ()),
        models=tuple(str(m) for m in models or ()),
        upscale=bool(raw.get("supports_upscale", False)),
        creative_controls=tuple(
            str(c) for c in (raw.get("creative_controls") or ()) if isinstance(c, str) and c
        ),
    )


def check_options(
    name: str,
    caps: ImageCapabilities,
    *,
    aspect_ratio: str,
    references: int,
    options: dict[str, Any],
) -> None:
    """Refuse, before any request, what the provider says it cannot do (``InvalidInputError``)."""

    def refuse(what: str, hint: str = "") -> None:
        raise InvalidInputError(
            f"image provider {name!r} does not support {what}{hint}", provider=name, details={"option": what}
        )

    if references:
        if not caps.edit:
            raise InvalidInputError(
                f"image provider {name!r} does not accept reference images (it does text-to-image only)",
                provider=name,
                details={"option": "reference_images"},
            )
        if references > caps.max_reference_images:
            raise InvalidInputError(
                f"image provider {name!r} accepts at most {caps.max_reference_images} reference images, "
                f"got {references}",
                provider=name,
                details={"option": "reference_images"},
            )
    elif not caps.text_to_image:
        refuse("text-to-image", " without reference_images")
    if aspect_ratio not in caps.aspect_ratios:
        refuse(f"aspect_ratio={aspect_ratio!r}", f"; it takes {', '.join(caps.aspect_ratios)}")
    if options.get("negative_prompt") not in (None, "") and not caps.negative_prompt:
        refuse("negative_prompt")
    if options.get("upscale") not in (None, False) and not caps.upscale:
        refuse("upscale", "; it declares no supports_upscale (use a provider that does)")
    takes_any = ANY_SIZE in caps.creative_controls  # "any", as for sizes
    for control in sorted(set(options) & CREATIVE_CONTROLS):
        if not takes_any and control not in caps.creative_controls and options[control] is not None:
            takes = ", ".join(caps.creative_controls) or "none"
            refuse(f"the creative control {control!r}", f"; the creative controls it takes: {takes}")
    size = options.get("size")
    if size not in (None, ""):
        if not caps.sizes:
            refuse("size", "; choose aspect_ratio='landscape'|'square'|'portrait' instead")
        text = str(size).strip().lower().replace("×", "x")
        if ANY_SIZE in caps.sizes:
            if not _SIZE.match(text) and text not in caps.sizes:
                refuse(f"size={size!r}", " (give it as 'WIDTHxHEIGHT', e.g. '1024x768')")
        elif text not in caps.sizes:
            refuse(f"size={size!r}", f"; it takes {', '.join(caps.sizes)}")
