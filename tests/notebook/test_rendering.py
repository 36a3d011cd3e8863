"""Mimebundles of every result type: escaped static HTML, stable text/plain, bounded thumbnails."""

from __future__ import annotations

import base64
import hashlib
import io
import re
from pathlib import Path

import pytest
from PIL import Image

from hermes_nb import config
from hermes_nb.images.results import ImageGallery, ImageResult
from hermes_nb.notebook import rendering, widgets
from hermes_nb.notebook.markdown import markdown_to_html
from hermes_nb.web.results import Attempt, CrawlResult, ExtractResult, Page, SearchHit, SearchResult


def _search(duration: float = 0.1234) -> SearchResult:
    hits = [
        SearchHit(
            f"<script>alert({i})</script> title {i}", f"https://www.ex{i}.org/p?a=1&b=2", "snip & <i>", i
        )
        for i in range(1, 4)
    ]
    attempts = [Attempt("brave", "PROVIDER_RATE_LIMITED", "429", 0.1), Attempt("ddgs", None, "", 0.2)]
    return SearchResult("q <x>", hits, "ddgs", attempts, duration_s=duration, limit=3, effective_limit=3)


def _pages() -> list[Page]:
    return [
        Page("https://ex.org/a", "A & B", "# Title\n\n- one\n- two\n\n[x](javascript:alert(1)) `c<d>`", {}),
        Page("https://ex.org/b", "", "", {}, error="404 from server", error_code="CONTENT_FETCH_FAILED"),
        Page(
            "https://ex.org/c",
            "Long",
            "y" * 50,
            {},
            truncated=True,
            total_chars=9000,
            full_text_path="/tmp/somewhere/abc123.md",
        ),
    ]


def _image(tmp_path: Path, name: str = "img.png", size: tuple[int, int] = (1536, 1024)) -> ImageResult:
    path = tmp_path / name
    Image.new("RGBA", size, (10, 120, 200, 255)).save(path)
    data = path.read_bytes()
    return ImageResult(
        path=path,
        prompt="a <fox>",
        provider="fakeimg",
        model="m1",
        aspect_ratio="landscape",
        width=size[0],
        height=size[1],
        sha256=hashlib.sha256(data).hexdigest(),
        seed=3,
        cost={"usd": 0.04, "estimated": True},
        duration_s=1.5,
    )


def _check_html(page: str) -> None:
    assert "<script" not in page.lower()
    assert "javascript:" not in page.lower().replace("[x](javascript:alert(1))", "")
    assert not re.search(r"<link|@import|src=\"https?:", page)


def test_search_bundle_is_escaped_and_deterministic() -> None:
    bundle = _search()._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}
    _check_html(bundle["text/html"])
    assert "&lt;script&gt;" in bundle["text/html"] and "ex1.org" in bundle["text/html"]
    assert "0.12s" in bundle["text/html"]
    assert "brave (PROVIDER_RATE_LIMITED) → ddgs" in bundle["text/html"]
    assert "0.12" not in bundle["text/plain"]
    assert _search(9.9)._repr_mimebundle_()["text/plain"] == bundle["text/plain"]
    assert "color:inherit" in bundle["text/html"] and "rgba(" in bundle["text/html"]


def test_extract_bundle_markdown_errors_and_truncation() -> None:
    result = ExtractResult(_pages(), "direct", [], 0.5)
    bundle = rendering.mimebundle(result)
    page = bundle["text/html"]
    _check_html(page)
    assert "<ul>\n<li>one</li>\n<li>two</li>\n</ul>" in page
    assert "<code>c&lt;d&gt;</code>" in page
    assert "CONTENT_FETCH_FAILED" in page and "CONTENT_FETCH_FAILED" in bundle["text/plain"]
    assert "truncated" in page and "abc123.md" in page and "/tmp/somewhere" not in page
    assert "/tmp" not in bundle["text/plain"] and "truncated" in bundle["text/plain"]


def test_a_long_page_is_previewed_to_the_end_of_a_line_not_through_a_link() -> None:
    # The card shows 4,000 characters; the 4,000th is in a link: "See [notes".
    text = "Plain words here.\n\n" * 210 + "See [notes](https://ex.org/notes) now.\n\n" * 5
    page = Page("https://ex.org/long", "Long", text, {})
    html = rendering.mimebundle(ExtractResult([page], "direct", [], 0.1))["text/html"]
    assert "[notes" not in html and "showing 3,989 of" in html  # to the line's end before it


