"""Figures in ``direct``'s Markdown (``web.extract.images``) vs Readability's and trafilatura's.

Run::

    python benchmarks/bench_extract_images.py [--rounds 5]

Mozilla Readability's test pages are the one corpus here whose expected output keeps a page's images
(``expected.html``: 420 images on 69 of 130 pages). Over those pages, with the URL Readability's tests
give them (``http://fakehost/test/page.html``, so relative addresses resolve alike), this counts:

- **placed**: distinct image addresses in the Markdown of ``convert(..., images=True)`` (``direct``)
  and of ``trafilatura.extract(..., output_format="markdown", include_images=True)``;
- **right**: those among ``expected.html``'s, addresses compared by path and query, percent-decoded;
  precision = right / placed, recall = right / expected;
- **formulas**: the expected images that draw a formula (inside an element ``formulas.py`` reads as
  TeX: Wikipedia's math fallbacks, 50 on the held-out half), which the Markdown holds as ``$…$``, not
  as an image; recall is also given without them;
- **text unchanged**: pages whose ``format="text"`` words are the same with and without images;
- **cost**: the time of converting every page with images against without, interleaved rounds, medians
  (the step is off by default, so the default's speed is not changed by it).

The placing rules were tuned on half of Readability's pages and are reported on the other half too
(``--split tune|heldout``): a page is in the tune half when the first byte of ``sha256`` of its folder
name (``"lwn-1"``, as UTF-8) is below 128.

The WCXB pages have no image ground truth; ``--corpus wcxb`` reports placed, text unchanged and cost.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import statistics
import time
from pathlib import Path
from urllib.parse import unquote

from bench_extract_quality import READABILITY, Page, corpus_pages, words

URL = "http://fakehost/test/page.html"
_IMAGE = re.compile(r"!\[(?:\\.|[^\]\\])*\]\(([^)\s]*)")


def _split_of(name: str) -> str:
    """``"tune"`` or ``"heldout"``: the half of Readability's pages a page's folder name puts it in."""
    return "tune" if hashlib.sha256(name.encode("utf-8")).digest()[0] < 128 else "heldout"


def _key(address: str) -> str:
    """An address by its path and query (scheme and host differ with the base a test resolves against)."""
    return unquote(address).split("://", 1)[-1].split("/", 1)[-1]


def _expected(name: str) -> set[str]:
    import lxml.html

    html = (READABILITY / name / "expected.html").read_text(encoding="utf-8", errors="replace")
    if not html.strip():
        return set()
    return {_key(img.get("src")) for img in lxml.html.fromstring(html).iter("img") if img.get("src")}


def _formula_images(page: Page) -> set[str]:
    """The addresses (as ``_key``) of the page's images inside a formula that the extraction reads as TeX."""
    from hermes_nb.web.extraction.formulas import FORMULA_ELEMENTS
    from hermes_nb.web.extraction.tree import parse_html

    root = parse_html(page.html)
    images = (img for el in root.xpath(FORMULA_ELEMENTS) for img in el.iter("img"))
    return {_key(img.get("src")) for img in images if img.get("src")}


def _convert(page: Page, url: str, images: bool, fmt: str = "markdown") -> str:
    from hermes_nb.web.content import convert

    return convert(page.html, "text/html; charset=utf-8", url=url, images=images, format=fmt).content


def _trafilatura(page: Page, url: str) -> str:
    import trafilatura

    return trafilatura.extract(page.html, url=url, output_format="markdown", include_images=True) or ""


def _cost(pages: list[Page], rounds: int) -> tuple[float, float]:
    times: dict[bool, list[float]] = {True: [], False: []}
    for r in range(rounds):
        for images in (True, False) if r % 2 == 0 else (False, True):
            start = time.perf_counter()
            for page in pages:
                _convert(page, page.url, images)
            times[images].append(time.perf_counter() - start)
    return statistics.median(times[True]), statistics.median(times[False])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", choices=("readability", "wcxb"), default="readability")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--split", choices=("tune", "heldout", "all"), default="all",
                        help="half of Readability's pages (see the module docstring)")
    args = parser.parse_args()
    pages = corpus_pages(args.corpus, "all" if args.corpus == "readability" else "heldout")
    if args.corpus == "readability" and args.split != "all":
        pages = [page for page in pages if _split_of(Path(page.name).name) == args.split]
    graded = args.corpus == "readability"
    totals = dict.fromkeys(
        ("expected", "direct", "direct_right", "trafilatura", "trafilatura_right", "formulas",
         "direct_formulas", "trafilatura_formulas"), 0
    )  # fmt: skip
    unchanged = 0
    for page in pages:
        url = URL if graded else page.url
        ours = {_key(a) for a in _IMAGE.findall(_convert(page, url, True))}
        same = words(_convert(page, url, True, "text")) == words(_convert(page, url, False, "text"))
        unchanged += same
        totals["direct"] += len(ours)
        if graded:
            want = _expected(Path(page.name).name)
            theirs = {_key(a) for a in _IMAGE.findall(_trafilatura(page, url))}
            totals["expected"] += len(want)
            totals["direct_right"] += len(ours & want)
            totals["trafilatura"] += len(theirs)
            totals["trafilatura_right"] += len(theirs & want)
            formulas = want & _formula_images(page)
            totals["formulas"] += len(formulas)
            totals["direct_formulas"] += len(ours & formulas)
            totals["trafilatura_formulas"] += len(theirs & formulas)
    print(f"{args.corpus} ({args.split}): {len(pages)} pages; text unchanged on {unchanged} of {len(pages)}")
    if graded:
        print(f"expected images: {totals['expected']}, of which formulas (read as TeX): {totals['formulas']}")
        for side in ("direct", "trafilatura"):
            placed, right = totals[side], totals[f"{side}_right"]
            other = right - totals[f"{side}_formulas"]
            print(f"{side:12} placed {placed:4}  right {right:4}  precision {right / max(1, placed):.3f}"
                  f"  recall {right / max(1, totals['expected']):.3f}"
                  f"  recall without formulas {other / max(1, totals['expected'] - totals['formulas']):.3f}")
    else:
        print(f"direct placed {totals['direct']} images")
    with_images, without = _cost(pages, args.rounds)
    print(f"conversion of all pages: {with_images:.2f} s with images, {without:.2f} s without "
          f"({100 * (with_images / without - 1):+.1f}%), medians of {args.rounds} interleaved rounds")


if __name__ == "__main__":
    main()
