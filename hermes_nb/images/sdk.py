"""The image SDK: ``imagine`` / ``aimagine`` (``imagine_many`` is in ``hermes_nb.batch``).

Which provider answers is decided by ``hermes_nb.images.selection`` (one rule for the SDK, the
``image_generate`` tool and the magics). Every image ends as a verified file in
``$HERMES_HOME/cache/images`` with its provenance inside the file and in the store; URLs are
downloaded at once (they expire). An identical request is served from the store without a
provider call, unless ``new=True`` (``hermes_nb.store.replay`` decides, kind ``image``); replay
serves only earlier images and never calls a provider.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
import warnings
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from hermes_nb import config
from hermes_nb.errors import (
    HermesError,
    InvalidInputError,
    ProviderError,
)
from hermes_nb.images.caching import (
    estimate_batch,
    image_request,
    lookup,
    remember,
    replay_wanted,
    safe_parameters,
)
from hermes_nb.images.results import ImageGallery, ImageResult, from_record, provenance_of, to_record
from hermes_nb.images.selection import (
    describe_image_providers,
    resolve_image_provider,
    resolve_model,
    takes_seed,
)
from hermes_nb.net.url_guard import provider_origins
from hermes_nb.plugins import events
from hermes_nb.plugins.contracts import check_image_envelope
from hermes_nb.plugins.deadline import call_with_deadline, deadline_for
from hermes_nb.plugins.image_capabilities import capabilities_of, check_options
from hermes_nb.plugins.image_download import MAX_IMAGE_BYTES, configured_base_urls, fetch_image_bytes
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
from hermes_nb.store import ledger
from hermes_nb.store.image_files import (
    DISPLAY_THUMBNAIL,
    ImageInfo,
    embed_provenance,
    recall_verified,
    remember_verified,
    sha256_bytes,
    verify_image,
)
from hermes_nb.store.replay import call_mode, replay_path

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
    if source.stat().st_size > MAX_IMAGE_BYTES:  # checked before reading: a provider may point anywhere
        raise ProviderError(
            f"the provider returned {text!r}, {source.stat().st_size} bytes: larger than the "
            f"{MAX_IMAGE_BYTES // (1024 * 1024)} MiB an image may be; refused",
            provider=prefix,
        )
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
    # An image URL on the origin of the base URL the user configured for this provider is fetched
    # even when that origin is private (a local rig, a gateway), by the provider and by _materialise.
    with provider_origins(configured_base_urls(provider)):
        return _generate_trusted(
            provider, prompt=prompt, aspect=aspect, model=model, seed=seed, refs=refs, options=options
        )


def _generate_trusted(
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
    check_image_envelope(envelope, name)
    if not envelope["success"]:
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
        parameters=safe_parameters(options),
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


def _check_budget(
    name: str, text: str, aspect: str, model: str | None, backend: str | None, count: int, seed: int | None,
    options: dict[str, Any],
) -> None:  # fmt: skip
    """Refuse, before any request, a call whose estimate (as ``imagine_many`` makes it) passes the budget."""
    if ledger.budget() is None:
        return
    _fresh, usd = estimate_batch(
        [text], backend=backend, model=model, aspect=aspect, n=count, seed=seed, options=options,
        all_fresh=True,  # the store was looked in already: this call generates
    )  # fmt: skip
    unknown = ", price unknown" if usd is None else ""
    ledger.check_budget(usd or 0.0, f"generating {count} image(s) with {name}{unknown}")


def _announce_saved(result: ImageResult) -> None:
    """``image_saved`` for plugins' ``ctx.subscribe`` (a subscriber never breaks the call)."""
    payload = {"path": str(result.path), "provider": result.provider, "model": result.model,
               "prompt": result.prompt, "cached": False}  # fmt: skip
    try:
        events.emit("image_saved", payload)
    except Exception as exc:
        log.warning("event image_saved not delivered: %s", type(exc).__name__)


@config.consistent()  # one look at config.yaml per call
def imagine(
    prompt: str,
    aspect_ratio: str = "landscape",
    model: str | None = None,
    backend: str | None = None,
    n: int = 1,
    seed: int | None = None,
    reference_images: str | Path | list[str] | list[Path] | list[str | Path] | None = None,
    *,
    new: bool = False,
    no_cache: bool = False,
    refresh: bool = False,
    **options: Any,
) -> ImageResult | ImageGallery:
    """Generate ``n`` images for ``prompt`` with the active image provider.

    ``seed`` is passed to providers that take one (image ``i`` of a gallery gets ``seed + i``);
    ``reference_images`` (paths, URLs or data URIs) route to the provider's edit endpoint;
    other keyword ``options`` go to the provider unchanged (e.g. ``quality="high"``).
    An identical earlier request is served from the store (``cached=True``, no provider call);
    ``new=True`` (or ``refresh=True``) generates again, ``no_cache=True`` neither reads nor records.
    """
    text = _check_prompt(prompt)
    aspect = _check_aspect(aspect_ratio)
    count = _check_n(n)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise InvalidInputError(f"seed must be an integer, got {seed!r}")
    mode = call_mode(no_cache=no_cache, refresh=new or refresh)
    refs = _references(reference_images)
    if not mode.calls and replay_path() is not None:  # no provider is resolved: replay needs no keys
        wanted = image_request(None, model, text, aspect, seed, count, options, refs)
        replayed = lookup(mode, wanted, replay_wanted(backend, model, wanted))
        assert replayed is not None  # replay raises CACHE_MISS rather than answer nothing
        return replayed
    chain = image_fallback_chain(backend)
    if not chain:
        provider = resolve_image_provider(backend)
        return _imagine_with(provider, text, aspect, model, count, seed, refs, options, mode)
    return _imagine_chained(chain, text, aspect, model, count, seed, refs, options, mode)


