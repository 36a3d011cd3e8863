"""HTML → Markdown throughput on one core: hermes_nb's pipeline vs ``trafilatura.extract`` directly.

Run: ``python benchmarks/bench_extract.py [--pages 40] [--rounds 5]``; the whole fetch-and-extract of a
batch through ``hn.extract([...])`` (pages served from a loopback server in another process) against
``trafilatura.extract(markdown)`` on the same HTML: ``python benchmarks/bench_extract.py --batch
[--cores 1|0] [--corpus DIR]`` (``--cores 0``: every core; the corpus defaults to Readability's test
pages when present, else the generated pages). The pages are generated
deterministically (long articles, docs pages with tables and code, forum-like threads, short news),
~2-40 KB each. Every side sees the same pages; rounds interleave the sides so drift in machine load
hits all of them. Two baselines: ``trafilatura.extract(output_format="markdown")`` (Markdown only,
no metadata: the strict target, less work than ours) and the same with ``with_metadata=True`` (the
same output as ours, but trafilatura also computes a simhash fingerprint we do not need).
"""

from __future__ import annotations

import argparse
import html
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORDS = [
    "data",
    "model",
    "notebook",
    "python",
    "search",
    "image",
    "kernel",
    "provider",
    "plugin",
    "query",
    "result",
    "cache",
    "store",
    "vector",
    "graph",
    "signal",
    "latency",
    "crawler",
    "archive",
    "index",
    "token",
    "budget",
    "cluster",
    "pipeline",
    "schema",
    "table",
    "column",
    "widget",
    "render",
    "review",
    "sample",
    "metric",
    "feature",
    "test",
    "record",
    "batch",
    "stream",
    "the",
    "of",
    "and",
    "a",
    "to",
    "in",
    "is",
    "that",
    "for",
    "it",
    "as",
    "with",
]


def _sentence(rng: random.Random, n: int) -> str:
    words = [rng.choice(WORDS) for _ in range(n)]
    return html.escape(" ".join(words).capitalize() + ".")


def _paragraphs(rng: random.Random, count: int) -> str:
    return "\n".join(
        f"<p>{' '.join(_sentence(rng, rng.randint(8, 25)) for _ in range(rng.randint(2, 6)))}</p>"
        for _ in range(count)
    )


def make_page(i: int) -> str:
    """One realistic page: boilerplate (nav, sidebar, footer, scripts) around a varied main body."""
    rng = random.Random(i)
    kind = i % 4
    title = _sentence(rng, 6).rstrip(".")
    nav = "".join(f'<li><a href="/section/{k}">{rng.choice(WORDS)}</a></li>' for k in range(12))
    aside = "".join(f'<li><a href="/related/{k}.html">{_sentence(rng, 5)}</a></li>' for k in range(8))
    scripts = "".join(f'<script src="/static/chunk{k}.js"></script>' for k in range(rng.randint(1, 6)))
    if kind == 0:  # long article
        body = "".join(
            f"<h2>{_sentence(rng, 4)}</h2>{_paragraphs(rng, rng.randint(3, 8))}"
            for _ in range(rng.randint(2, 12))
        )
    elif kind == 1:  # documentation with a table, lists and code
        rows = "".join(
            "<tr>" + "".join(f"<td>{rng.choice(WORDS)}</td>" for _ in range(5)) + "</tr>" for _ in range(30)
        )
        items = "".join(f"<li>{_sentence(rng, 10)}</li>" for _ in range(15))
        body = (
            f"{_paragraphs(rng, 4)}<table><tr>{'<th>col</th>' * 5}</tr>{rows}</table>"
            f"<ul>{items}</ul><pre><code>def f(x):\n    return x * 2\n</code></pre>{_paragraphs(rng, 5)}"
        )
    elif kind == 2:  # forum-like thread of posts
        body = "".join(
            f'<div class="post"><span class="author">{rng.choice(WORDS)}</span>{_paragraphs(rng, 2)}</div>'
            for _ in range(rng.randint(5, 40))
        )
    else:  # short news item
        body = _paragraphs(rng, rng.randint(1, 3))
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f'<meta name="author" content="Author {i}"><meta property="article:published_time" '
        f'content="2024-{1 + i % 12:02d}-{1 + i % 28:02d}">{scripts}<style>body{{margin:0}}</style></head>'
        f"<body><header><nav><ul>{nav}</ul></nav></header><main><article><h1>{title}</h1>{body}"
        f"</article></main><aside><ul>{aside}</ul></aside><footer><p>Copyright {i} Example Corp. "
        f"All rights reserved.</p></footer></body></html>"
    )


