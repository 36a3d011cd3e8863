"""Links in ``direct``'s Markdown vs the links ``trafilatura.extract(..., include_links=True)`` keeps.

Run::

    python benchmarks/bench_extract_links.py [--corpus wcxb|readability|both] [--split tune|heldout|all]
        [--jobs 2]

``direct`` reads a page without its links and puts them back on the words the reading kept
(``hermes_nb/web/extraction/hyperlinks.py``); trafilatura can keep them while it reads. Over the
pages of a corpus, both systems' Markdown of the same HTML, this counts:

- **links**: distinct (words, target) pairs in the Markdown;
- **shared**: pairs both systems hold (targets compared percent-decoded);
- **targets a browser follows**: the share of a system's link targets that are one of the page's own
  ``href`` values resolved as a browser resolves them (against the page's address and its
  ``<base>``): a target that is not is a link to somewhere the page never pointed;
- **text unchanged**: pages whose ``format="text"`` reading is word for word what it is with the
  links step skipped (the links may add no word and lose none).

Corpora and the WCXB split as in ``bench_extract_quality.py``.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from typing import Any
from urllib.parse import unquote, urljoin

from bench_extract_quality import Page, corpus_pages

#: A Markdown link: its words (no bracket) and its target (one level of parentheses).
_LINK = re.compile(r"(?<!!)\[([^\]]*)\]\(((?:[^()\s]|\([^()\s]*\))*)\)")
SIDES = ("direct", "trafilatura")


def _pairs(markdown: str) -> set[tuple[str, str]]:
    from hermes_nb.web.extraction.formats import markdown_to_text

    return {(" ".join(markdown_to_text(m[1]).split()), unquote(m[2])) for m in _LINK.finditer(markdown)}


def _page_targets(page: Page) -> set[str]:
    from hermes_nb.web.extraction.tree import document_base, parse_html

    root = parse_html(page.html)
    if root is None:
        return set()
    base = document_base(root, page.url)
    targets = set()
    for href in root.xpath("//a/@href"):
        try:
            targets.add(unquote(urljoin(base, str(href).strip())))
        except ValueError:
            continue
    return targets


def measure(page: Page) -> dict[str, Any]:
    import trafilatura

    import hermes_nb.web.extraction.pipeline as pipeline
    from hermes_nb.web.content import convert
    from hermes_nb.web.extraction.formats import render

    ours = convert(page.html, "text/html; charset=utf-8", url=page.url).content
    keep = pipeline.link_words
    pipeline.link_words = lambda markdown, root, url: (markdown, 0)  # the reading without the step
    try:
        unlinked = convert(page.html, "text/html; charset=utf-8", url=page.url).content
    finally:
        pipeline.link_words = keep
    theirs = trafilatura.extract(
        page.html, url=page.url, output_format="markdown", include_links=True, include_formatting=True,
        include_tables=True,
    ) or ""
    targets = _page_targets(page)
    row: dict[str, Any] = {"unchanged": render(ours, "text").split() == render(unlinked, "text").split()}
    pairs = {"direct": _pairs(ours), "trafilatura": _pairs(theirs)}
    for side in SIDES:
        row[side] = len(pairs[side])
        row[f"{side}_followed"] = sum(1 for _, target in pairs[side] if target in targets)
    row["shared"] = len(pairs["direct"] & pairs["trafilatura"])
    return row


def report(corpus: str, pages: list[Page], rows: list[dict[str, Any]]) -> None:
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for page, row in zip(pages, rows, strict=True):
        by_type["all"].append(row)
        if corpus == "wcxb":
            by_type[page.page_type].append(row)
    print(f"\n{corpus}: {len(pages)} pages")
    print(f"{'':16}{'links direct':>14}{'trafilatura':>13}{'shared':>9}{'followed direct':>17}"
          f"{'trafilatura':>13}{'text unchanged':>16}")
    for kind in ["all", *sorted(k for k in by_type if k != "all")]:
        group = by_type[kind]
        total = {side: sum(r[side] for r in group) for side in SIDES}
        followed = {side: sum(r[f"{side}_followed"] for r in group) / max(1, total[side]) for side in SIDES}
        unchanged = sum(r["unchanged"] for r in group)
        shared = sum(r["shared"] for r in group)
        print(f"{kind:16}{total['direct']:>14,}{total['trafilatura']:>13,}{shared:>9,}"
              f"{followed['direct']:>16.1%}{followed['trafilatura']:>13.1%}{unchanged:>10} of {len(group)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", choices=("wcxb", "readability", "both"), default="wcxb")
    parser.add_argument("--split", choices=("tune", "heldout", "all"), default="heldout")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    corpora = ("wcxb", "readability") if args.corpus == "both" else (args.corpus,)
    for corpus in corpora:
        pages = corpus_pages(corpus, args.split)
        with ProcessPoolExecutor(args.jobs) as pool:
            rows = list(pool.map(measure, pages, chunksize=4))
        report(corpus, pages, rows)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