def image_fallback_chain(backend: str | None = None) -> list[str]:
    """The providers ``image_gen.fallback`` names after the active one; ``[]`` when a ``backend=``
    argument is given (never rerouted), when unset, or for ``none``."""
    if backend is not None and str(backend).strip():
        return []
    value = config.get("image_gen.fallback")
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    if value is None:
        return []
    if not isinstance(value, (list, tuple)):
        raise InvalidInputError(
            f"config image_gen.fallback must be a list of provider names or 'none', got "
            f"{type(value).__name__}; fix it with hn.config.set('image_gen.fallback', ['fal', 'openai'])"
        )
    names = [normalize_name(v) for v in value if normalize_name(v)]
    return [n for n in dict.fromkeys(names) if n != "none"]


#: Codes an image fallback chain stops on: the caller's input or a policy another provider cannot fix.
_CHAIN_STOPS = frozenset({"INVALID_INPUT", "CONTENT_BLOCKED", "CONTENT_POLICY", "CACHE_MISS", "STORE_ERROR"})


def _imagine_chained(
    chain: list[str], text: str, aspect: str, model: str | None, count: int, seed: int | None,
    refs: list[str] | None, options: dict[str, Any], mode: Any,
) -> ImageResult | ImageGallery:  # fmt: skip
    """The active provider (``image_gen.provider``, else the single available one), then the chain."""
    first: list[str] = []
    try:
        first = [normalize_name(resolve_image_provider(None).name)]
    except HermesError:
        pass  # none chosen and none (or several) available: the chain alone
    attempts: list[dict[str, Any]] = []
    last: HermesError | None = None
    for name in dict.fromkeys([*first, *chain]):
        try:
            provider = resolve_image_provider(name)
            made = _imagine_with(provider, text, aspect, model, count, seed, refs, options, mode)
        except HermesError as exc:
            if exc.code in _CHAIN_STOPS:
                raise
            attempts.append({"provider": name, "code": exc.code, "message": _why_not(exc)})
            last = exc
            continue
        attempts.append({"provider": name, "code": None, "message": "ok"})
        if len(attempts) > 1:
            reasons = "; ".join(f"{a['provider']}: {a['message']}" for a in attempts[:-1])
            for image in made if isinstance(made, ImageGallery) else [made]:
                image.attempts = list(attempts)
                image.notes.append(f"served by {name} after {reasons}")
        return made
    assert last is not None
    last.details["attempts"] = attempts
    raise last


def _why_not(exc: HermesError) -> str:
    message = exc.message if len(exc.message) <= 160 else exc.message[:159] + "…"
    quota = exc.status == 402 or (exc.code == "PROVIDER_RATE_LIMITED" and not exc.retryable)
    return f"out of quota: {message}" if quota else message


def _imagine_with(
    provider: ImageGenProvider, text: str, aspect: str, model: str | None, count: int, seed: int | None,
    refs: list[str] | None, options: dict[str, Any], mode: Any,
) -> ImageResult | ImageGallery:  # fmt: skip
    """Generate with ``provider``: the store first, then the budget, the capability checks, the calls."""
    name = normalize_name(provider.name)
    chosen_model = resolve_model(provider, model)
    request = image_request(name, chosen_model, text, aspect, seed, count, options, refs)
    cached = lookup(mode, request)
    if cached is not None:
        return cached
    _check_budget(name, text, aspect, model, name, count, seed, options)
    # What the provider declares it cannot do is refused here, before any request.
    check_options(
        name, capabilities_of(provider), aspect_ratio=aspect, references=len(refs or ()), options=options
    )
    # Said on the result, as a short note in its output (not a UserWarning with a source line).
    notes = [f"{name} takes no seed; these images are not reproducible"] if (
        seed is not None and not takes_seed(provider)
    ) else []
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
        result.notes = list(notes)
        remember(result, request, run, index, mode)
        results.append(result)
        _announce_saved(result)
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