def _ours(pages: list[str]) -> float:
    from hermes_nb.web.content import convert

    start = time.perf_counter()
    for n, page in enumerate(pages):
        convert(
            page.encode("utf-8"), "text/html; charset=utf-8", url=f"https://example.org/{n}", charset="utf-8"
        )
    return time.perf_counter() - start


def _baseline(pages: list[str], with_metadata: bool = False) -> float:
    import trafilatura

    start = time.perf_counter()
    for n, page in enumerate(pages):
        trafilatura.extract(
            page.encode("utf-8").decode("utf-8"),
            url=f"https://example.org/{n}",
            output_format="markdown",
            with_metadata=with_metadata,
            include_comments=False,
        )
    return time.perf_counter() - start


def _same_call(pages: list[str]) -> float:
    """The exact trafilatura call our pipeline makes, alone: what we add on top is the overhead."""
    import trafilatura

    start = time.perf_counter()
    for n, page in enumerate(pages):
        trafilatura.bare_extraction(
            page.encode("utf-8").decode("utf-8"),
            url=f"https://example.org/{n}",
            with_metadata=True,
            include_formatting=True,
            include_comments=False,
            include_tables=True,
        )
    return time.perf_counter() - start


CORPUS = "/work/shared/corpora/readability-test-pages"