def test_crawl_and_single_page() -> None:
    crawl = CrawlResult("https://ex.org/", _pages(), "crawler", [], 1.0)
    bundle = rendering.mimebundle(crawl)
    assert bundle["text/plain"].startswith("CrawlResult(start_url='https://ex.org/'")
    _check_html(bundle["text/html"])
    assert rendering.mimebundle(_pages()[0])["text/plain"].startswith("Page")


def test_markdown_blocks_unsafe_links() -> None:
    out = markdown_to_html("see [a](https://ok.org) and [b](javascript:alert(1)) <img src=x onerror=y>")
    assert '<a href="https://ok.org"' in out
    assert 'href="javascript' not in out and "<img" not in out


def _thumb(page: str) -> Image.Image:
    match = re.search(r'src="data:image/jpeg;base64,([^"]+)"', page)
    assert match, "no embedded jpeg thumbnail"
    raw = base64.b64decode(match.group(1))
    assert len(raw) < 40_000
    return Image.open(io.BytesIO(raw))


def test_image_thumbnail_bound_and_stable_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    img = _image(tmp_path)
    bundle = img._repr_mimebundle_()
    thumb = _thumb(bundle["text/html"])
    assert max(thumb.size) <= 256 and thumb.size == (256, 171)
    assert 'href="img.png"' in bundle["text/html"]  # relative link under the notebook dir
    assert "~$0.040" in bundle["text/html"] and "1.50s" in bundle["text/html"]
    text = bundle["text/plain"]
    assert "1536x1024" in text and str(tmp_path) not in text and "1.5" not in text
    assert rendering.mimebundle(img)["text/plain"] == text


def test_image_outside_cwd_is_linked_from_a_folder_beside_the_notebook_and_embed_modes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    img = _image(tmp_path)
    (tmp_path / "notebooks").mkdir()
    monkeypatch.chdir(tmp_path / "notebooks")
    html = rendering.static_html(img)
    beside = tmp_path / "notebooks" / "hermes_nb_files" / img.path.name
    assert f'href="hermes_nb_files/{img.path.name}"' in html and "file://" not in html
    assert beside.read_bytes() == img.path.read_bytes()
    assert [p.name for p in beside.parent.iterdir()] == [img.path.name]  # no partial file left
    config.set("display.files_dir", "")
    assert img.path.resolve().as_uri() in rendering.static_html(img)
    rendering.set_options(embed="link")
    assert "data:image" not in rendering.static_html(img)
    rendering.set_options(embed="full")
    assert "data:image/png;base64" in rendering.static_html(img)
    with pytest.raises(ValueError):
        rendering.set_options(embed="huge")


def test_gallery_grid(tmp_path: Path) -> None:
    gallery = ImageGallery([_image(tmp_path, "a.png"), _image(tmp_path, "b.png", (300, 900))])
    bundle = gallery._repr_mimebundle_()
    assert bundle["text/html"].count("<figure") == 2 and "flex-wrap" in bundle["text/html"]
    assert bundle["text/plain"].splitlines()[0] == "ImageGallery(n=2)"
    assert max(_thumb(bundle["text/html"].split("<figure")[2]).size) <= 256


def test_widget_view_rides_with_static_html(tmp_path: Path) -> None:
    pytest.importorskip("anywidget")
    for obj in (_search(), ExtractResult(_pages(), "direct", [], 0.5), _image(tmp_path)):
        bundle = widgets.widget(obj)._repr_mimebundle_()
        assert {"text/plain", "text/html", "application/vnd.jupyter.widget-view+json"} <= set(bundle)
        assert bundle["application/vnd.jupyter.widget-view+json"]["version_major"] == 2
    rendering.set_options(use_widgets=True)
    assert "application/vnd.jupyter.widget-view+json" in rendering.mimebundle(_search())


def test_unknown_type_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        rendering.mimebundle(object())


