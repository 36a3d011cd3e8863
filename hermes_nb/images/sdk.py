"""The image SDK: ``imagine`` / ``aimagine`` (``imagine_many`` is in ``hermes_nb.batch``).

Which provider answers is decided by ``hermes_nb.images.selection`` (one rule for the SDK, the
``image_generate`` tool and the magics). Every image ends as a verified file in
``$HERMES_HOME/cache/images`` with its provenance inside the file and in the store; URLs are
downloaded at once (they expire). ``cache.mode == "replay"`` serves earlier images for the same
request and never calls a provider.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
import uuid
import warnings
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from hermes_nb import config
from hermes_nb.errors import (
    CacheMissError,
    HermesError,
    InvalidInputError,
    ProviderError,
)
from hermes_nb.images.results import ImageGallery, ImageResult, from_record, provenance_of, to_record
from hermes_nb.images.selection import (
    describe_image_providers,
    resolve_image_provider,
    resolve_model,
    takes_seed,
)
from hermes_nb.plugins.deadline import call_with_deadline, deadline_for
from hermes_nb.plugins.image_capabilities import capabilities_of, check_options
from hermes_nb.plugins.image_download import fetch_image_bytes
from hermes_nb.plugins.image_provider import (
    VALID_ASPECT_RATIOS,
    ImageGenProvider,
    error_from_envelope,
    image_path,
    images_cache_dir,
    normalize_reference_images,
    resolve_aspect_ratio,
    write_atomic,
)
from hermes_nb.plugins.registry import normalize_name
from hermes_nb.store.image_files import (
    DISPLAY_THUMBNAIL,
    ImageInfo,
    embed_provenance,
    recall_verified,
    remember_verified,
    sha256_bytes,
    verify_image,
)

__all__ = [
    "imagine",
    "aimagine",
    "resolve_image_provider",
    "describe_image_providers",
    "resolve_model",
    "error_from_envelope",
    "provenance_of",
    "to_record",
    "from_record",
]

log = logging.getLogger(__name__)

MAX_N = 10


# --------------------------------------------------------------------------- parameters


def _safe_parameters(options: dict[str, Any]) -> dict[str, Any]:
    from hermes_nb.redaction import is_secret_name, redact

    out: dict[str, Any] = {}
    for key, value in sorted(options.items()):
        if is_secret_name(str(key)):
            continue
        if isinstance(value, (str, int, float, bool)) or value is None:
            out[str(key)] = redact(value) if isinstance(value, str) else value
        else:
            out[str(key)] = redact(json.dumps(value, default=str, sort_keys=True))[:500]
    return out


# --------------------------------------------------------------------------- keeping images


def _keep(
    data: bytes,
    *,
    prefix: str,
    provenance: dict[str, Any],
    path: Path | None = None,
    info: ImageInfo | None = None,
) -> tuple[Path, ImageInfo, str]:
    """Verify ``data`` (unless ``info`` already describes it), embed provenance, write atomically.

    Returns (path, ImageInfo, sha256 of the written file).
    """
    if info is None:
        info = verify_image(data, thumbnail_px=DISPLAY_THUMBNAIL[0])
    final = embed_provenance(data, info, {**provenance, "size": f"{info.width}x{info.height}"})
    target = path if path is not None else image_path(prefix, info.extension)
    write_atomic(target, final)
    remember_verified(target, info)
    return target, info, sha256_bytes(final)


def _materialise(
    image: Any, *, prefix: str, provenance: dict[str, Any], timeout: float
) -> tuple[Path, ImageInfo, str]:
    """Turn the envelope's ``image`` (URL, data URI or path) into a kept file."""
    if not isinstance(image, (str, Path)) or not str(image).strip():
        raise ProviderError("the provider reported success but returned no image", provider=prefix)
    text = str(image).strip()
    if text.startswith(("http://", "https://", "data:")):
        return _keep(fetch_image_bytes(text, timeout=timeout), prefix=prefix, provenance=provenance)
    source = Path(text).expanduser()
    if not source.is_absolute() or not source.is_file():
        raise ProviderError(
            f"the provider returned {text!r}, which is neither a URL nor an existing file", provider=prefix
        )
    cache = images_cache_dir().resolve()
    inside = source.resolve().parent == cache
    data = source.read_bytes()
    known = recall_verified(source.resolve()) if inside else None  # written and verified by save_bytes_image
    try:
        return _keep(
            data, prefix=prefix, provenance=provenance, path=source.resolve() if inside else None, info=known
        )
    except HermesError:
        if inside:
            source.unlink(missing_ok=True)  # a provider wrote something that is not an image: keep nothing
        raise


