"""``video_many`` and its async twin: video generation over the batch runner, as results, a stream or a
DataFrame (one row per video)."""

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
from hermes_nb.store import ledger
from hermes_nb.store.replay import Mode, call_mode
from hermes_nb.videos.results import VideoResult, from_record, to_record
from hermes_nb.videos.sdk import avideo, estimate_many, video
from hermes_nb.videos.selection import resolve_video_provider

__all__ = ["video_many", "avideo_many", "VIDEO_COLUMNS"]

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
    stream: bool = False,
    **options: Any,
) -> Any:
    """``video`` for each prompt with bounded concurrency: a ``BatchResult`` in input order.

    With ``video_gen.budget_usd`` set, the batch's cost (videos not in the store × the provider's
    estimate) is checked first and the whole batch refused, before any request, when it would
    pass the budget. A failed prompt is a ``BatchError`` row; ``job`` resumes an interrupted batch;
    ``as_frame=True`` returns a pandas DataFrame; ``stream=True`` an iterator of ``(index, result)``
    in completion order. In a notebook the batch shows a live view of the videos so far.
    """
    same = dict(image=image, duration=duration, aspect_ratio=aspect_ratio, resolution=resolution, seed=seed,
                model=model, backend=backend)  # fmt: skip
    todo = _checked(prompts, same, new or no_cache, options)
    one = functools.partial(video, new=new, no_cache=no_cache, **same, **options)
    rate, bound = _limits(backend, concurrency, call_mode(no_cache=no_cache, refresh=new))
    view = view_for("video", progress, todo, _rows, VIDEO_COLUMNS, as_frame, rate.provider)
    run: dict[str, Any] = {
        "executor": executor, "concurrency": bound, "job": job, "encode": _encode, "decode": _decode,
        "rate": rate, "view": view,
    }  # fmt: skip
    return many(one, todo, stream=stream, as_frame=as_frame, rows=_rows, columns=VIDEO_COLUMNS, **run)


def avideo_many(
    prompts: Iterable[str],
    *,
    image: Any = None,
    duration: int | None = None,
    aspect_ratio: str | None = None,
    resolution: str | None = None,
    seed: int | None = None,
    model: str | None = None,
    backend: str | None = None,
    concurrency: int = 2,
    progress: bool | None = None,
    as_frame: bool = False,
    job: str | None = None,
    new: bool = False,
    no_cache: bool = False,
    **options: Any,
) -> AsyncBatch:
    """Async twin of ``video_many``: ``await`` it for the result, or ``async for index, result in …``."""
    same = dict(image=image, duration=duration, aspect_ratio=aspect_ratio, resolution=resolution, seed=seed,
                model=model, backend=backend)  # fmt: skip
    todo = _checked(prompts, same, new or no_cache, options)
    rate, bound = _limits(backend, concurrency, call_mode(no_cache=no_cache, refresh=new))

    result = functools.partial(collected, items=todo, rows=_rows, columns=VIDEO_COLUMNS, as_frame=as_frame)
    return AsyncBatch(
        functools.partial(avideo, new=new, no_cache=no_cache, **same, **options), todo,
        concurrency=bound, rate=rate, job=job, encode=_encode, decode=_decode, result=result,
        view=view_for("video", progress, todo, _rows, VIDEO_COLUMNS, as_frame, rate.provider),
        # avideo runs video in a thread anyway: the pooled-thread engine does that with less hand-over
        sync_func=functools.partial(video, new=new, no_cache=no_cache, **same, **options),
    )  # fmt: skip


def _limits(backend: str | None, concurrency: int, mode: Mode) -> tuple[RateLimit, int]:
    """The ``batch.<provider>.*`` limits of the video provider that will answer (none while replaying)."""
    return provider_limits(lambda: resolve_video_provider(backend), concurrency, mode)


def _checked(
    prompts: Iterable[str], same: dict[str, Any], all_fresh: bool, options: dict[str, Any]
) -> list[Any]:
    """The prompts as a list, after the ``video_gen.budget_usd`` check of the whole batch."""
    todo = list(prompts)
    if ledger.budget(ledger.VIDEO_BUDGET) is not None:
        fresh, usd = estimate_many(todo, all_fresh=all_fresh, **same, **options)
        unknown = ", price unknown" if usd is None else ""
        ledger.check_budget(usd or 0.0, f"video_many ({fresh} new video(s){unknown})", ledger.VIDEO_BUDGET)
    return todo