def _serve(folder: str) -> tuple[subprocess.Popen[bytes], str]:
    """A loopback HTTP server for ``folder`` in its own process; returns it and its base URL."""
    code = (
        "import functools, http.server, sys\n"
        "class Quiet(http.server.SimpleHTTPRequestHandler):\n"
        "    def log_message(self, *a): pass\n"
        "h = functools.partial(Quiet, directory=sys.argv[1])\n"
        "s = http.server.ThreadingHTTPServer(('127.0.0.1', 0), h)\n"
        "print(s.server_address[1], flush=True)\n"
        "s.serve_forever()\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code, folder], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    port = int(proc.stdout.readline())
    return proc, f"http://127.0.0.1:{port}"


def _batch_pages(corpus: str, count: int) -> dict[str, str]:
    """``{file name: html}``: the corpus's source pages, or generated pages when it is absent."""
    if corpus in ("wcxb", "wcxb-heldout"):  # WCXB's development pages (the held-out part, or all)
        import gzip

        from bench_extract_quality import WCXB, split_of

        files = sorted((WCXB / "html").glob("*.html.gz"))
        return {
            f"{f.name[:-3]}": gzip.decompress(f.read_bytes()).decode("utf-8", "replace")
            for f in files
            if corpus == "wcxb" or split_of(f.name.split(".")[0]) == "heldout"
        }
    root = Path(CORPUS if corpus == "readability" else corpus)
    if root.is_dir():
        found = sorted(p for p in root.iterdir() if (p / "source.html").is_file())
        return {f"{p.name}.html": (p / "source.html").read_text("utf-8", errors="replace") for p in found}
    if str(root) != CORPUS:  # a corpus asked for by name and absent is an error, not generated pages
        raise SystemExit(f"--corpus {corpus}: no such folder; give a folder of <page>/source.html, "
                         "'readability', 'wcxb' or 'wcxb-heldout'")
    print(f"Readability's test pages are not at {CORPUS}: {count} generated pages instead")
    return {f"page{i}.html": make_page(i) for i in range(count)}


def batch(args: argparse.Namespace) -> None:
    """Fetch-and-extract through ``hn.extract`` vs ``trafilatura.extract`` on the same HTML, same run."""
    import trafilatura

    import hermes_nb as hn

    if args.cores and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, set(sorted(os.sched_getaffinity(0))[: args.cores]))
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    pages = _batch_pages(args.corpus, args.pages)
    with tempfile.TemporaryDirectory() as folder:
        for name, page in pages.items():
            Path(folder, name).write_text(page, encoding="utf-8")
        server, base = _serve(folder)
        try:
            hn.config.set("security.allow_private_urls", True)
            hn.config.set("web.max_retries", 0)
            hn.config.set("web.deadline", 900)  # one call converts hundreds of pages on a loaded machine
            urls = [f"{base}/{name}" for name in pages]
            texts = [Path(folder, name).read_text(encoding="utf-8") for name in pages]

            def ours() -> float:
                start = time.perf_counter()
                res = hn.extract(urls, backend="direct", no_cache=True)
                spent = time.perf_counter() - start
                failed = [p.url for p in res.pages if getattr(p, "error", None)]
                assert not failed, f"pages failed: {failed[:3]}"
                return spent

            def base_side() -> float:
                start = time.perf_counter()
                for text in texts:
                    trafilatura.extract(text, output_format=args.baseline_format)
                return time.perf_counter() - start

            ours()  # warm: worker processes, imports, connection pool
            base_side()
            times: dict[str, list[float]] = {"ours": [], "base": []}
            for r in range(args.rounds):
                for name, side in ((("ours", ours), ("base", base_side)) if r % 2 == 0
                                   else (("base", base_side), ("ours", ours))):
                    times[name].append(side())
        finally:
            server.terminate()
            server.wait()
    med = {k: statistics.median(v) for k, v in times.items()}
    ratio = med["base"] / med["ours"]
    size_kb = sum(len(t) for t in pages.values()) / 1024
    print(f"pages: {len(pages)} ({size_kb:.0f} KB), rounds: {args.rounds}, cores: {cores}")
    print(f"hn.extract(batch, direct) fetch+extract : {len(pages) / med['ours']:7.1f} pages/s")
    print(f"trafilatura.extract {args.baseline_format} (no fetch) : {len(pages) / med['base']:7.1f} pages/s")
    print(f"speed ratio (ours / trafilatura)         : {ratio:.2f} (target >= 1.0)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--batch", action="store_true", help="fetch-and-extract through hn.extract")
    parser.add_argument("--cores", type=int, default=0, help="with --batch: cores to use (0: all)")
    parser.add_argument("--corpus", default=CORPUS, help="with --batch: folder of <page>/source.html, "
                        "'readability' (Readability's test pages, the default) or 'wcxb' / 'wcxb-heldout' "
                        "(WCXB's development pages, all or the held-out part)")
    parser.add_argument("--baseline-format", default="markdown", choices=("markdown", "txt"),
                        help="with --batch: trafilatura.extract's output_format")
    args = parser.parse_args()
    if args.batch:
        batch(args)
        return
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, as the target says
    pages = [make_page(i) for i in range(args.pages)]
    size_kb = sum(len(p) for p in pages) / 1024
    _ours(pages[:3])
    _baseline(pages[:3])  # warm imports and caches on both sides
    sides = {
        "ours": lambda: _ours(pages),
        "plain": lambda: _baseline(pages),
        "meta": lambda: _baseline(pages, with_metadata=True),
        "same": lambda: _same_call(pages),
    }
    times: dict[str, list[float]] = {name: [] for name in sides}
    order = list(sides)
    for r in range(args.rounds):
        for name in order[r % len(order) :] + order[: r % len(order)]:  # rotate who goes first
            times[name].append(sides[name]())
    med = {name: statistics.median(values) for name, values in times.items()}
    pps = {name: len(pages) / value for name, value in med.items()}
    ratio = med["ours"] / med["plain"]
    print(f"pages: {len(pages)} ({size_kb:.0f} KB total), rounds: {args.rounds}, one core")
    print(f"hermes_nb content.convert                  : {pps['ours']:7.1f} pages/s (median of rounds)")
    print(f"trafilatura.extract markdown               : {pps['plain']:7.1f} pages/s")
    print(f"trafilatura.extract markdown+with_metadata : {pps['meta']:7.1f} pages/s")
    print(f"overhead ratio vs plain extract            : {ratio:.3f} (target <= 1.10)")
    print(f"trafilatura.bare_extraction (our call)     : {pps['same']:7.1f} pages/s")
    print(f"overhead ratio vs extract with metadata    : {med['ours'] / med['meta']:.3f}")
    print(f"overhead ratio vs the same bare_extraction : {med['ours'] / med['same']:.3f}")
    print(
        f"| HTML → Markdown extraction (bench_extract.py, {len(pages)} pages, 1 core) | "
        f"{pps['ours']:.1f} pages/s | trafilatura.extract {pps['plain']:.1f} pages/s "
        f"(with metadata {pps['meta']:.1f}; our bare_extraction call alone {pps['same']:.1f}) | "
        f"ratio {ratio:.2f} vs plain extract, {med['ours'] / med['meta']:.2f} vs extract+metadata, "
        f"{med['ours'] / med['same']:.2f} vs the same call |"
    )


if __name__ == "__main__":
    main()