def test_search_widget_pages_and_its_extract_button_calls_the_sdk() -> None:
    pytest.importorskip("anywidget")
    from hermes_nb import config
    from hermes_nb.plugins.registry import web_providers
    from hermes_nb.plugins.web_provider import WebSearchProvider

    calls: list[list[str]] = []

    class Reader(WebSearchProvider):
        name = "reader"

        def is_available(self) -> bool:
            return True

        def supports_search(self) -> bool:
            return False

        def supports_extract(self) -> bool:
            return True

        def extract(self, urls: list[str], **kwargs: object) -> list[dict[str, str]]:
            calls.append(list(urls))
            return [{"url": u, "title": "T", "content": "body of the page"} for u in urls]

    web_providers.register(Reader())
    config.set("web.extract_backend", "reader")
    hits = [SearchHit(f"t{i}", f"https://ex.test/{i}", "d", i) for i in range(1, 8)]  # two pages of 5
    view = widgets.view_for(SearchResult("q", hits, "ddgs", [], 0.1, limit=7, effective_limit=7))
    assert view.kind == "search" and view.pages == 2 and view.page == 0
    assert [item["url"] for item in view.items] == [h.url for h in hits]
    view.page = 1  # what the "next" button sets
    assert view.page == 1
    view.page = 9  # out of range: clamped
    assert view.page == 1
    view._handle_custom_msg({"type": "extract", "url": "https://ex.test/6"}, [])  # the "extract" button
    assert calls == [["https://ex.test/6"]]
    assert "body of the page" in view.detail_html and not view.busy
    view._handle_custom_msg({"type": "extract", "url": "https://elsewhere.test/"}, [])
    assert calls == [["https://ex.test/6"]] and "not one of these results" in view.detail_html


def test_a_csv_extract_card_renders_its_table(tmp_path: Path) -> None:
    import hermes_nb as hn

    path = tmp_path / "scores.csv"
    path.write_text("name,score\nada,3\nbob <b>,5\n", encoding="utf-8")
    result = hn.extract(path)
    html_out = rendering.mimebundle(result)["text/html"]
    assert "<table" in html_out and ">name</th>" in html_out and ">score</th>" in html_out
    assert ">ada</td>" in html_out and ">bob &lt;b&gt;</td>" in html_out  # cells escaped
    assert "|---|" not in html_out  # not the Markdown source as a paragraph


def test_markdown_reads_escapes_nesting_numbering_and_raised_text_as_a_reader_sees_them() -> None:
    # What the direct extractor writes: CommonMark escapes, a nested list, a list that starts at 3.
    out = markdown_to_html("a snake\\_case name, 2 \\* 3, H<sub>2</sub>O\n\n3. third\n4. fourth\n   - inner")
    assert "snake_case name, 2 * 3, H<sub>2</sub>O" in out and "\\" not in out
    assert '<ol start="3">' in out and "<li>fourth\n<ul>\n<li>inner</li>" in out


def test_markdown_links_open_in_a_new_tab_and_images_are_links() -> None:
    out = markdown_to_html("[**bold** words](https://ex.org/a_(b)) [near](/rel) ![a cat](https://ex.org/c.png)")
    opened = 'target="_blank" rel="noopener noreferrer"'
    assert f'<a href="https://ex.org/a_(b)" {opened}><strong>bold</strong>' in out
    assert "near" in out and 'href="/rel"' not in out  # a relative target resolves nowhere in a card
    assert f'<a href="https://ex.org/c.png" {opened}>🖼 a cat</a>' in out
    assert "<img" not in out  # a card loads nothing from the page's servers


def test_markdown_code_blocks_and_table_cells_are_styled_inline() -> None:
    out = markdown_to_html("```py\nx <1\n```\n\n| a | b |\n|--:|---|\n| 1 | 2 |")
    assert out.startswith('<pre style="white-space:pre-wrap') and "x &lt;1" in out
    assert out.count("text-align:right") == 2 and out.count("text-align:left") == 2


def test_markdown_tables_keep_escaped_pipes_and_end_where_github_ends_them() -> None:
    out = markdown_to_html("| a | b\\|c |\n|:--|--:|\n| 1 | 2 |\n\nafter")
    assert out.count("<tr>") == 2 and ">b|c</th>" in out and out.endswith("<p>after</p>")
    # GFM: a line right under a table is one more row of it, as GitHub and format="html" read it.
    assert markdown_to_html("| a | b |\n|--|--|\n| 1 | 2 |\nafter").count("<tr>") == 3
    assert "<table" not in markdown_to_html("| not a table |\njust text")  # no delimiter row
