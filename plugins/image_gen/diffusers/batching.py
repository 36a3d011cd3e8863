"""Concurrent generations with the same settings share one pipeline call (``image_gen.diffusers.batch_size``).

``imagine_many`` runs its prompts on several threads; each calls ``generate`` for one prompt. A
pipeline run on a GPU costs about the same for 1 prompt as for 4, so calls that arrive together with
the same model, size and options are grouped: the first caller waits up to ``WINDOW_S`` for more
(at most ``batch_size``), runs the pipeline once with a list of prompts and one seeded generator per
image, and hands each caller its own image. A lone call waits only the short window. Every image
keeps its own seed, so a grouped image is the one the same seed gives alone.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["WINDOW_S", "Job", "Batcher"]

#: How long the first caller of a group waits for others to join it.
WINDOW_S = 0.05


@dataclass
class Job:
    """One caller's prompt, its generator (seeded) and, once run, its image or error."""

    prompt: str
    generator: Any
    negative_prompt: str | None = None
    image: Any = None
    error: BaseException | None = None
    done: threading.Event = field(default_factory=threading.Event)


class Batcher:
    """Groups concurrent jobs by key and runs each group through one call of ``run_group``."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._queues: dict[Any, list[Job]] = {}
        self._leading: set[Any] = set()

    def submit(
        self, key: Any, job: Job, batch_size: int, run_group: Callable[[list[Job]], list[Any]]
    ) -> Any:
        """Run ``job`` (alone or in a group of up to ``batch_size``); return its image or raise its error."""
        if batch_size <= 1:
            self._run([job], run_group)
            return self._outcome(job)
        with self._cond:
            self._queues.setdefault(key, []).append(job)
            lead = key not in self._leading
            if lead:
                self._leading.add(key)
            self._cond.notify_all()  # a waiting leader may now have a full group
        while lead:
            group = self._take(key, batch_size)
            self._run(group, run_group)
            with self._cond:  # more jobs arrived meanwhile: lead the next group too
                lead = bool(self._queues.get(key))
                if not lead:
                    self._leading.discard(key)
                    self._queues.pop(key, None)
        job.done.wait()
        return self._outcome(job)

    def _take(self, key: Any, batch_size: int) -> list[Job]:
        deadline = time.monotonic() + WINDOW_S
        with self._cond:
            queue = self._queues[key]
            while len(queue) < batch_size:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            group, queue[:] = queue[:batch_size], queue[batch_size:]
            return group

    @staticmethod
    def _run(group: list[Job], run_group: Callable[[list[Job]], list[Any]]) -> None:
        try:
            images = run_group(group)
            if len(images) != len(group):
                raise RuntimeError(f"the pipeline returned {len(images)} images for {len(group)} prompts")
            for job, image in zip(group, images, strict=True):
                job.image = image
        except BaseException as exc:  # every caller of the group gets the failure
            for job in group:
                job.error = exc
        finally:
            for job in group:
                job.done.set()

    @staticmethod
    def _outcome(job: Job) -> Any:
        if job.error is not None:
            raise job.error
        return job.image
