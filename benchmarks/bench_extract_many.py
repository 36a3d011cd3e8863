"""``hn.extract_many`` on many saved pages: pages per second converting in one process vs on every core.

    python benchmarks/bench_extract_many.py [--pages 500] [--rounds 3] [--concurrency 8]

The pages are generated (``bench_extract.make_page``: articles, docs with tables and code, forum
threads, news), saved to a folder and served by a loopback HTTP server in its own process. Each
round runs ``extract_many`` over all of them twice, alternating: once with
``web.extract.processes = 1`` (every page converted in the calling process, the baseline) and once
with the default (one worker process per core). Prints a Markdown row for benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_extract import _serve, make_page  # the sibling benchmark: page generator, loopback server


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()

    os.environ["HERMES_HOME"] = tempfile.mkdtemp(prefix="hermes_nb_bench_")
    import hermes_nb as hn

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as folder:
        for i in range(args.pages):
            Path(folder, f"page{i}.html").write_text(make_page(i), encoding="utf-8")
        server, base = _serve(folder)
        try:
            hn.config.set("security.allow_private_urls", True)
            urls = [f"{base}/page{i}.html" for i in range(args.pages)]

            def run(processes: int) -> float:
                hn.config.set("web.extract.processes", processes)
                start = time.perf_counter()
                rows = hn.extract_many(
                    urls, backend="direct", concurrency=args.concurrency, no_cache=True, progress=False
                )
                spent = time.perf_counter() - start
                failed = [r for r in rows if not getattr(r, "pages", None) or r.pages[0].error]
                assert not failed, f"{len(failed)} pages failed, e.g. {failed[0]!r}"
                return spent

            run(0)  # warm: worker processes, imports, connections
            run(1)
            one, every = [], []
            for r in range(args.rounds):
                for processes, times in ((1, one), (0, every)) if r % 2 == 0 else ((0, every), (1, one)):
                    times.append(run(processes))
        finally:
            server.terminate()
            server.wait()
    rate_one = args.pages / statistics.median(one)
    rate_every = args.pages / statistics.median(every)
    print(
        f"| `extract_many` of {args.pages} saved pages, concurrency {args.concurrency}, {args.rounds} rounds "
        f"({platform.machine()}, {cores} cores) | one process: {rate_one:.1f} pages/s | every core: "
        f"{rate_every:.1f} pages/s | {rate_every / rate_one:.2f}× (target ≥ 1.7× on 2 cores) |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
