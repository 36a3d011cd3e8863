"""How image requests use the cache: each generation is paid for once, then served from the store.

A request is keyed by provider, model, prompt, aspect ratio, seed, ``n`` and every other
parameter (reference images included). In ``read_write`` (the default) an identical request is
answered with the stored images and no provider call; ``new=True`` / ``refresh=True`` generate
again, ``no_cache=True`` neither reads nor records. ``replay`` serves only stored (or, with a
cassette, recorded) images: a miss is ``CacheMissError``. Fresh images count against
``image_gen.budget_usd`` (``hermes_nb.store.ledger``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
from pathlib import Path
from typing import Any

from hermes_nb import config
from hermes_nb.errors import CacheMissError, HermesError
from hermes_nb.images.results import ImageGallery, ImageResult, from_record, to_record
from hermes_nb.images.selection import resolve_image_provider, resolve_model
from hermes_nb.plugins.registry import normalize_name
from hermes_nb.redaction import is_secret_name, redact
from hermes_nb.store import cassette, get_store, ledger
from hermes_nb.store.modes import cache_mode

__all__ = [
    "safe_parameters",
    "estimate_batch",
    "image_request",
    "request_hash",
    "call_mode",
    "lookup",
    "remember",
    "replay_wanted",
]

log = logging.getLogger(__name__)


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


def request_hash(request: dict[str, Any]) -> str:
    blob = json.dumps(request, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:32]


def call_mode(new: bool = False, no_cache: bool = False, refresh: bool = False) -> str:
    """The mode of one image call (``new`` is ``refresh``); replay cannot be lifted per call."""
    mode = cache_mode()
    if mode == "replay":
        return mode
    if no_cache:
        return "off"
    return "refresh" if (new or refresh) and mode != "off" else mode


def replay_wanted(backend: str | None, model: str | None, request: dict[str, Any]) -> dict[str, Any]:
    """The request as replay matches it without resolving a provider (no keys needed)."""
    provider = backend or config.get("image_gen.provider")
    return {
        **request,
        "provider": normalize_name(str(provider)) if provider else None,
        "model": model or config.get("image_gen.model") or None,
    }


def _from_cassette(found: list[tuple[dict[str, Any], Path | None, float]]) -> list[ImageResult]:
    results = []
    for record, path, _recorded in found:
        result = from_record({**record, "path": str(path or "")})
        results.append(result)
    return results


def _from_store(request: dict[str, Any], key: str) -> list[tuple[ImageResult, dict[str, Any]]] | None:
    rows = get_store().find_images(limit=200, provider=request["provider"], prompt=request["prompt"])
    groups: dict[str, dict[int, dict[str, Any]]] = {}
    for row in rows:  # newest first
        params = row.get("params") or {}
        if params.get("request_hash") != key or not Path(str(row.get("path", ""))).is_file():
            continue
        groups.setdefault(str(params.get("run", "")), {}).setdefault(int(params.get("index", 0)), row)
    n = int(request["n"])
    for group in groups.values():
        if all(i in group for i in range(n)):
            return [(from_record({**group[i], **group[i]["params"]}), group[i]) for i in range(n)]
    return None


def _shape(results: list[ImageResult], request: dict[str, Any]) -> ImageResult | ImageGallery:
    if len(results) == 1:
        return results[0]
    return ImageGallery(results, prompt=request["prompt"], provider=results[0].provider)


def lookup(
    mode: str, request: dict[str, Any], wanted: dict[str, Any] | None = None
) -> ImageResult | ImageGallery | None:
    """Stored (or recorded) images for ``request``; None when a provider must be asked.

    ``wanted`` is the request as replay from a cassette sees it (provider/model may be None).
    """
    if mode not in ("read_write", "replay"):
        return None
    replaying = cassette.replay_cassette() if mode == "replay" else None
    if replaying is not None:
        results = _from_cassette(replaying.images(wanted or request))
        for index, result in enumerate(results):
            cassette.note_image(wanted or request, index, to_record(result), result.path, time.time())
        return _shape(results, request)
    try:
        found = _from_store(request, request_hash(request))
    except HermesError as exc:
        if mode == "replay":
            raise
        log.warning("image cache read skipped: %s", exc)
        found = None
    if found is None:
        if mode == "replay":
            raise CacheMissError(
                "cache.mode is 'replay' and this image request is not in the store; "
                'run it once with hn.config.set("cache.mode", "read_write")'
            )
        return None
    for index, (result, row) in enumerate(found):
        cassette.note_image(request, index, to_record(result), result.path, float(row["created"]))
    return _shape([result for result, _row in found], request)


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


def estimate_batch(
    prompts: list[Any], *, backend: str | None, model: str | None, aspect: str, n: int, seed: int | None,
    options: dict[str, Any], all_fresh: bool = False,
) -> tuple[int, float | None]:  # fmt: skip
    """``(images to generate, estimated USD)`` of a batch: stored answers cost nothing (unless ``all_fresh``).

    The price per image is the last one recorded for the provider and model, else the one the
    provider lists; None when neither is known.
    """
    mode = cache_mode()
    if mode == "replay":
        return 0, 0.0  # replay never generates (and needs no provider)
    provider = resolve_image_provider(backend)
    name = normalize_name(provider.name)
    chosen = resolve_model(provider, model)
    fresh = 0
    for prompt in prompts:
        text = str(prompt).strip()
        request = image_request(name, chosen, text, aspect, seed, n, options)
        if all_fresh or mode != "read_write" or _from_store(request, request_hash(request)) is None:
            fresh += n
    price = ledger.known_price(name, chosen)
    if price is None:
        price = _listed_price(provider, chosen)
    return fresh, None if price is None else round(fresh * price, 6)


def remember(result: ImageResult, request: dict[str, Any], run: str, index: int, mode: str) -> None:
    """Count a fresh image's cost, record it in the store (unless ``off``) and show it to recorders."""
    ledger.add_spend(result.cost)
    cassette.note_image(request, index, to_record(result), result.path, time.time())
    if mode == "off":
        return
    # "request_hash", not "*_key": the store drops secret-looking names.
    record = {**to_record(result), "n": request["n"], "request_hash": request_hash(request), "run": run,
              "index": index, "request": request}  # fmt: skip
    try:
        get_store().record_image(record)
    except HermesError as exc:  # the image is on disk already; a store hiccup must not lose it
        log.warning("could not record image in the store: %s", exc)
