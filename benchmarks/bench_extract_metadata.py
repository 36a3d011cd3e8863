"""Page metadata: the title, author and date ``direct`` reads vs trafilatura's metadata, side by side.

Run::

    python benchmarks/bench_extract_metadata.py [--corpus wcxb|readability|both] [--split tune|heldout|all]
        [--jobs 2]

The corpora and WCXB's fixed tune / held-out split are ``bench_extract_quality.py``'s. Each field is
right or wrong per page:

- ``title``: the same ``\\w+`` words, lower-cased, as the reference's title.
- ``author``: where the reference names an author, the same words; where it names none (WCXB's
  ``author`` is null), naming none.
- ``date``: where the reference has a publication date, the same day (the first ``YYYY-MM-DD`` of
  the value); where it has none, none.

WCXB's references give all three for every page (``ground_truth.title`` / ``author`` /
``publish_date``; the title is the headline the page shows, without the site's name). Readability's
``expected-metadata.json`` gives ``title``, ``byline`` and ``publishedTime`` where the page has them,
and nothing where it does not, so only the pages with a value are scored there; its titles are the
title the page declares, site name and all.

``direct`` is read from ``hermes_nb.web.content.convert(html, ..., url=...)`` (``Document.title``,
``metadata["author"]``, ``metadata["date"]``); the baseline is ``trafilatura.extract_metadata(html,
default_url=url)`` (its title, author and date) on the same HTML in the same run.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor

from bench_extract_quality import READABILITY, WCXB, Page, corpus_pages, words

FIELDS = ("title", "author", "date")
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def reference(page: Page) -> dict[str, str | None]:
    """The page's reference values; ``None`` where the corpus says nothing about the field."""
    if page.corpus == "wcxb":
        truth = json.loads((WCXB / "ground-truth" / f"{page.name}.json").read_text(encoding="utf-8"))
        got = truth["ground_truth"]
        return {"title": got.get("title") or "", "author": got.get("author") or "",
                "date": got.get("publish_date") or ""}
    path = READABILITY / page.name / "expected-metadata.json"
    expected = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    return {"title": expected.get("title") or None, "author": expected.get("byline") or None,
            "date": expected.get("publishedTime") or None}


def ours(page: Page) -> dict[str, str]:
    from hermes_nb.web.content import convert

    doc = convert(page.html, "text/html; charset=utf-8", url=page.url)
    return {"title": doc.title, "author": str(doc.metadata.get("author") or ""),
            "date": str(doc.metadata.get("date") or "")}


def baseline(page: Page) -> dict[str, str]:
    import trafilatura

    found = trafilatura.extract_metadata(page.html, default_url=page.url)
    if found is None:
        return {field: "" for field in FIELDS}
    return {"title": found.title or "", "author": found.author or "", "date": found.date or ""}


def right(field: str, want: str, have: str) -> bool:
    """One field of one page read right (see the module docstring)."""
    if not want:
        return not have.strip()
    if field == "date":
        found = _DAY.search(have)
        return found is not None and found.group(0) == want[:10]
    return words(have) == words(want)


def score(page: Page) -> dict[str, object]:
    want = reference(page)
    row: dict[str, object] = {"name": page.name, "type": page.page_type}
    for side, read in (("ours", ours), ("base", baseline)):
        have = read(page)
        for field in FIELDS:
            if want[field] is not None:
                row[f"{side}_{field}"] = right(field, str(want[field]), have[field])
                row[f"has_{field}"] = bool(want[field])
    return row


def report(corpus: str, rows: list[dict[str, object]]) -> None:
    groups: dict[str, list[dict[str, object]]] = defaultdict(list)
    for row in rows:
        groups["all"].append(row)
        if corpus == "wcxb":
            groups[str(row["type"])].append(row)
    print(f"\n### {corpus} ({len(rows)} pages): share of pages read right, direct / trafilatura\n")
    print("| pages | n | " + " | ".join(FIELDS) + " |")
    print("|---|---:|" + "---|" * len(FIELDS))
    for name, group in sorted(groups.items(), key=lambda kv: (kv[0] != "all", kv[0])):
        cells = []
        for field in FIELDS:
            scored = [r for r in group if f"ours_{field}" in r]
            if not scored:
                cells.append("–")
                continue
            rate = {s: sum(bool(r[f"{s}_{field}"]) for r in scored) / len(scored) for s in ("ours", "base")}
            cells.append(f"{rate['ours']:.3f} / {rate['base']:.3f} (n={len(scored)})")
        print(f"| {name} | {len(group)} | " + " | ".join(cells) + " |")
    if corpus == "wcxb":  # the dates split by whether the reference has one: found, and none invented
        for has, label in ((True, "with a reference date"), (False, "without one")):
            scored = [r for r in rows if r.get("has_date") is has]
            rates = " / ".join(f"{sum(bool(r[f'{s}_date']) for r in scored) / len(scored):.3f}"
                               for s in ("ours", "base"))
            print(f"\ndate right on the {len(scored)} pages {label}: {rates}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=("wcxb", "readability", "both"), default="both")
    parser.add_argument("--split", choices=("tune", "heldout", "all"), default="heldout",
                        help="WCXB part (bench_extract_quality.py's split); tune rules on 'tune' only")
    parser.add_argument("--jobs", type=int, default=1, help="pages scored in this many processes")
    args = parser.parse_args()
    for corpus in ["wcxb", "readability"] if args.corpus == "both" else [args.corpus]:
        pages = corpus_pages(corpus, args.split)
        with ProcessPoolExecutor(args.jobs) as pool:
            rows = list(pool.map(score, pages, chunksize=4))
        report(corpus, rows)
        if corpus == "wcxb":
            print(f"(split: {args.split})")


if __name__ == "__main__":
    main()
