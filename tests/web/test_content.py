"""Content handlers: HTML, text, Markdown, JSON, CSV/TSV, RSS/Atom, PDF, charsets, unsupported types."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from hermes_nb.errors import ContentFetchError
from hermes_nb.web import content

ARTICLE = """<!doctype html>
<html lang="en-GB"><head><title>Ignored tab title</title>
<meta name="author" content="Ada Lovelace">
<meta property="article:published_time" content="2024-03-01">
<meta property="og:title" content="Notes on the Engine">
</head><body>
<nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<article><h1>Notes on the Engine</h1>
<p>The analytical engine weaves algebraic patterns just as the Jacquard loom weaves flowers and leaves.
It might act upon other things besides number, were objects found whose mutual fundamental relations
could be expressed by those of the abstract science of operations.</p>
<h2>Section two</h2>
<p>Many persons who are not conversant with mathematical studies imagine that because the business of
the engine is to give its results in numerical notation, the nature of its processes must consequently be
arithmetical and numerical, rather than algebraical and analytical. This is an error.</p>
<ul><li>first point about the engine</li><li>second point about the engine</li></ul>
</article>
<footer>Copyright footer text</footer>
</body></html>"""


def make_pdf(text: str, *, title: str = "Test PDF", author: str = "Tester") -> bytes:
    """A minimal valid one-page PDF whose page shows ``text`` (Helvetica)."""
    stream = f"BT /F1 18 Tf 72 720 Td ({text}) Tj ET".encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        f"<< /Title ({title}) /Author ({author}) >>".encode("latin-1"),
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info 6 0 R >>\n" % (len(objects) + 1)
    out += b"startxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


def test_html_to_markdown_keeps_main_text_and_metadata() -> None:
    doc = content.convert(ARTICLE.encode(), "text/html; charset=utf-8", url="https://example.org/engine")
    assert doc.title == "Notes on the Engine"
    assert "analytical engine weaves algebraic patterns" in doc.content
    assert "## Section two" in doc.content
    assert "- first point about the engine" in doc.content
    assert "Home" not in doc.content and "Copyright footer" not in doc.content
    assert doc.metadata["author"] == "Ada Lovelace"
    assert doc.metadata["date"] == "2024-03-01"
    assert doc.metadata["language"] == "en-GB"
    assert doc.metadata["content_type"] == "text/html"
    assert not doc.content.startswith("---")  # no YAML header leaks into the text


def test_html_stub_page_falls_back_to_visible_text_and_title_tag() -> None:
    html = (
        "<html><head><title>Tiny &amp; short</title><script>var x=1</script></head>"
        "<body><p>Hi.</p></body></html>"
    )
    doc = content.html_to_markdown(html)
    assert doc.title == "Tiny & short"
    assert doc.content == "Hi."


def test_html_signals_count_scripts_and_visible_text() -> None:
    html = "<html><body>" + "<script>app()</script>" * 5 + "<div id=root>Loading</div></body></html>"
    assert content.html_signals(html) == (5, len("Loading"))


def test_non_utf8_html_is_decoded_with_its_charset() -> None:
    page = ARTICLE.replace("Section two", "Größe und Maße für Café").encode("iso-8859-1")
    doc = content.convert(page, "text/html", url="https://example.org/", charset="iso-8859-1")
    assert "## Größe und Maße für Café" in doc.content


def test_a_latin1_label_reads_as_windows_1252_as_browsers_read_it() -> None:
    # Pages labelled iso-8859-1 use 0x93/0x94/0x96 for quotes and dashes; read literally they are
    # invisible C1 controls and the words around them run together.
    page = ARTICLE.replace("Section two", "\u201cQuoted\u201d \u2013 caf\u00e9").encode("cp1252")
    doc = content.convert(page, "text/html", url="https://example.org/", charset="ISO-8859-1")
    assert "## \u201cQuoted\u201d \u2013 caf\u00e9" in doc.content


def test_convert_fetched_uses_the_detected_charset() -> None:
    page = "Prix: 10 € — déjà vu".encode("cp1252")
    fetched = SimpleNamespace(
        url="https://e.org/a.txt", final_url="https://e.org/a.txt", content=page, content_type="text/plain",
        charset="cp1252", text=page.decode("cp1252"),
    )
    assert content.convert_fetched(fetched).content == "Prix: 10 € — déjà vu"


def test_plain_text_is_whitespace_normalised() -> None:
    doc = content.convert("\ufeffline one   \r\n\r\n\r\n\r\nline two\n", "text/plain")
    assert doc.content == "line one\n\nline two"
    assert doc.metadata["content_type"] == "text/plain"


def test_markdown_title_from_first_heading() -> None:
    doc = content.convert(b"Intro\n\n## The Title ##\n\nbody", "text/markdown")
    assert doc.title == "The Title"
    assert doc.content.endswith("body")


def test_json_pretty_printed_and_long_arrays_cut() -> None:
    doc = content.convert(json.dumps({"name": "thing", "v": [1, 2]}), "application/json")
    assert doc.title == "thing"
    assert doc.content.startswith("```json\n{\n  \"name\": \"thing\"")
    many = content.convert(json.dumps(list(range(120))), "application/ld+json")
    assert many.metadata["items_total"] == 120 and many.metadata["items_shown"] == 50
    assert "\n  49\n]" in many.content and "50" not in many.content.split("49", 1)[1]


def test_malformed_json_falls_back_to_text_with_warning() -> None:
    doc = content.convert('{"broken": ', "application/json")
    assert doc.content == '{"broken":'
    assert "json failed (JSONDecodeError)" in doc.metadata["parse_warning"]


def test_csv_becomes_markdown_table() -> None:
    doc = content.convert("name,qty,note\napple,3,red | green\npear,5,\n", "text/csv")
    assert doc.content.splitlines() == [
        "| name | qty | note |",
        "|---|---|---|",
        "| apple | 3 | red \\| green |",
        "| pear | 5 |  |",
    ]
    assert doc.metadata["rows"] == 2 and doc.metadata["columns"] == 3


def test_tsv_and_row_cap() -> None:
    rows = "a\tb\n" + "".join(f"{i}\t{'x' * 100}\n" for i in range(130))
    doc = content.convert(rows, "text/tab-separated-values")
    lines = doc.content.splitlines()
    assert lines[0] == "| a | b |"
    assert len([ln for ln in lines if ln.startswith("| ")]) == 101  # header + 100 rows
    assert "30 more rows not shown" in doc.content
    assert "x" * 80 not in doc.content and ("x" * 79 + "…") in doc.content


RSS = """<?xml version="1.0"?><rss version="2.0"><channel><title>Site news</title>
<item><title>First</title><link>https://e.org/1</link><pubDate>Mon, 01 Jan 2024</pubDate>
<description>&lt;p&gt;Hello &lt;b&gt;world&lt;/b&gt;&lt;/p&gt;</description></item>
<item><title>Second</title><link>https://e.org/2</link></item></channel></rss>"""

