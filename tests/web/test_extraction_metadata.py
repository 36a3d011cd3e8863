"""Metadata of the direct extractor against the development corpus's expected-metadata.json (when present)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from hermes_nb.web import content

CORPUS = Path("/work/shared/corpora/readability-test-pages")
#: corpus field -> (our metadata key, the share of sampled pages that must agree)
FIELDS = {
    "title": ("title", 0.8),
    "byline": ("author", 0.4),
    "lang": ("language", 0.95),
    "siteName": ("sitename", 0.75),
    "excerpt": ("description", 0.7),
    "publishedTime": ("date", 0.6),
}


def _norm(value: object) -> str:
    return re.sub(r"\s+", " ", html.unescape(str(value))).strip().lower()


@pytest.fixture(scope="module")
def agreement() -> dict[str, tuple[int, int]]:
    if not CORPUS.is_dir():
        pytest.skip(
            f"development corpus not found at {CORPUS} (it lives outside the repository; CI has none)"
        )
    pages = sorted(p for p in CORPUS.iterdir() if (p / "expected-metadata.json").is_file())[::2]
    counts = {field: [0, 0] for field in FIELDS}
    for page in pages:
        expected = json.loads((page / "expected-metadata.json").read_text(encoding="utf-8"))
        source = (page / "source.html").read_text(encoding="utf-8", errors="replace")
        doc = content.convert(source, "text/html", url=f"http://fakehost/test/{page.name}/")
        got = dict(doc.metadata, title=doc.title)
        for field, (ours, _) in FIELDS.items():
            if not expected.get(field):
                continue
            want, have = _norm(expected[field]), _norm(got.get(ours, ""))
            if field == "publishedTime":
                want, have = want[:10], have[:10]  # the day; time-zone spellings differ
            counts[field][0] += want == have
            counts[field][1] += 1
    return {field: (ok, total) for field, (ok, total) in counts.items()}


@pytest.mark.parametrize("field", list(FIELDS))
def test_metadata_agrees_with_the_corpus(agreement: dict[str, tuple[int, int]], field: str) -> None:
    ok, total = agreement[field]
    assert total >= 10, f"too few sampled pages with {field}"
    assert ok / total >= FIELDS[field][1], f"{field}: {ok} of {total} sampled pages agree"


@pytest.mark.parametrize(
    "marked",
    [
        "<span class='post-byline'>By Ada Lovelace</span>",
        "<span id='author-name'>Ada Lovelace</span>",
        "<span itemprop='author'>Ada Lovelace</span>",
        "<a rel='author' href='/ada'>Ada Lovelace</a>",
    ],
)
def test_author_line_found_by_each_marking_and_the_first_wins(marked: str) -> None:
    from hermes_nb.web.extraction.metadata import page_metadata
    from hermes_nb.web.extraction.tree import parse_html

    later = "<footer><span class='author'>Someone Else</span></footer>"
    root = parse_html(f"<html><body><article>{marked}<p>Text.</p></article>{later}</body></html>")
    assert page_metadata(root, "https://example.org/a")["author"] == "Ada Lovelace"
