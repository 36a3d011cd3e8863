"""Provider answer contracts: an answer that is not the documented Hermes envelope is a PARSE_ERROR.

The error names the provider (the plugin that registered it), shows a short, redacted picture of
what came back and the shape Hermes expects, so a plugin's author learns it would break in Hermes
instead of seeing "no results". ``describe`` never walks a huge answer: it is bounded in items and
characters whatever the provider returned.
"""

from __future__ import annotations

import os
import reprlib
from typing import Any

from hermes_nb.errors import ParseError

__all__ = ["EXPECTED", "check_image_envelope", "check_video_envelope", "describe", "violation"]

#: The documented envelope of each capability (Hermes's web and image provider contracts).
EXPECTED = {
    "search": '{"success": true, "data": {"web": [{"title", "url", "description", "position"}, ...]}}',
    "extract": '[{"url", "title", "content", "raw_content", "metadata"?, "error"?}, ...] '
    '(or {"success": true, "data": [...]}, or {"results": [...]})',
    "crawl": '{"results": [{"url", "title", "content", ...}, ...]}',
    "image": '{"success": true, "image": "<URL, data URI or absolute path>", "model", "prompt", '
    '"aspect_ratio", "provider"} or {"success": false, "error": "...", "error_type": "..."}',
    "video": '{"success": true, "video": "<URL or absolute path>", "model", "prompt", "modality", '
    '"aspect_ratio", "duration", "provider"} or {"success": false, "error": "...", "error_type": "..."}',
}

_repr = reprlib.Repr()
_repr.maxlist = _repr.maxtuple = _repr.maxdict = _repr.maxset = 4
_repr.maxstring = _repr.maxother = 60
_repr.maxlevel = 3
_MAX_CHARS = 300


def describe(value: Any) -> str:
    """A short picture of ``value``: its type, size and a bounded repr (never the whole answer)."""
    size = f" of {len(value)} items" if isinstance(value, (list, tuple, dict)) else ""
    try:
        text = _repr.repr(value)
    except Exception:  # a provider object whose __repr__ fails still gets described
        text = f"<{type(value).__name__}>"
    if len(text) > _MAX_CHARS:
        text = text[: _MAX_CHARS - 3] + "..."
    return f"{type(value).__name__}{size}: {text}"


def violation(provider: str, capability: str, got: Any, problem: str) -> ParseError:
    """The ``PARSE_ERROR`` for an answer of ``provider`` that breaks the ``capability`` contract."""
    return ParseError(
        f"provider {provider!r} broke the Hermes {capability} contract: {problem}. It returned "
        f"{describe(got)}. Expected {EXPECTED[capability]}. Fix the plugin that registers {provider!r} "
        "(it would fail in Hermes too), or choose another backend",
        provider=provider,
        plugin=provider,
        details={"capability": capability, "returned_type": type(got).__name__},
    )


def check_image_envelope(envelope: Any, provider: str) -> dict[str, Any]:
    """``envelope`` when it is a Hermes image envelope (success with an image, or a failure), else raise."""
    if not isinstance(envelope, dict):
        problem = f"the answer is a {type(envelope).__name__}, not an envelope object"
        raise violation(provider, "image", envelope, problem)
    success = envelope.get("success")
    if not isinstance(success, bool):
        raise violation(provider, "image", envelope, "'success' is missing or not true/false")
    image = envelope.get("image")
    if success and not (isinstance(image, (str, os.PathLike)) and str(image).strip()):
        raise violation(provider, "image", envelope, "'success' is true but 'image' is empty or not a string")
    return envelope


def check_video_envelope(envelope: Any, provider: str) -> dict[str, Any]:
    """``envelope`` when it is a Hermes video envelope (success with a video, or a failure), else raise."""
    if not isinstance(envelope, dict):
        problem = f"the answer is a {type(envelope).__name__}, not an envelope"
        raise violation(provider, "video", envelope, problem)
    if not isinstance(envelope.get("success"), bool):
        raise violation(provider, "video", envelope, "'success' is missing or not true/false")
    video = envelope.get("video")
    if envelope["success"] and not (isinstance(video, (str, os.PathLike)) and str(video).strip()):
        raise violation(provider, "video", envelope, "'success' is true but 'video' is empty or not a string")
    return envelope
