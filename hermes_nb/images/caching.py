"""What an image request is, and what it costs: each generation is paid for once, then served from the store.

A request is its provider, model, prompt, aspect ratio, seed, ``n`` and every other parameter
(reference images included): ``image_request``. How a call uses the cache is decided by
``hermes_nb.store.replay`` (kind ``image``): in ``read_write`` (the default) an identical request
is answered with the stored images and no provider call; ``new=True`` / ``refresh=True`` generate
again, ``no_cache=True`` neither reads nor records. ``replay`` serves only stored (or, with a
cassette, recorded) images: a miss is ``CACHE_MISS``. Fresh images count against
``image_gen.budget_usd`` (``hermes_nb.store.ledger``).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from hermes_nb import config
from hermes_nb.images.results import ImageGallery, ImageResult, from_record, to_record
from hermes_nb.images.selection import resolve_image_provider, resolve_model
from hermes_nb.plugins.registry import normalize_name
from hermes_nb.redaction import is_secret_name, redact
from hermes_nb.store import ledger, replay
from hermes_nb.store.replay import Mode, cache_mode

__all__ = [
    "safe_parameters",
    "estimate_batch",
    "image_request",
    "lookup",
    "remember",
    "replay_wanted",
]

def safe_parameters(options: dict[str, Any]) -> dict[str, Any]:
    """Provider options fit for provenance and cache keys: secret-named ones dropped, values redacted."""
    out: dict[str, Any] = {}
    for key, value in sorted(options.items()):
        if is_secret_name(str(key)):
            continue
        if isinstance(value, (str, int, float, bool)) or value is None:
            out[str(key)] = redact(value) if isinstance(value, str) else value
        else:
            out[str(key)] = redact(json.dumps(value, default=str, sort_keys=True))[:500]
    return out


def image_request(
    provider: str | None,
    model: str | None,
    prompt: str,
    aspect: str,
    seed: int | None,
    n: int,
    options: dict[str, Any],
    references: list[str] | None = None,
) -> dict[str, Any]:
    """The normalised request: what makes two generations the same."""
    parameters = safe_parameters(options)
    if references:  # data URIs are long: a digest identifies them as well
        parameters["reference_images"] = [
            hashlib.sha256(r.encode("utf-8")).hexdigest()[:16] for r in references
        ]
    return {
        "provider": provider,
        "model": model or None,
        "prompt": prompt,
        "aspect_ratio": aspect,
        "seed": seed,
        "n": n,
        "parameters": parameters,
    }


def replay_wanted(backend: str | None, model: str | None, request: dict[str, Any]) -> dict[str, Any]:
    """The request as replay matches it without resolving a provider (no keys needed)."""
    provider = backend or config.get("image_gen.provider")
    return {
        **request,
        "provider": normalize_name(str(provider)) if provider else None,
        "model": model or config.get("image_gen.model") or None,
    }


def lookup(
    mode: Mode, request: dict[str, Any], wanted: dict[str, Any] | None = None
) -> ImageResult | ImageGallery | None:
    """Stored (or recorded) images for ``request``; None when a provider must be asked.

    ``wanted`` is the request as replay from a cassette sees it (provider/model may be None).
    """
    found = replay.read_files("image", mode, request, decode=from_record, encode=to_record, wanted=wanted)
    if found is None:
        return None
    if len(found) == 1:
        return found[0]
    return ImageGallery(found, prompt=request["prompt"], provider=found[0].provider)


def _listed_price(provider: Any, model: str | None) -> float | None:
    """The per-image price the provider lists for ``model`` (``"~$0.070/image"``), or None."""
    try:
        listed = provider.list_models() or []
    except Exception:  # a provider's catalogue is informative; its failure must not stop a batch
        return None
    for item in listed:
        if isinstance(item, dict) and item.get("id") == model:
            found = re.search(r"\$\s*([0-9]+(?:\.[0-9]+)?)", str(item.get("price") or ""))
            return float(found.group(1)) if found else None
    return None


def _own_estimate(provider: Any, model: str | None, aspect: str, options: dict[str, Any]) -> float | None:
    """The provider's ``estimate_usd`` for one image (a failing or odd answer: no estimate)."""
    try:
        price = provider.estimate_usd(str(model or ""), aspect, dict(options))
    except Exception:  # an estimate is advice; the ledger's and the list's prices remain
        return None
    return float(price) if isinstance(price, int | float) and not isinstance(price, bool) else None


def estimate_batch(
    prompts: list[Any], *, backend: str | None, model: str | None, aspect: str, n: int, seed: int | None,
    options: dict[str, Any], all_fresh: bool = False,
) -> tuple[int, float | None]:  # fmt: skip
    """``(images to generate, estimated USD)`` of a batch: stored answers cost nothing (unless ``all_fresh``).

    The price per image is the provider's own estimate for that model, size and options
    (``estimate_usd``), else the last one recorded for the provider and model, else the one the
    provider lists; None when none is known.
    """
    mode = cache_mode()
    if not mode.calls:
        return 0, 0.0  # replay never generates (and needs no provider)
    provider = resolve_image_provider(backend)
    name = normalize_name(provider.name)
    chosen = resolve_model(provider, model)
    fresh = 0
    for prompt in prompts:
        text = str(prompt).strip()
        request = image_request(name, chosen, text, aspect, seed, n, options)
        if all_fresh or mode is not Mode.READ_WRITE or replay.stored_files("image", request) is None:
            fresh += n
    price = _own_estimate(provider, chosen, aspect, options)
    if price is None:
        price = ledger.known_price(name, chosen)
    if price is None:
        price = _listed_price(provider, chosen)
    return fresh, None if price is None else round(fresh * price, 6)


def remember(result: ImageResult, request: dict[str, Any], run: str, index: int, mode: Mode) -> None:
    """Count a fresh image's cost, then keep it (store unless ``off``, active recorders)."""
    ledger.add_spend(result.cost)
    replay.keep_file("image", request, to_record(result), mode, run=run, index=index)
