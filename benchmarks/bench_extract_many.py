"""``hn.extract_many`` on many saved pages: pages per second converting in one process vs on every core.

    python benchmarks/bench_extract_many.py [--pages 500] [--rounds 3] [--concurrency 8] [--corpus wcxb]

The pages are generated (``bench_extract.make_page``: articles, docs with tables and code, forum
threads, news), or with ``--corpus wcxb`` the first ``--pages`` of WCXB's development pages
(``../shared/corpora/wcxb-dev``, sorted by file id); they are saved to a folder and served by a
loopback HTTP server in its own process. Each
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

from bench_extract import _batch_pages, _serve  # the sibling benchmark: page sources, loopback server


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument(
        "--corpus", default="generated", help="'generated' pages or 'wcxb' (WCXB's development pages)"
    )
    args = parser.parse_args()

    os.environ["HERMES_HOME"] = tempfile.mkdtemp(prefix="hermes_nb_bench_")
    import hermes_nb as hn

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as folder:
        pages = dict(list(_batch_pages(args.corpus, args.pages).items())[: args.pages])
        for name, html in pages.items():
            Path(folder, name).write_text(html, encoding="utf-8")
        server, base = _serve(folder)
        try:
            hn.config.set("security.allow_private_urls", True)
            urls = [f"{base}/{name}" for name in pages]

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
    rate_one = len(pages) / statistics.median(one)
    rate_every = len(pages) / statistics.median(every)
    print(
        f"| `extract_many` of {len(pages)} {args.corpus} pages, concurrency {args.concurrency}, "
        f"{args.rounds} rounds ({platform.machine()}, {cores} cores) | one process: {rate_one:.1f} pages/s "
        f"| every core: "
        f"{rate_every:.1f} pages/s | {rate_every / rate_one:.2f}× (target ≥ 2× on 2 cores, issue 25) |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
