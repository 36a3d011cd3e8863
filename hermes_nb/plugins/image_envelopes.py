"""Hermes's image envelopes: the aspect-ratio rule, ``success_response`` / ``error_response``, and the
``error_type`` ↔ error-code table that carries an exception's class through an envelope and back.

Served to plugins as part of ``agent.image_gen_provider`` (through ``hermes_nb.plugins.image_provider``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hermes_nb import errors
from hermes_nb.errors import HermesError, error_from_code
from hermes_nb.redaction import redact

__all__ = [
    "VALID_ASPECT_RATIOS",
    "DEFAULT_ASPECT_RATIO",
    "resolve_aspect_ratio",
    "success_response",
    "error_response",
    "error_response_for",
    "answer_or_error",
    "ERROR_TYPES",
    "error_type_for",
    "error_from_envelope",
]

VALID_ASPECT_RATIOS = ("landscape", "square", "portrait")
DEFAULT_ASPECT_RATIO = "landscape"
def resolve_aspect_ratio(value: Any) -> str:
    """Hermes rule: non-str or unknown → ``"landscape"`` (coerce, never reject)."""
    if not isinstance(value, str):
        return DEFAULT_ASPECT_RATIO
    value = value.strip().lower()
    return value if value in VALID_ASPECT_RATIOS else DEFAULT_ASPECT_RATIO


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
    """The ``error_type`` for an exception caught inside ``generate``: the one its ``details`` name
    (``error_from_envelope`` keeps it there), else by class, most specific first."""
    if isinstance(exc, HermesError):
        named = exc.details.get("error_type")
        if isinstance(named, str) and named:
            return named
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
    """``error_response`` for an exception caught in ``generate`` (message redacted, typed by class;
    the HTTP status, when known, as ``http_status``: a fallback chain tells an out-of-quota 402 by it)."""
    envelope = error_response(
        error=str(exc),
        error_type=error_type_for(exc),
        provider=provider,
        model=model,
        prompt=prompt,
        aspect_ratio=aspect_ratio,
    )
    status = getattr(exc, "status", None)
    if isinstance(status, int) and not isinstance(status, bool):
        envelope["http_status"] = status
    return envelope


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
    status = envelope.get("http_status")
    if isinstance(status, int) and not isinstance(status, bool):
        error.status = status
    return error

