"""``imagine_many``: image generation over the batch runner, as results or a DataFrame (one row per image)."""

from __future__ import annotations

import concurrent.futures
import functools
from collections.abc import Iterable
from typing import Any

from hermes_nb.batch.limits import RateLimit, provider_limits
from hermes_nb.batch.live import view_for
from hermes_nb.batch.result import collected
from hermes_nb.batch.runner import many
from hermes_nb.batch.tasks import AsyncBatch
from hermes_nb.images.caching import estimate_batch
from hermes_nb.images.results import ImageGallery, ImageResult, from_record, to_record
from hermes_nb.images.sdk import aimagine, imagine
from hermes_nb.images.selection import resolve_image_provider
from hermes_nb.plugins.image_provider import resolve_aspect_ratio
from hermes_nb.store import ledger
from hermes_nb.store.replay import Mode, call_mode

__all__ = ["imagine_many", "aimagine_many", "IMAGE_COLUMNS"]


def _encode(value: Any) -> Any:
    if isinstance(value, ImageGallery):
        return {"gallery": [to_record(r) for r in value]}
    return to_record(value) if isinstance(value, ImageResult) else value


def _decode(value: Any) -> Any:
    if isinstance(value, dict) and "gallery" in value:
        return ImageGallery([from_record(r) for r in value["gallery"]])
    return from_record(value) if isinstance(value, dict) else value


def _rows(prompts: list[Any], results: list[Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for prompt, result in zip(prompts, results, strict=True):
        if isinstance(result, (ImageResult, ImageGallery)):
            for index, image in enumerate(result if isinstance(result, ImageGallery) else [result]):
                cost = image.cost or {}
                rows.append(
                    {"prompt": prompt, "index": index, "provider": image.provider, "model": image.model,
                     "path": str(image.path), "width": image.width, "height": image.height,
                     "seed": image.seed, "cost_usd": cost.get("usd"), "cost_estimated": cost.get("estimated"),
                     "duration_s": image.duration_s, "error_code": None, "error": None}
                )  # fmt: skip
        else:
            rows.append(
                {"prompt": prompt, "index": 0, "error_code": getattr(result, "code", None),
                 "error": getattr(result, "message", None)}
            )  # fmt: skip
    return rows


def _limits(backend: str | None, concurrency: int, mode: Mode) -> tuple[RateLimit, int]:
    """The ``batch.<provider>.*`` limits of the image provider that will answer (none while replaying)."""
    return provider_limits(lambda: resolve_image_provider(backend), concurrency, mode)


IMAGE_COLUMNS = [
    "prompt", "index", "provider", "model", "path", "width", "height", "seed", "cost_usd", "cost_estimated",
    "duration_s", "error_code", "error",
]  # fmt: skip


def _check_budget(
    todo: list[Any], aspect_ratio: str, model: str | None, backend: str | None, n: int, seed: int | None,
    options: dict[str, Any], all_fresh: bool,
) -> None:
    if ledger.budget() is None:
        return
    fresh, usd = estimate_batch(
        todo, backend=backend, model=model, aspect=resolve_aspect_ratio(aspect_ratio), n=n, seed=seed,
        options=options, all_fresh=all_fresh,
    )  # fmt: skip
    unknown = ", price unknown" if usd is None else ""
    ledger.check_budget(usd or 0.0, f"imagine_many ({fresh} new image(s){unknown})")


def imagine_many(
    prompts: Iterable[str],
    aspect_ratio: str = "landscape",
    *,
    model: str | None = None,
    backend: str | None = None,
    n: int = 1,
    seed: int | None = None,
    executor: concurrent.futures.Executor | None = None,
    concurrency: int = 4,
    progress: bool | None = None,
    as_frame: bool = False,
    job: str | None = None,
    new: bool = False,
    no_cache: bool = False,
    refresh: bool = False,
    stream: bool = False,
    **options: Any,
) -> Any:
    """``imagine`` for each prompt with bounded concurrency: a ``BatchResult`` in input order.

    A failed prompt is a ``hermes_nb.batch.BatchError`` row; ``batch.<provider>.rps`` and
    ``batch.<provider>.in_flight`` apply. ``executor`` takes any
    ``concurrent.futures.Executor`` (a Dask client's too); ``job`` persists finished prompts so an
    interrupted batch resumes; ``as_frame=True`` returns a pandas DataFrame, one row per image;
    ``stream=True`` an iterator of ``(index, result)`` in completion order.
    Prompts already generated are served from the store (``new=True`` generates again). With
    ``image_gen.budget_usd`` set, the batch's cost is estimated first and the batch refused,
    before any request, when it would pass the budget.
    """
    todo = list(prompts)
    _check_budget(todo, aspect_ratio, model, backend, n, seed, options, new or refresh or no_cache)
    flags: dict[str, Any] = {"new": new, "no_cache": no_cache, "refresh": refresh}
    one = functools.partial(
        imagine, aspect_ratio=aspect_ratio, model=model, backend=backend, n=n, seed=seed, **flags, **options
    )
    rate, bound = _limits(backend, concurrency, call_mode(no_cache=no_cache, refresh=new or refresh))
    view = view_for("imagine", progress, todo, _rows, IMAGE_COLUMNS, as_frame, rate.provider)
    run: dict[str, Any] = {
        "executor": executor, "concurrency": bound, "job": job, "encode": _encode, "decode": _decode,
        "rate": rate, "view": view,
    }  # fmt: skip
    return many(one, todo, stream=stream, as_frame=as_frame, rows=_rows, columns=IMAGE_COLUMNS, **run)


def aimagine_many(
    prompts: Iterable[str],
    aspect_ratio: str = "landscape",
    *,
    model: str | None = None,
    backend: str | None = None,
    n: int = 1,
    seed: int | None = None,
    concurrency: int = 4,
    progress: bool | None = None,
    as_frame: bool = False,
    job: str | None = None,
    new: bool = False,
    no_cache: bool = False,
    refresh: bool = False,
    **options: Any,
) -> AsyncBatch:
    """Async twin of ``imagine_many``: ``await`` it for the result, or ``async for index, result in …``."""
    todo = list(prompts)
    _check_budget(todo, aspect_ratio, model, backend, n, seed, options, new or refresh or no_cache)
    flags: dict[str, Any] = {"new": new, "no_cache": no_cache, "refresh": refresh}
    one = functools.partial(
        aimagine, aspect_ratio=aspect_ratio, model=model, backend=backend, n=n, seed=seed, **flags, **options
    )
    rate, bound = _limits(backend, concurrency, call_mode(no_cache=no_cache, refresh=new or refresh))

    result = functools.partial(collected, items=todo, rows=_rows, columns=IMAGE_COLUMNS, as_frame=as_frame)
    sync = functools.partial(
        imagine, aspect_ratio=aspect_ratio, model=model, backend=backend, n=n, seed=seed, **flags, **options
    )  # aimagine runs imagine in a thread anyway: the pooled-thread engine does that with less hand-over
    return AsyncBatch(
        one, todo, concurrency=bound, rate=rate, job=job, encode=_encode, decode=_decode, result=result,
        view=view_for("imagine", progress, todo, _rows, IMAGE_COLUMNS, as_frame, rate.provider),
        sync_func=sync,
    )  # fmt: skip