ATOM = """<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">
<title>Atom feed</title><entry><title>Entry A</title><link href="https://e.org/a"/>
<updated>2024-02-02T00:00:00Z</updated><summary>About A</summary></entry></feed>"""


def test_rss_to_bullets() -> None:
    doc = content.convert(RSS, "application/rss+xml")
    assert doc.title == "Site news"
    assert "- [First](https://e.org/1) (Mon, 01 Jan 2024): Hello world" in doc.content
    assert "- [Second](https://e.org/2)" in doc.content
    assert doc.metadata["feed_format"] == "rss" and doc.metadata["items"] == 2


def test_atom_via_generic_xml_type() -> None:
    doc = content.convert(ATOM.encode(), "application/xml")
    assert doc.title == "Atom feed"
    assert "- [Entry A](https://e.org/a) (2024-02-02T00:00:00Z): About A" in doc.content


def test_xml_entities_are_not_expanded() -> None:
    bomb = (
        '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa">]>'
        "<rss><channel><title>&a;</title></channel></rss>"
    )
    doc = content.convert(bomb, "application/rss+xml")
    assert "aaaaaaaaaa" not in doc.title


def test_pdf_text_and_metadata() -> None:
    doc = content.convert(make_pdf("Hello from a PDF page"), "application/pdf", url="https://e.org/x.pdf")
    assert "Hello from a PDF page" in doc.content
    assert doc.title == "Test PDF"
    assert doc.metadata["author"] == "Tester" and doc.metadata["pages"] == 1


def test_damaged_pdf_is_a_content_fetch_error() -> None:
    with pytest.raises(ContentFetchError, match="could not read the PDF"):
        content.convert(b"%PDF-1.4\nnot really", "application/pdf", url="https://e.org/bad.pdf")


@pytest.mark.parametrize("ctype", ["image/png", "application/zip", "video/mp4", "application/octet-stream"])
def test_unsupported_types_name_the_type(ctype: str) -> None:
    with pytest.raises(ContentFetchError) as info:
        content.convert(b"\x89PNG....", ctype, url="https://e.org/file")
    assert ctype in str(info.value) and "not supported" in str(info.value)
    assert info.value.code == "CONTENT_FETCH_FAILED"


@pytest.mark.parametrize(
    ("ctype", "kind"),
    [("text/html; charset=utf-8", "html"), ("application/xhtml+xml", "html"), ("text/x-python", "text"),
     ("application/geo+json", "json"), ("application/atom+xml", "feed"), ("image/svg+xml", None),
     ("application/mathml+xml", "xml"),     ("application/pdf", "pdf"), ("font/woff2", None)],
)
def test_kind_of(ctype: str, kind: str | None) -> None:
    assert content.kind_of(ctype) == kind
