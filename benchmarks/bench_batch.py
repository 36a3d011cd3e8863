"""Benchmark: 1,000 searches as one batch, a cached repeat, and the batch on a Dask LocalCluster.

Against the emulator (``hermes_nb.testing``) with 50 ms latency on every request, run in a child
process so that its request handling does not share this process's interpreter lock (a real
provider is remote too):

1. ``search_many`` of N distinct queries at concurrency 32 (``no_cache=True``: every query is a
   request), after a warm-up batch of N/10 (the plugin import, threads and connections of a
   kernel's first batch): the median wall time of ROUNDS rounds against the bound
   N × latency / concurrency (target ≥ 0.9 of the bound's speed) and against a sequential loop of
   ``hn.search`` (target ≥ 25×; the loop runs over a sample of S queries and is scaled to N, since
   it is linear).
2. a cached repeat of one search: median over R calls (target ≤ 2 ms) and the requests it made (0).
3. the same batch on a Dask ``LocalCluster`` with 2 in-process workers (``Client.get_executor()``).

Run: ``python benchmarks/bench_batch.py [N] [S] [R]``; prints Markdown lines for benchmarks/RESULTS.md.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

LATENCY = 0.05
CONCURRENCY = 32
ROUNDS = 3
#: The child: an emulator with LATENCY on every request; prints its URL, serves until stdin closes.
_CHILD = f"""
import sys
from hermes_nb.testing import Emulator
with Emulator(seed=0) as emu:
    emu.latency = {LATENCY}
    print(emu.url, flush=True)
    sys.stdin.read()
"""


def _bare_httpx(url: str, n: int) -> float:
    """The baseline: median wall time of ``n`` bare httpx GETs of the same endpoint from 32 threads."""
    import concurrent.futures

    import httpx

    endpoint = f"{url}/brave/res/v1/web/search"
    limits = httpx.Limits(max_connections=100, max_keepalive_connections=100)
    with httpx.Client(limits=limits) as client, concurrent.futures.ThreadPoolExecutor(CONCURRENCY) as pool:

        def one(i: int) -> Any:
            answer = client.get(endpoint, params={"q": f"bare {i}", "count": 3},
                                headers={"X-Subscription-Token": "emu-brave-key"})  # fmt: skip
            answer.raise_for_status()
            return answer.json()

        list(pool.map(one, range(n // 10)))  # warm-up, as for the SDK
        walls = []
        for _ in range(ROUNDS):
            start = time.perf_counter()
            list(pool.map(one, range(n)))
            walls.append(time.perf_counter() - start)
    return statistics.median(walls)


def _batch_figures(hn: Any, n: int, sample: int, url: str) -> list[str]:
    """The batch, the sequential loop and the Dask run against the emulator in the child process."""
    lines: list[str] = []
    # Warm-up (not timed): the first batch of a kernel also imports the provider's plugin, starts
    # the pooled threads and opens the connections; what is measured is a notebook's later batches.
    cold_start = time.perf_counter()
    hn.search_many([f"warm-up {i}" for i in range(n // 10)], limit=3, concurrency=CONCURRENCY,
                   no_cache=True, progress=False)  # fmt: skip
    cold = time.perf_counter() - cold_start
    walls = []
    for round_ in range(ROUNDS):
        queries = [f"benchmark query {round_}-{i}" for i in range(n)]  # distinct: every one a request
        start = time.perf_counter()
        batch = hn.search_many(queries, limit=3, concurrency=CONCURRENCY, no_cache=True, progress=False)
        walls.append(time.perf_counter() - start)
        assert not batch.errors, batch.errors[:3]
    wall = statistics.median(walls)
    bound = n * LATENCY / CONCURRENCY
    lines.append(
        f"search_many, {n} queries, {LATENCY * 1000:.0f} ms latency, concurrency {CONCURRENCY}: median "
        f"{wall:.2f} s of {ROUNDS} rounds ({', '.join(f'{w:.2f}' for w in walls)}); bound {bound:.2f} s → "
        f"{bound / wall:.2f} of the bound's speed (target ≥ 0.9); the cold first batch of {n // 10} "
        f"took {cold:.2f} s"
    )
    bare = _bare_httpx(url, n)
    lines.append(
        f"baseline, the same {n} requests as bare httpx GETs from {CONCURRENCY} threads (no SDK): "
        f"median {bare:.2f} s → {bound / bare:.2f} of the bound's speed; the SDK batch takes "
        f"{wall / bare:.2f}× its time"
    )

    start = time.perf_counter()
    for query in queries[:sample]:
        hn.search(query, 3, no_cache=True)
    sequential = (time.perf_counter() - start) / sample * n
    lines.append(
        f"sequential hn.search loop: {sequential:.1f} s for {n} (measured on {sample}, scaled) → "
        f"batch is {sequential / wall:.1f}× faster (target ≥ 25×)"
    )

    try:
        from dask.distributed import Client, LocalCluster  # optional: the dev extra has it
    except ImportError:
        lines.append("Dask LocalCluster: skipped (pip install 'dask[distributed]')")
    else:
        cluster = LocalCluster(n_workers=2, threads_per_worker=16, processes=False, dashboard_address=None)
        with cluster, Client(cluster) as client:
            start = time.perf_counter()
            on_dask = hn.search_many(
                queries, limit=3, concurrency=CONCURRENCY, no_cache=True, progress=False,
                executor=client.get_executor(),
            )  # fmt: skip
            dask_wall = time.perf_counter() - start
        assert not on_dask.errors, on_dask.errors[:3]
        lines.append(
            f"search_many on a Dask LocalCluster (2 in-process workers × 16 threads), {n} queries, "
            f"concurrency {CONCURRENCY}: {dask_wall:.2f} s → {bound / dask_wall:.2f} of the bound's speed"
        )
    return lines


def main(argv: list[str]) -> int:
    n = int(argv[0]) if argv else 1000
    sample = int(argv[1]) if len(argv) > 1 else 100
    repeats = int(argv[2]) if len(argv) > 2 else 200
    os.environ.update(HERMES_HOME=tempfile.mkdtemp(prefix="hermes_nb_bench_"), HERMES_NB_PROGRESS="0")

    import hermes_nb as hn
    from hermes_nb.testing import Emulator, use_emulator

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [
        f"machine: {platform.machine()}, {os.cpu_count()} CPU(s), Python {platform.python_version()}, "
        f"load average {load:.1f} at the start"
    ]
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None and child.stdin is not None
    url = child.stdout.readline().strip()
    try:
        with use_emulator(url, ["brave"]):
            hn.config.set("web.search_backend", "brave")
            lines += _batch_figures(hn, n, sample, url)
    finally:
        child.stdin.close()
        child.wait(timeout=30)
    with Emulator(seed=0) as emu, use_emulator(emu, ["brave"]):
        hn.config.set("web.search_backend", "brave")

        hn.search("cached repeat", 3)
        before = len(emu.requests)
        samples = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            result = hn.search("cached repeat", 3)
            samples.append((time.perf_counter() - t0) * 1000)
        assert result.cached
        lines.append(
            f"cached repeat of one search: median {statistics.median(samples):.3f} ms over {repeats} calls, "
            f"{len(emu.requests) - before} requests (target ≤ 2 ms, 0 requests)"
        )

    print("\n".join(f"- {line}" for line in lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