# --------------------------------------------------------------------------- store


def _request_key(provider: str, model: str | None, prompt: str, aspect: str, seed: int | None, n: int) -> str:
    blob = json.dumps([provider, model, prompt, aspect, seed, n], ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:32]


def _record(result: ImageResult, key: str, run: str, index: int, n: int) -> None:
    from hermes_nb import store

    # "request_hash", not "*_key": the store drops secret-looking names.
    record = {**to_record(result), "n": n, "request_hash": key, "run": run, "index": index}
    try:
        store.record_image(record)
    except HermesError as exc:  # the image is on disk already; a store hiccup must not lose it
        log.warning("could not record image in the store: %s", exc)


def _replay(
    provider: str, model: str | None, prompt: str, aspect: str, n: int, key: str
) -> ImageResult | ImageGallery:
    """The newest complete earlier answer to the same request, from the store; else ``CacheMissError``."""
    from hermes_nb import store

    rows = store.get_store().find_images(
        limit=200, provider=provider, model=model, prompt=prompt, aspect_ratio=aspect, n=n
    )
    groups: dict[str, dict[int, dict[str, Any]]] = {}
    for row in rows:  # newest first
        params = row.get("params") or {}
        if params.get("request_hash") != key or not Path(str(row.get("path", ""))).is_file():
            continue
        groups.setdefault(str(params.get("run", "")), {}).setdefault(int(params.get("index", 0)), row)
    for group in groups.values():
        if all(i in group for i in range(n)):
            results = [from_record({**group[i], **group[i]["params"]}) for i in range(n)]
            return results[0] if n == 1 else ImageGallery(results)
    raise CacheMissError(
        "cache.mode is 'replay' and this image request is not in the store; "
        'run it once with hn.config.set("cache.mode", "read_write")'
    )


# --------------------------------------------------------------------------- the pipeline


def _check_prompt(prompt: Any) -> str:
    if not isinstance(prompt, str) or not prompt.strip():
        raise InvalidInputError("prompt is required for image generation (a non-empty string)")
    return prompt.strip()


def _check_aspect(aspect_ratio: Any) -> str:
    resolved = resolve_aspect_ratio(aspect_ratio)
    given = aspect_ratio.strip().lower() if isinstance(aspect_ratio, str) else aspect_ratio
    if aspect_ratio is not None and given != resolved:
        warnings.warn(
            f"aspect_ratio {aspect_ratio!r} is not one of {', '.join(VALID_ASPECT_RATIOS)}; "
            f"using {resolved!r}",
            UserWarning,
            stacklevel=3,
        )
    return resolved


