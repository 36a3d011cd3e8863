"""Benchmark: 1,000 searches as one batch (threads and asyncio engines against bare clients), a 429
storm, a cached repeat, and the batch on a Dask LocalCluster.

Against the emulator (``hermes_nb.testing``) with 50 ms latency on every request, run in a child
process so that its request handling does not share this process's interpreter lock (a real
provider is remote too):

1. ``search_many`` (pooled threads) and ``asearch_many`` (the asyncio engine) of N distinct
   queries at concurrency 32 (``no_cache=True``: every query is a request), after a warm-up batch
   of N/10 (the plugin import, threads and connections of a kernel's first batch), interleaved
   round by round with the bare clients below (same endpoint, no SDK): httpx from a 32-thread pool,
   httpx's ``AsyncClient`` and aiohttp with 32 tasks. Reported: the median and spread of ROUNDS
   rounds, the fraction of the bound N × latency / concurrency (target ≥ 0.9), the ratio to bare
   httpx from 32 threads measured within each round (target ≥ 1.2×), and a sequential loop of
   ``hn.search`` (target ≥ 25×; the loop runs over a sample of S queries and is scaled to N).
1b. a 429 storm: another emulator answering 429 with ``Retry-After: 1`` to 30 % of requests,
   ``search_many`` of STORM_N queries with ``batch.serper.rps`` = STORM_RPS: failed items (target
   0) and the most requests the emulator received in any one second (target ≤ STORM_RPS + 1).
2. a cached repeat of one search: median over R calls (target ≤ 2 ms) and the requests it made (0).
3. the same batch on a Dask ``LocalCluster`` with 2 in-process workers (``Client.get_executor()``).

Run: ``python benchmarks/bench_batch.py [N] [S] [R] [STORM_N]``; prints Markdown lines for
benchmarks/RESULTS.md.
"""

from __future__ import annotations

import asyncio
import json
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
STORM_RPS = 20
STORM_SHARE = 0.3
#: The child: an emulator with LATENCY on every request; prints its URL, serves until stdin closes,
#: then prints the arrival times of the requests of the provider in argv[1] (if any) as JSON.
_CHILD = f"""
import json, sys
from hermes_nb.testing import Emulator
storm = sys.argv[1] if len(sys.argv) > 1 else None
with Emulator(seed=0) as emu:
    emu.latency = {LATENCY}
    if storm:
        emu.fail(storm, "429", times=None, fraction={STORM_SHARE}, retry_after=1)
    print(emu.url, flush=True)
    sys.stdin.read()
    if storm:
        print(json.dumps([r.at for r in emu.requests_for(storm)]), flush=True)
"""


def _spread(values: list[float]) -> str:
    return f"median {statistics.median(values):.2f} s (min {min(values):.2f}, max {max(values):.2f})"


class _Bare:
    """The baselines: the same Brave GETs with no SDK, from 32 threads or 32 tasks."""

    def __init__(self, url: str) -> None:
        import concurrent.futures

        import httpx

        self.endpoint = f"{url}/brave/res/v1/web/search"
        self.headers = {"X-Subscription-Token": "emu-brave-key"}
        limits = httpx.Limits(max_connections=100, max_keepalive_connections=100)
        self.client = httpx.Client(limits=limits)
        self.pool = concurrent.futures.ThreadPoolExecutor(CONCURRENCY)
        self.limits = limits

    def threads(self, n: int, tag: str) -> float:
        def one(i: int) -> Any:
            params = {"q": f"bare {tag} {i}", "count": 3}
            answer = self.client.get(self.endpoint, params=params, headers=self.headers)
            answer.raise_for_status()
            return answer.json()

        start = time.perf_counter()
        list(self.pool.map(one, range(n)))
        return time.perf_counter() - start

    async def _tasks(self, n: int, tag: str, kind: str) -> float:
        queue = list(range(n))

        if kind == "httpx":
            import httpx

            async with httpx.AsyncClient(limits=self.limits) as client:

                async def get(i: int) -> Any:
                    answer = await client.get(self.endpoint, params={"q": f"bare {tag} {i}", "count": 3},
                                              headers=self.headers)  # fmt: skip
                    answer.raise_for_status()
                    return answer.json()

                return await self._drive(queue, get)
        import aiohttp

        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=100)) as session:

            async def aget(i: int) -> Any:
                params = {"q": f"bare {tag} {i}", "count": "3"}
                async with session.get(self.endpoint, params=params, headers=self.headers) as answer:
                    answer.raise_for_status()
                    return await answer.json()

            return await self._drive(queue, aget)

    @staticmethod
    async def _drive(queue: list[int], one: Any) -> float:
        await asyncio.gather(*(one(i) for i in queue[: CONCURRENCY]))  # warm the connections
        todo = iter(queue)

        async def worker() -> None:
            for i in todo:
                await one(i)

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
        return time.perf_counter() - start

    def tasks(self, n: int, tag: str, kind: str) -> float:
        return asyncio.run(self._tasks(n, tag, kind))

    def close(self) -> None:
        self.client.close()
        self.pool.shutdown()


