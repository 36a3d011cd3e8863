"""Truncate-and-store: the inline window, the footer and the full text on disk."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from hermes_nb import config
from hermes_nb.web import longtext
from hermes_nb.web.results import Page


def _lines(n: int, width: int = 79) -> str:
    return "".join(f"{i:06d} " + "x" * (width - 7) + "\n" for i in range(n))


def test_short_page_is_kept_whole() -> None:
    page = longtext.apply(Page(url="https://a.test/", content="hello\nworld"))
    assert page.content == "hello\nworld" and not page.truncated
    assert page.total_chars == 11 and page.full_text_path is None


def test_long_page_keeps_head_and_tail_and_stores_full_text(hermetic: Path) -> None:
    text = _lines(1000)  # 80,000 chars
    page = longtext.apply(Page(url="https://Docs.Example.com/a?b=1", content=text), max_chars=8000)
    assert page.truncated and page.total_chars == len(text)
    digest = hashlib.sha256(b"https://Docs.Example.com/a?b=1").hexdigest()[:10]
    expected = hermetic / "cache" / "web" / f"docs-example-com-{digest}.md"
    assert page.full_text_path == str(expected)
    assert expected.read_text(encoding="utf-8") == text

    head, _, rest = page.content.partition(longtext.OMITTED_MARKER)
    tail, _, footer = rest.partition("\n---\n")
    assert head.startswith("000000 ") and text.startswith(head.strip())
    assert 5000 < len(head.strip()) <= 6000  # ~75 % of the budget, cut at a newline
    assert tail.strip().endswith("000999 " + "x" * 72) and 1500 < len(tail.strip()) <= 2000
    assert all(len(line) == 79 for line in tail.strip().splitlines())  # whole lines only
    assert "[TRUNCATED]" in footer and "of 80,000 characters" in footer
    assert f"Full text saved to: {expected}" in footer and 'read_file path="' in footer


def test_raw_content_wins_over_content() -> None:
    page = longtext.apply(Page(url="https://a.test/", content="short", raw_content="the raw text"))
    assert page.content == "the raw text"


@pytest.mark.parametrize(("asked", "budget"), [(None, 15000), (10, 2000), (10**9, 500000), (4000, 4000)])
def test_budget_is_clamped(asked: int | None, budget: int) -> None:
    assert longtext.char_budget(asked) == budget


def test_budget_from_config() -> None:
    config.set("web.extract_char_limit", 3000)
    assert longtext.char_budget() == 3000
    page = longtext.apply(Page(url="https://a.test/", content=_lines(100)))
    assert page.truncated and len(page.content) < 3600


def test_inline_base64_images_become_placeholders() -> None:
    data = "data:image/png;base64," + "A" * 50000
    text = f'before ![a chart]({data}) mid <img class=\'x\' src="{data}" alt="logo"> and ![]({data}) end'
    page = longtext.apply(Page(url="https://a.test/", content=text))
    assert page.content == "before [IMAGE: a chart] mid [IMAGE: logo] and [IMAGE] end"
    assert not page.truncated


def test_stored_full_text_is_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(longtext, "MAX_STORED_CHARS", 10000)
    page = longtext.apply(Page(url="https://a.test/big", content="y" * 50000))
    assert page.full_text_path is not None
    assert len(Path(page.full_text_path).read_text(encoding="utf-8")) == 10000
    assert page.total_chars == 50000


def test_error_pages_are_left_alone() -> None:
    page = longtext.apply(Page(url="https://a.test/", error="HTTP 404"))
    assert page.content == "" and page.total_chars == 0


def test_unwritable_cache_dir_still_truncates(hermetic: Path) -> None:
    (hermetic / "cache").write_text("a file where a directory should be", encoding="utf-8")
    page = longtext.apply(Page(url="https://a.test/", content=_lines(1000)))
    assert page.truncated and page.full_text_path is None
    assert "could not save" in page.metadata["full_text_error"]
    assert "Full text saved to" not in page.content
