"""trafilatura's last resort reads an <article> as one line; the reading has it block by block."""

from __future__ import annotations

from hermes_nb.web.content import convert
from hermes_nb.web.extraction import candidates as cands
from hermes_nb.web.extraction.tree import parse_html

NAMES = [f"Client number {i} case study" for i in range(120)]


def _work_page() -> str:
    # A page of links only: trafilatura's reading comes out short, and its baseline takes the article.
    cases = "".join(
        f"<div class='case'><h4><a href='/case-study/{i}/'>{name}</a></h4></div>"
        for i, name in enumerate(NAMES)
    )
    return (
        "<html><head><title>Our work</title></head><body><nav><a href='/'>Home</a></nav>"
        f"<main><article class='page'>{cases}</article></main></body></html>"
    )


def test_an_article_trafilatura_ran_into_one_line_reads_as_its_blocks() -> None:
    doc = convert(_work_page(), "text/html", url="https://agency.example.com/our-work/")
    lines = doc.content.split("\n")
    assert max(len(line) for line in lines) < 100  # before: one line of 3,369 characters
    assert "#### [Client number 7 case study](https://agency.example.com/case-study/7/)" in lines


def test_only_a_long_line_that_starts_with_an_articles_words_is_replaced() -> None:
    root = parse_html(_work_page())
    run_on = " ".join(NAMES)
    other = "Another text " * 200  # as long, but no article's words
    text = f"Intro.\n{run_on}\n{other.strip()}"
    lines = cands._articles_reread(text, root).split("\n")
    assert lines[0] == "Intro." and lines[-1] == other.strip()
    assert "#### Client number 0 case study" in lines and run_on not in lines
    assert cands._articles_reread(run_on[:1500], root) == run_on[:1500]  # short: left as it is
