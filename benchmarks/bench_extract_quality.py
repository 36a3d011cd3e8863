"""Extraction quality: token precision/recall/F1 of ``direct``'s HTML conversion vs trafilatura.

Run: ``python benchmarks/bench_extract_quality.py [--corpus DIR] [--pages N] [--worst 10]``.
The corpus is Mozilla Readability's test pages (``<page>/source.html`` + ``expected.html``, see
``/work/shared/corpora/README.md``). Each side's output text and the text of ``expected.html`` are
whitespace-normalised and split into lower-case word tokens; precision, recall and F1 count the
multiset overlap. The baseline is ``trafilatura.extract(html, output_format="markdown")``. Pages
where the baseline extracts nothing are scored but left out of the "worse by more than 0.05" check.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

DEFAULT_CORPUS = Path("/work/shared/corpora/readability-test-pages")
_TOKEN = re.compile(r"\w+", re.U)
_MD_LINK_URL = re.compile(r"\]\([^)]*\)")


def tokens(text: str) -> Counter[str]:
    """Lower-case word tokens of a text (Markdown link targets dropped)."""
    return Counter(t.lower() for t in _TOKEN.findall(_MD_LINK_URL.sub("]", text)))


def html_text(html: str) -> str:
    """Visible text of an HTML fragment."""
    import lxml.html

    if not html.strip():
        return ""
    root = lxml.html.fromstring(html)
    for bad in root.xpath("//script|//style"):
        bad.drop_tree()
    return re.sub(r"\s+", " ", root.text_content()).strip()


def prf(got: Counter[str], want: Counter[str]) -> tuple[float, float, float]:
    """Token precision, recall and F1 (1.0 each when both sides are empty)."""
    if not got and not want:
        return 1.0, 1.0, 1.0
    common = sum((got & want).values())
    p = common / sum(got.values()) if got else 0.0
    r = common / sum(want.values()) if want else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def ours(html: str, url: str) -> str:
    from hermes_nb.web.content import convert

    return convert(html, "text/html; charset=utf-8", url=url).content


def baseline(html: str, url: str) -> str:
    import trafilatura

    return trafilatura.extract(html, url=url, output_format="markdown") or ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--pages", type=int, default=0, help="first N pages only (0: all)")
    parser.add_argument("--worst", type=int, default=10, help="list the N pages where we trail most")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        sys.exit(f"corpus not found: {args.corpus}")
    pages = sorted(p for p in args.corpus.iterdir() if (p / "source.html").is_file())
    if args.pages:
        pages = pages[: args.pages]
    rows = []
    spent = {"ours": 0.0, "base": 0.0}
    for page in pages:
        html = (page / "source.html").read_text(encoding="utf-8", errors="replace")
        want = tokens(html_text((page / "expected.html").read_text(encoding="utf-8", errors="replace")))
        url = f"http://fakehost/{page.name}/"
        t0 = time.perf_counter()
        mine = ours(html, url)
        t1 = time.perf_counter()
        base = baseline(html, url)
        t2 = time.perf_counter()
        spent["ours"] += t1 - t0
        spent["base"] += t2 - t1
        rows.append((page.name, prf(tokens(mine), want), prf(tokens(base), want), bool(base.strip())))
    n = len(rows)

    def mean(side: int, k: int) -> float:
        return statistics.fmean(r[side][k] for r in rows)

    print(f"pages: {n} from {args.corpus}")
    print("| extractor | precision | recall | F1 (mean) | F1 (median) | seconds |")
    print("|---|---|---|---|---|---|")
    for label, side, key in (("hermes_nb direct", 1, "ours"), ("trafilatura.extract markdown", 2, "base")):
        med = statistics.median(r[side][2] for r in rows)
        print(
            f"| {label} | {mean(side, 0):.3f} | {mean(side, 1):.3f} | {mean(side, 2):.3f} | {med:.3f} "
            f"| {spent[key]:.1f} |"
        )
    diffs = sorted(((r[1][2] - r[2][2]), r[0]) for r in rows if r[3])
    behind = [(d, name) for d, name in diffs if d < -0.05]
    print(
        f"pages where trafilatura extracts something: {len(diffs)}; "
        f"ours better on {sum(d > 0.005 for d, _ in diffs)}, worse on {sum(d < -0.005 for d, _ in diffs)}, "
        f"worse by > 0.05 on {len(behind)}"
    )
    for d, name in diffs[: args.worst]:
        print(f"  {name:40s} ΔF1 {d:+.3f}")


if __name__ == "__main__":
    main()
