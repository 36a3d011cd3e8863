"""A code listing set in a ``<figure>`` (mdBook's numbered listings) is read with its caption."""

from __future__ import annotations

import gzip

import pytest
from paths import benchmark

from hermes_nb.web.content import convert
from hermes_nb.web.extraction import candidates as cands
from hermes_nb.web.extraction.code_figures import open_code_figures
from hermes_nb.web.extraction.tree import parse_html

PARAS = [
    "Ownership is a set of rules that govern how a Rust program manages memory while it runs.",
    "Some languages have garbage collection that looks for no-longer-used memory as the program runs.",
    "In other languages, the programmer must explicitly allocate and free the memory themselves.",
    "Rust manages memory through a system of ownership with rules that the compiler checks.",
]
LISTING = (
    '<figure class="listing" id="listing-4-{n}"><span class="file-name">Filename: src/main.rs</span>'
    '<pre class="playground"><code class="language-rust">fn main() {{\n    let s{n} = String::from("hello");'
    "\n    takes_ownership(s{n});\n}}\n</code></pre>"
    "<figcaption>Listing 4-{n}: Functions with ownership and scope annotated</figcaption></figure>"
)
CHAPTER = (
    "<html><head><title>What is Ownership? - The Rust Programming Language</title></head><body>"
    "<nav class='sidebar'><ol>"
    + "".join(f"<li><a href='/ch{i}.html'>Chapter {i}</a></li>" for i in range(20))
    + "</ol></nav><main><h1>What is Ownership?</h1>"
    + "".join(f"<p>{p} {p}</p>" + LISTING.format(n=i) for i, p in enumerate(PARAS, 1))
    + "</main></body></html>"
)
URL = "https://doc.rust-lang.org/book/ch04-01-what-is-ownership.html"


def test_trafilatura_reads_the_listings_only_once_their_figures_are_opened() -> None:
    root = parse_html(CHAPTER)
    assert "takes_ownership(s2)" not in cands.trafilatura_candidate(root, URL).markdown
    root = parse_html(CHAPTER)
    assert open_code_figures(root) == len(PARAS)
    reading = cands.trafilatura_candidate(root, URL).markdown
    for n in range(1, len(PARAS) + 1):
        assert f"takes_ownership(s{n});" in reading
        assert f"Listing 4-{n}: Functions with ownership" in reading


def test_the_pipeline_keeps_each_listing_as_code_and_says_how_many_it_opened() -> None:
    doc = convert(CHAPTER, "text/html", url=URL)
    assert doc.content.count("```rust") == len(PARAS)
    assert "Listing 4-3: Functions with ownership and scope annotated" in doc.content
    assert doc.metadata["code_figures_opened"] == len(PARAS)


def test_figures_without_code_and_drawings_stay_figures() -> None:
    root = parse_html(
        "<body><figure id='photo'><img src='a.png' alt='A crab'><figcaption>Ferris</figcaption></figure>"
        "<figure id='drawing' aria-hidden='true'><pre>1234 1234 1234 1234</pre></figure>"
        "<figure id='listing'><pre>cargo new hello</pre><figcaption>Listing 1-1</figcaption></figure></body>"
    )
    assert open_code_figures(root) == 1
    assert [el.get("id") for el in root.iter("figure")] == ["photo", "drawing"]
    assert root.xpath("string(//div[@id='listing']/p)") == "Listing 1-1"
    assert root.xpath("string(//figure[@id='photo']/figcaption)") == "Ferris"


@pytest.mark.slow
def test_a_real_rust_book_chapter_reads_its_listings() -> None:
    """A WCXB tune page (a chapter of the Rust book) whose reading held none of its listings; skips
    where the corpus is absent (outside the repository)."""
    quality = benchmark("bench_extract_quality")
    page = quality.WCXB / "html" / "0667.html.gz"
    if not page.is_file():
        pytest.skip(f"WCXB's development pages not found at {quality.WCXB} (outside the repository)")
    html = gzip.decompress(page.read_bytes()).decode("utf-8", "replace")
    doc = convert(html, "text/html", url=URL)
    assert "fn takes_ownership(some_string: String)" in doc.content
    assert "Listing 4-3: Functions with ownership and scope annotated" in doc.content
    assert doc.metadata["code_figures_opened"] >= 5
