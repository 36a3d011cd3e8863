"""Markdown structure of ``direct``'s readings vs ``trafilatura.extract``'s own Markdown, side by side.

Run::

    python benchmarks/bench_extract_markdown.py [--corpus wcxb|readability|both] [--split tune|heldout|all]
        [--jobs 2]

Word F1 (``bench_extract_quality.py``) cannot see structure: a code listing run into a paragraph, a
table read as a paragraph of pipes or an article rendered as one long heading score the same words.
This benchmark renders each reading's Markdown as a notebook would (CommonMark with tables,
``markdown-it``) and counts, over the pages of a corpus:

- **code read as code**: of the page's ``<pre>`` blocks (three words or more) whose words the reading
  holds, the share whose first line is inside a rendered ``<pre>``;
- **tables read as tables**: of the page's data tables (three rows or more, two cells or more, no
  nested table) whose cells the reading holds (80 % of them), the share rendered as a ``<table>``
  holding 80 % of those cells;
- **words misrendered as code**: words in rendered ``<pre>`` blocks that are in none of the page's
  ``<pre>`` or ``<code>`` elements (text indented into an indented code block, or a fence that
  opened in the wrong place), per 1,000 words read;
- **run-in headings**: rendered headings of more than 25 words (a heading that swallowed the
  paragraph after it).

Both systems read the same HTML: ``convert(html, url=url)`` (Markdown, the default format) and
``trafilatura.extract(html, url=url, output_format="markdown", include_formatting=True,
include_tables=True)``. Corpora and the WCXB split as in ``bench_extract_quality.py``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bench_extract_quality import READABILITY, WCXB, Page, readability_pages, wcxb_pages, words

LONG_HEADING_WORDS = 25
HELD = 0.8  # share of a table's cells a reading must hold (and a rendered table keep)
SIDES = ("direct", "trafilatura")


def ours(page: Page) -> str:
    from hermes_nb.web.content import convert

    return convert(page.html, "text/html; charset=utf-8", url=page.url).content


def baseline(page: Page) -> str:
    import trafilatura

    found = trafilatura.extract(
        page.html, url=page.url, output_format="markdown", include_formatting=True, include_tables=True
    )
    return found or ""


def _joined(text: str) -> str:
    return " " + " ".join(words(text)) + " "


def _page_parts(html: str) -> tuple[list[str], list[list[str]], set[str]]:
    """The page's ``<pre>`` texts, its data tables' cell texts, and the words of its code."""
    from lxml import html as lxml_html

    try:
        root = lxml_html.fromstring(html)
    except (ValueError, TypeError, lxml_html.etree.ParserError):
        return [], [], set()
    pres = [el.text_content() for el in root.iter("pre") if len(el.text_content().split()) >= 3]
    tables = []
    for table in root.iter("table"):
        rows = table.xpath(".//tr")
        if len(rows) < 3 or table.xpath(".//table") or len(rows[0].xpath("./td|./th")) < 2:
            continue
        cells = [" ".join(c.text_content().split()) for r in rows for c in r.xpath("./td|./th")]
        cells = [c for c in cells if words(c)]
        if len(cells) >= 4:
            tables.append(cells)
    code_words = {w for el in root.iter("pre", "code") for w in words(el.text_content())}
    return pres, tables, code_words


def measure(page: Page) -> dict[str, Any]:
    """Both systems' structure counts on one page."""
    from lxml import html as lxml_html

    from hermes_nb.web.extraction.formats import markdown_to_html

    pres, tables, code_words = _page_parts(page.html)
    row: dict[str, Any] = {}
    runs: tuple[tuple[str, Callable[[Page], str]], ...] = (("direct", ours), ("trafilatura", baseline))
    for side, run in runs:
        markdown = run(page)
        rendered = lxml_html.fromstring(f"<div>{markdown_to_html(markdown)}</div>")
        read = _joined(rendered.text_content())
        in_pre = _joined(" \n ".join(el.text_content() for el in rendered.iter("pre")))
        code_read = code_kept = 0
        for pre in pres:
            first = next((line for line in pre.split("\n") if len(words(line)) >= 2), "")
            if first and _joined(first) in read:
                code_read += 1
                code_kept += _joined(first) in in_pre
        table_read = table_kept = 0
        rendered_tables = [_joined(t.text_content()) for t in rendered.iter("table")]
        for cells in tables:
            keys = [_joined(c) for c in cells]
            if sum(k in read for k in keys) < HELD * len(keys):
                continue
            table_read += 1
            table_kept += any(sum(k in t for k in keys) >= HELD * len(keys) for t in rendered_tables)
        pre_words = [w for el in rendered.iter("pre") for w in words(el.text_content())]
        row[side] = {
            "code_read": code_read,
            "code_kept": code_kept,
            "table_read": table_read,
            "table_kept": table_kept,
            "misrendered": sum(w not in code_words for w in pre_words),
            "words": len(words(markdown)),
            "long_headings": sum(
                len(words(h.text_content())) > LONG_HEADING_WORDS
                for h in rendered.iter("h1", "h2", "h3", "h4", "h5", "h6")
            ),
        }
    return row


def report(corpus: str, rows: list[dict[str, Any]]) -> None:
    print(f"\n{corpus}: {len(rows)} pages")
    print(f"{'':30} {'direct':>22} {'trafilatura':>22}")

    def total(side: str, key: str) -> int:
        return sum(int(r[side][key]) for r in rows)

    def share(side: str, kept: str, read: str) -> str:
        n = total(side, read)
        return f"{total(side, kept) / n:.1%} of {n}" if n else "-"

    def per_thousand(side: str) -> str:
        return f"{1000 * total(side, 'misrendered') / max(1, total(side, 'words')):.1f} per 1,000"

    lines = [
        ("code read as code", lambda s: share(s, "code_kept", "code_read")),
        ("tables read as tables", lambda s: share(s, "table_kept", "table_read")),
        ("words misrendered as code", per_thousand),
        ("pages with any", lambda s: str(sum(1 for r in rows if r[s]["misrendered"]))),
        ("run-in headings (> 25 words)", lambda s: str(total(s, "long_headings"))),
    ]
    for label, value in lines:
        print(f"{label:30} {value(SIDES[0]):>22} {value(SIDES[1]):>22}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=("wcxb", "readability", "both"), default="both")
    parser.add_argument("--split", choices=("tune", "heldout", "all"), default="heldout")
    parser.add_argument("--jobs", type=int, default=1, help="pages measured in this many processes")
    args = parser.parse_args()
    for corpus in ["wcxb", "readability"] if args.corpus == "both" else [args.corpus]:
        if not (WCXB if corpus == "wcxb" else READABILITY).is_dir():
            sys.exit(f"corpus not found: {WCXB if corpus == 'wcxb' else READABILITY}")
        pages = list(wcxb_pages(args.split) if corpus == "wcxb" else readability_pages())
        if args.jobs > 1:
            with ProcessPoolExecutor(args.jobs) as pool:
                rows = list(pool.map(measure, pages, chunksize=4))
        else:
            rows = [measure(p) for p in pages]
        report(corpus + (f" ({args.split})" if corpus == "wcxb" else ""), rows)


if __name__ == "__main__":
    main()
