"""React's streamed segments are placed where their scripts put them, and never dropped as hidden."""

from __future__ import annotations

from hermes_nb.web import content
from hermes_nb.web.extraction.streamed import place_streamed
from hermes_nb.web.extraction.tree import drop_hidden, parse_html

PROSE = (
    "The analytical engine was a proposed mechanical general-purpose computer designed by Charles "
    "Babbage, and it read its programs from punched cards. "
)


def _streamed_page() -> str:
    return (
        "<html><head><title>T</title></head><body><main><h1>Engines</h1>"
        "<template id='B:0'></template><p>Loading</p><footer>Shell footer</footer></main>"
        f"<div hidden id='S:0'><article><p>FIRST {PROSE}</p><template id='P:1'></template></article></div>"
        "<script>$RC(\"B:0\",\"S:0\")</script>"
        f"<div hidden id='S:1'><p>NESTED {PROSE}</p></div>"
        "<script>$RS(\"S:1\",\"P:1\")</script>"
        f"<div hidden id='S:2'><p>UNCLAIMED {PROSE}</p></div>"
        "</body></html>"
    )


def test_segments_go_where_their_scripts_put_them() -> None:
    root = parse_html(_streamed_page())
    assert place_streamed(root) == 2
    main = root.find(".//main")
    text = main.text_content()
    assert text.index("Engines") < text.index("FIRST") < text.index("NESTED") < text.index("Shell footer")
    assert not root.xpath("//template") and len(root.xpath("//div[starts-with(@id, 'S:')]")) == 1


def test_a_segment_without_its_script_is_not_dropped_as_hidden() -> None:
    root = parse_html(_streamed_page())
    place_streamed(root)
    drop_hidden(root, keep_disclosures=True)
    assert "UNCLAIMED" in root.text_content()


def test_the_extracted_text_reads_the_streamed_content() -> None:
    doc = content.convert(_streamed_page(), "text/html", url="https://example.org/engines")
    assert "FIRST" in doc.content and "NESTED" in doc.content
    assert doc.metadata["streamed_segments_placed"] == 2


def test_pages_without_segments_are_untouched() -> None:
    root = parse_html(f"<html><body><template id='B:0'></template><p>{PROSE}</p></body></html>")
    assert place_streamed(root) == 0 and root.xpath("//template")
