"""``video_many``: video generation over the batch runner, as results or a DataFrame (one row per video)."""

from __future__ import annotations

import concurrent.futures
import functools
from collections.abc import Iterable
from typing import Any

from hermes_nb.batch.limits import RateLimit, limits_for
from hermes_nb.batch.result import BatchResult
from hermes_nb.batch.runner import run_batch
from hermes_nb.errors import HermesError
from hermes_nb.plugins.registry import normalize_name
from hermes_nb.store import ledger
from hermes_nb.store.replay import call_mode
from hermes_nb.videos.results import VideoResult, from_record, to_record
from hermes_nb.videos.sdk import estimate_many, video
from hermes_nb.videos.selection import resolve_video_provider

__all__ = ["video_many", "VIDEO_COLUMNS"]

VIDEO_COLUMNS = [
    "prompt", "provider", "model", "path", "length_s", "width", "height", "seed", "cost_usd",
    "cost_estimated", "duration_s", "error_code", "error",
]  # fmt: skip


def _encode(value: Any) -> Any:
    return to_record(value) if isinstance(value, VideoResult) else value


def _decode(value: Any) -> Any:
    return from_record(value) if isinstance(value, dict) else value


def _rows(prompts: list[Any], results: list[Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for prompt, result in zip(prompts, results, strict=True):
        if isinstance(result, VideoResult):
            cost = result.cost or {}
            rows.append(
                {"prompt": prompt, "provider": result.provider, "model": result.model,
                 "path": str(result.path), "length_s": result.length_s, "width": result.width,
                 "height": result.height, "seed": result.seed, "cost_usd": cost.get("usd"),
                 "cost_estimated": cost.get("estimated"), "duration_s": result.duration_s,
                 "error_code": None, "error": None}
            )  # fmt: skip
        else:
            rows.append({"prompt": prompt, "error_code": getattr(result, "code", None),
                         "error": getattr(result, "message", None)})  # fmt: skip
    return rows


def video_many(
    prompts: Iterable[str],
    *,
    image: Any = None,
    duration: int | None = None,
    aspect_ratio: str | None = None,
    resolution: str | None = None,
    seed: int | None = None,
    model: str | None = None,
    backend: str | None = None,
    executor: concurrent.futures.Executor | None = None,
    concurrency: int = 2,
    progress: bool | None = None,
    as_frame: bool = False,
    job: str | None = None,
    new: bool = False,
    no_cache: bool = False,
    **options: Any,
) -> Any:
    """``video`` for each prompt with bounded concurrency: a ``BatchResult`` in input order.

    With ``video_gen.budget_usd`` set, the batch's cost (videos not in the store × the provider's
    estimate) is checked first and the whole batch refused, before any request, when it would
    pass the budget. A failed prompt is a ``BatchError`` row; ``job`` resumes an interrupted batch.
    """
    todo = list(prompts)
    same = dict(image=image, duration=duration, aspect_ratio=aspect_ratio, resolution=resolution, seed=seed,
                model=model, backend=backend)  # fmt: skip
    if ledger.budget(ledger.VIDEO_BUDGET) is not None:
        fresh, usd = estimate_many(todo, all_fresh=new or no_cache, **same, **options)
        unknown = ", price unknown" if usd is None else ""
        ledger.check_budget(usd or 0.0, f"video_many ({fresh} new video(s){unknown})", ledger.VIDEO_BUDGET)
    one = functools.partial(video, new=new, no_cache=no_cache, **same, **options)
    rate, bound = _limits(backend, concurrency, new, no_cache)
    results = run_batch(
        one, todo, executor=executor, concurrency=bound, progress=progress, job=job,
        desc="video", encode=_encode, decode=_decode, rate=rate,
    )  # fmt: skip
    batch = BatchResult(results, items=todo, rows=_rows, columns=VIDEO_COLUMNS)
    return batch.to_pandas() if as_frame else batch


def _limits(backend: str | None, concurrency: int, new: bool, no_cache: bool) -> tuple[RateLimit, int]:
    if not call_mode(no_cache=no_cache, refresh=new).calls:
        return RateLimit(None), concurrency
    try:
        name = normalize_name(resolve_video_provider(backend).name)
    except HermesError:
        name = None
    return limits_for(name, concurrency)