def _check_n(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_N:
        raise InvalidInputError(f"n must be an integer from 1 to {MAX_N}, got {n!r}")
    return n


def _references(reference_images: Any) -> list[str] | None:
    if isinstance(reference_images, (str, Path)):
        reference_images = [reference_images]
    if isinstance(reference_images, (list, tuple)):
        reference_images = [str(r) if isinstance(r, Path) else r for r in reference_images]
    return normalize_reference_images(reference_images)


def _generate_one(
    provider: ImageGenProvider,
    *,
    prompt: str,
    aspect: str,
    model: str | None,
    seed: int | None,
    refs: list[str] | None,
    options: dict[str, Any],
) -> ImageResult:
    name = normalize_name(provider.name)
    kwargs: dict[str, Any] = dict(options)
    if model:
        kwargs["model"] = model
    if seed is not None:
        kwargs["seed"] = seed
    if refs:
        kwargs["image_url"] = refs[0]
        if refs[1:]:
            kwargs["reference_image_urls"] = refs[1:]
    started = time.perf_counter()
    try:
        deadline = deadline_for("image")
        envelope = call_with_deadline(deadline, name, provider.generate, prompt, aspect, **kwargs)
    except HermesError:
        raise
    except Exception as exc:
        raise ProviderError(
            f"image provider {name!r} raised {type(exc).__name__}: {exc}", provider=name
        ) from exc
    if not isinstance(envelope, dict):
        raise ProviderError(
            f"image provider {name!r} returned {type(envelope).__name__}, not an envelope dict", provider=name
        )
    if not envelope.get("success"):
        raise error_from_envelope({**envelope, "provider": envelope.get("provider") or name})
    result = ImageResult(
        path=Path(),
        prompt=prompt,
        provider=name,
        model=str(envelope.get("model") or model or ""),
        aspect_ratio=str(envelope.get("aspect_ratio") or aspect),
        width=0,
        height=0,
        sha256="",
        seed=envelope["seed"] if "seed" in envelope else (seed if takes_seed(provider) else None),
        revised_prompt=envelope.get("revised_prompt") or None,
        cost=envelope.get("cost") if isinstance(envelope.get("cost"), dict) else None,
        parameters=_safe_parameters(options),
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )
    timeout = float(config.get("image_gen.timeout", 120.0))
    path, info, digest = _materialise(
        envelope.get("image"), prefix=name, provenance=provenance_of(result), timeout=timeout
    )
    result.path, result.width, result.height, result.sha256, result.format = (
        path,
        info.width,
        info.height,
        digest,
        info.format,
    )
    result.envelope = {**envelope, "image": str(path)}
    result.duration_s = round(time.perf_counter() - started, 6)
    return result


def imagine(
    prompt: str,
    aspect_ratio: str = "landscape",
    model: str | None = None,
    backend: str | None = None,
    n: int = 1,
    seed: int | None = None,
    reference_images: str | Path | list[str] | list[Path] | list[str | Path] | None = None,
    **options: Any,
) -> ImageResult | ImageGallery:
    """Generate ``n`` images for ``prompt`` with the active image provider.

    ``seed`` is passed to providers that take one (image ``i`` of a gallery gets ``seed + i``);
    ``reference_images`` (paths, URLs or data URIs) route to the provider's edit endpoint;
    other keyword ``options`` go to the provider unchanged (e.g. ``quality="high"``).
    """
    text = _check_prompt(prompt)
    aspect = _check_aspect(aspect_ratio)
    count = _check_n(n)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise InvalidInputError(f"seed must be an integer, got {seed!r}")
    mode = str(config.get("cache.mode", "read_write"))
    provider = resolve_image_provider(backend)
    name = normalize_name(provider.name)
    chosen_model = resolve_model(provider, model)
    key = _request_key(name, chosen_model, text, aspect, seed, count)
    if mode == "replay":
        return _replay(name, chosen_model, text, aspect, count, key)
    refs = _references(reference_images)
    # What the provider declares it cannot do is refused here, before any request.
    check_options(
        name, capabilities_of(provider), aspect_ratio=aspect, references=len(refs or ()), options=options
    )
    if seed is not None and not takes_seed(provider):
        warnings.warn(
            f"image provider {name!r} takes no seed; the images will not be reproducible", stacklevel=2
        )
    run = uuid.uuid4().hex[:12]
    results = []
    for index in range(count):
        result = _generate_one(
            provider,
            prompt=text,
            aspect=aspect,
            model=chosen_model,
            seed=None if seed is None else seed + index,
            refs=refs,
            options=options,
        )
        if mode != "off":
            _record(result, key, run, index, count)
        results.append(result)
    return results[0] if count == 1 else ImageGallery(results, prompt=text, provider=name)


async def aimagine(
    prompt: str,
    aspect_ratio: str = "landscape",
    model: str | None = None,
    backend: str | None = None,
    n: int = 1,
    seed: int | None = None,
    reference_images: str | Path | list[str] | list[Path] | list[str | Path] | None = None,
    **options: Any,
) -> ImageResult | ImageGallery:
    """Async twin of ``imagine`` (the blocking work runs in a worker thread)."""
    return await asyncio.to_thread(
        imagine, prompt, aspect_ratio, model, backend, n, seed, reference_images, **options
    )
