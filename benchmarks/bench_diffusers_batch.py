"""Benchmark: ``imagine_many`` with the local ``diffusers`` provider, prompts grouped into one pipeline call.

A random Stable Diffusion pipeline (``hermes_nb.testing.diffusers_pipeline``, no download) generates
N images through ``hn.imagine_many(..., concurrency=4)`` with ``image_gen.diffusers.batch_size`` 1
(one pipeline call per prompt, the baseline) and 4 (concurrent prompts grouped), alternating over
ROUNDS rounds; the figure is images per second and the grouped/one-by-one ratio of the medians. The
device is the provider's own choice (CUDA, then MPS, then CPU): run it on a GPU machine for the
figure that matters; on a CPU it shows the grouping works end to end and what it gains there.

Run: ``python benchmarks/bench_diffusers_batch.py [N] [ROUNDS] [WIDTH] [STEPS]``; prints Markdown lines.
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    n = int(argv[0]) if argv else 16
    rounds = int(argv[1]) if len(argv) > 1 else 3
    width = int(argv[2]) if len(argv) > 2 else 32
    steps = int(argv[3]) if len(argv) > 3 else 10
    os.environ.update(HERMES_HOME=tempfile.mkdtemp(prefix="hermes_nb_bench_"), HERMES_NB_PROGRESS="0")
    import torch

    import hermes_nb as hn
    from hermes_nb.testing.diffusers_pipeline import tiny_sd_pipeline

    model = tiny_sd_pipeline(Path(tempfile.mkdtemp(prefix="hermes_nb_sd_")), width=width, sample_size=64)
    hn.config.set("image_gen.provider", "diffusers")
    hn.config.set("image_gen.diffusers.model", str(model))
    first = hn.imagine("a lower tower", seed=1, num_inference_steps=steps)  # loads the pipeline (not timed)
    device = first.envelope.get("device") or first.envelope.get("extra", {}).get("device", "?")
    words = ["a lower", "a wider", "the lowest", "a newer"]
    prompts = [f"{words[i % len(words)]} tower {i}" for i in range(n)]

    speeds: dict[int, list[float]] = {1: [], 4: []}
    for round_ in range(rounds):
        for size in (1, 4) if round_ % 2 == 0 else (4, 1):
            hn.config.set("image_gen.diffusers.batch_size", size)
            start = time.perf_counter()
            made = hn.imagine_many(prompts, seed=round_ * 1000, concurrency=4, new=True, progress=False,
                                   num_inference_steps=steps)  # fmt: skip
            wall = time.perf_counter() - start
            assert not made.errors, made.errors[:2]
            speeds[size].append(n / wall)
    alone, grouped = statistics.median(speeds[1]), statistics.median(speeds[4])
    print(
        f"- machine: {platform.machine()}, {os.cpu_count()} CPU(s), Python {platform.python_version()}, "
        f"torch {torch.__version__}, device {device}, cuda {torch.cuda.is_available()}"
    )
    print(
        f"- {n} images of {first.size[0]}×{first.size[1]}, {steps} steps, UNet width {width}, "
        f"{rounds} rounds: one pipeline call per prompt {alone:.2f} images/s "
        f"({', '.join(f'{s:.2f}' for s in speeds[1])}); grouped by 4 {grouped:.2f} images/s "
        f"({', '.join(f'{s:.2f}' for s in speeds[4])}) → **{grouped / alone:.2f}×**"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
