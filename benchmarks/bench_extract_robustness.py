"""Extraction on damaged pages: every page of both corpora cut short, holed, mis-decoded and mangled.

Run::

    python benchmarks/bench_extract_robustness.py [--corpus wcxb|readability|both] [--pages N] [--jobs 2]

Real downloads arrive damaged: cut off mid-page (a dropped connection, a size cap), with a stretch
missing, decoded with the wrong charset, or written by a generator that leaves brackets unbalanced.
For each page of the corpora (``bench_extract_quality.py``'s), this converts the page itself and five
damaged copies of it, chosen from the page's id so that every run sees the same ones:

- ``cut`` (three copies): the page up to a random offset;
- ``hole``: a random stretch of up to 5,000 characters taken out;
- ``mojibake``: the page's UTF-8 bytes read as windows-1252 (a server that declared the wrong charset);
- ``brackets``: the page's first 50 ``>`` taken out (tags that run into their neighbours).

It counts, per damage: conversions that raised (any exception, each listed with the page) or in
which a step failed (``convert`` then degrades the page to its visible text and says so in
``parse_warning``, which would otherwise hide the fault), slow ones
(over ``SLOW`` seconds; the time of the longest), and readings holding a line that is wholly an HTML
tag with attributes outside code (``<img src=... />``): markup passed off as text. A damaged page may
read worse; it must still read, fast, as text. Runs outside CI, on the corpora in ``/work/shared``.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import time
import traceback
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor

import bench_extract_quality as quality

SLOW = 5.0  # seconds: a conversion longer than this counts as slow
DAMAGES = ("whole", "cut", "hole", "mojibake", "brackets")
_FENCE = re.compile(r"^```.*?^```", re.S | re.M)
_TAG_LINE = re.compile(r"^\s*(?:\\?<\\?/?[A-Za-z][\w-]*(?:\s+[^<>]*)?/?>\s*)+$")
_ATTRIBUTE = re.compile(r"<\\?/?[A-Za-z][\w-]*\s+[\w-]+\s*=")


def damaged(html: str, seed: str) -> list[tuple[str, str]]:
    """The page and its damaged copies, ``(damage, html)``; the same for the same ``seed``."""
    rng = random.Random(seed)
    n = max(1, len(html))
    copies = [("whole", html)] + [("cut", html[: rng.randrange(n)]) for _ in range(3)]
    start = rng.randrange(n)
    copies.append(("hole", html[:start] + html[start + rng.randrange(1, 5001):]))
    copies.append(("mojibake", html.encode("utf-8").decode("windows-1252", errors="replace")))
    copies.append(("brackets", html.replace(">", "", 50)))
    return copies


def markup_lines(markdown: str) -> list[str]:
    """Lines outside code fences that are wholly tags, one of them with an attribute."""
    prose = _FENCE.sub("", markdown)
    return [line for line in prose.split("\n") if _TAG_LINE.match(line) and _ATTRIBUTE.search(line)]


def _run(page: quality.Page) -> list[dict[str, object]]:
    from hermes_nb.web.content import convert

    rows: list[dict[str, object]] = []
    for damage, html in damaged(page.html, page.name):
        row: dict[str, object] = {"page": page.name, "damage": damage}
        start = time.perf_counter()
        try:
            doc = convert(html, "text/html", url=page.url)
        except Exception as exc:  # the benchmark counts every kind of failure
            row["error"] = "".join(traceback.format_exception_only(type(exc), exc)).strip()[:300]
        else:
            row["markup"] = markup_lines(doc.content)[:3]
            warning = str(doc.metadata.get("parse_warning", ""))
            if "failed (" in warning:  # a step raised and the page was kept as its visible text
                row["error"] = warning
        row["seconds"] = time.perf_counter() - start
        rows.append(row)
    return rows


def report(rows: list[dict[str, object]]) -> None:
    by_damage: dict[str, list[dict[str, object]]] = defaultdict(list)
    for row in rows:
        by_damage[str(row["damage"])].append(row)
    print(f"{'damage':10} {'pages':>6} {'errors':>6} {'slow':>5} {'markup':>6} {'median s':>9} {'max s':>7}")
    for damage in DAMAGES:
        group = by_damage.get(damage, [])
        if not group:
            continue
        seconds = [float(str(r["seconds"])) for r in group]
        errors = sum(1 for r in group if "error" in r)
        slow = sum(1 for s in seconds if s > SLOW)
        markup = sum(1 for r in group if r.get("markup"))
        print(
            f"{damage:10} {len(group):6d} {errors:6d} {slow:5d} {markup:6d} "
            f"{statistics.median(seconds):9.3f} {max(seconds):7.2f}"
        )
    for row in rows:
        if "error" in row:
            print(f"  error  {row['page']} {row['damage']}: {row['error']}")
        if row.get("markup"):
            print(f"  markup {row['page']} {row['damage']}: {str(row['markup'])[:160]}")
        if float(str(row["seconds"])) > SLOW:
            print(f"  slow   {row['page']} {row['damage']}: {float(str(row['seconds'])):.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--corpus", choices=("wcxb", "readability", "both"), default="both")
    parser.add_argument("--pages", type=int, default=0, help="only the first N pages of each corpus")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    corpora = ("wcxb", "readability") if args.corpus == "both" else (args.corpus,)
    pages = []
    for corpus in corpora:
        found = quality.corpus_pages(corpus, "all")
        pages += found[: args.pages] if args.pages else found
    started = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        rows = [row for page_rows in pool.map(_run, pages, chunksize=4) for row in page_rows]
    elapsed = time.perf_counter() - started
    print(f"{len(pages)} pages, {len(rows)} conversions, {elapsed:.0f} s, {args.jobs} jobs")
    report(rows)


if __name__ == "__main__":
    main()