def _batch_figures(hn: Any, n: int, sample: int, url: str) -> list[str]:
    """Both engines and the bare clients, interleaved round by round, then the loop and Dask."""
    lines: list[str] = []
    # Warm-up (not timed): the first batch of a kernel also imports the provider's plugin, starts
    # the pooled threads and opens the connections; what is measured is a notebook's later batches.
    cold_start = time.perf_counter()
    hn.search_many([f"warm-up {i}" for i in range(n // 10)], limit=3, concurrency=CONCURRENCY,
                   no_cache=True, progress=False)  # fmt: skip
    cold = time.perf_counter() - cold_start
    warm = [f"warm-up a{i}" for i in range(n // 10)]
    asyncio.run(_await(hn.asearch_many(warm, limit=3, concurrency=CONCURRENCY, no_cache=True,
                                       progress=False)))  # fmt: skip
    bare = _Bare(url)
    bare.threads(n // 10, "warm-up")
    kinds = ("threads", "asyncio", "bare", "bare_httpx_async", "aiohttp")
    walls: dict[str, list[float]] = {kind: [] for kind in kinds}
    for round_ in range(ROUNDS):
        queries = [f"benchmark query {round_}-{i}" for i in range(n)]  # distinct: every one a request
        start = time.perf_counter()
        batch = hn.search_many(queries, limit=3, concurrency=CONCURRENCY, no_cache=True, progress=False)
        walls["threads"].append(time.perf_counter() - start)
        assert not batch.errors, batch.errors[:3]
        start = time.perf_counter()
        twin = hn.asearch_many([f"a {q}" for q in queries], limit=3, concurrency=CONCURRENCY, no_cache=True,
                               progress=False)  # fmt: skip
        abatch = asyncio.run(_await(twin))
        walls["asyncio"].append(time.perf_counter() - start)
        assert not abatch.errors, abatch.errors[:3]
        walls["bare"].append(bare.threads(n, str(round_)))
        walls["bare_httpx_async"].append(bare.tasks(n, str(round_), "httpx"))
        walls["aiohttp"].append(bare.tasks(n, str(round_), "aiohttp"))
    bare.close()
    bound = n * LATENCY / CONCURRENCY
    names = {
        "threads": "search_many (pooled threads)",
        "asyncio": "asearch_many (asyncio engine, sync provider on pooled threads)",
        "bare": f"bare httpx, {CONCURRENCY} threads",
        "bare_httpx_async": f"bare httpx AsyncClient, {CONCURRENCY} tasks",
        "aiohttp": f"bare aiohttp, {CONCURRENCY} tasks",
    }
    lines.append(f"{n} searches, {LATENCY * 1000:.0f} ms latency, concurrency {CONCURRENCY}, {ROUNDS} "
                 f"interleaved rounds; bound {bound:.2f} s; the cold first batch of {n // 10} took "
                 f"{cold:.2f} s")  # fmt: skip
    for key, label in names.items():
        fractions = [bound / w for w in walls[key]]
        ratios = [b / w for b, w in zip(walls["bare"], walls[key], strict=True)]
        lines.append(
            f"{label}: {_spread(walls[key])} → {statistics.median(fractions):.2f} of the bound's speed "
            f"({min(fractions):.2f}–{max(fractions):.2f}); speed vs bare httpx from {CONCURRENCY} threads "
            f"in the same round: {statistics.median(ratios):.2f}× ({min(ratios):.2f}–{max(ratios):.2f})"
        )

    start = time.perf_counter()
    for query in queries[:sample]:
        hn.search(f"seq {query}", 3, no_cache=True)
    sequential = (time.perf_counter() - start) / sample * n
    wall = statistics.median(walls["threads"])
    lines.append(
        f"sequential hn.search loop: {sequential:.1f} s for {n} (measured on {sample}, scaled) → "
        f"search_many is {sequential / wall:.1f}× faster (target ≥ 25×)"
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
                [f"dask {q}" for q in queries], limit=3, concurrency=CONCURRENCY, no_cache=True,
                progress=False, executor=client.get_executor(),
            )  # fmt: skip
            dask_wall = time.perf_counter() - start
        assert not on_dask.errors, on_dask.errors[:3]
        lines.append(
            f"search_many on a Dask LocalCluster (2 in-process workers × 16 threads), {n} queries, "
            f"concurrency {CONCURRENCY}: {dask_wall:.2f} s → {bound / dask_wall:.2f} of the bound's speed"
        )
    return lines


async def _await(batch: Any) -> Any:
    return await batch


def _storm(hn: Any, n: int) -> list[str]:
    """A 429 storm: no failed item, and no second with more than the configured rate (+1) of requests."""
    from hermes_nb.testing import use_emulator

    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, "serper"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None and child.stdin is not None
    url = child.stdout.readline().strip()
    try:
        with use_emulator(url, ["serper"]):
            hn.config.set("web.search_backend", "serper")
            hn.config.set("batch.serper.rps", STORM_RPS)
            start = time.perf_counter()
            result = hn.search_many([f"storm {i}" for i in range(n)], limit=3, concurrency=CONCURRENCY,
                                    no_cache=True, progress=False)  # fmt: skip
            wall = time.perf_counter() - start
            state = hn.batch.limits()["serper"]
    finally:
        child.stdin.close()
        arrivals = sorted(json.loads(child.stdout.readline()))
        child.wait(timeout=30)
    busiest = max(sum(1 for t in arrivals if first <= t < first + 1.0) for first in arrivals)
    return [
        f"429 storm ({STORM_SHARE:.0%} of requests answered 429 with Retry-After: 1), {n} queries, "
        f"concurrency {CONCURRENCY}, batch.serper.rps = {STORM_RPS}: {len(result.errors)} failed items "
        f"(target 0), {len(arrivals)} requests of which {state.throttled} answered 429, {state.backoffs} "
        f"backoffs; the most requests in any one second: {busiest} (target ≤ {STORM_RPS + 1}); took "
        f"{wall:.1f} s, the limiter ended at {state.summary()}"
    ]


def main(argv: list[str]) -> int:
    n = int(argv[0]) if argv else 1000
    sample = int(argv[1]) if len(argv) > 1 else 100
    repeats = int(argv[2]) if len(argv) > 2 else 200
    storm_n = int(argv[3]) if len(argv) > 3 else 100
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
    if storm_n:
        lines += _storm(hn, storm_n)
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
